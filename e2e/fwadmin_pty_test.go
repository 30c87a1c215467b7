package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestFwadminDrainProgressBar runs `drain --wait` on a pseudo-terminal, as
// a person at a terminal would, and reads what it draws: a live bar
// (redrawn in place with \r) that counts moved/total and elapsed time and
// ends at 100% with SUCCESS. The instances ignore SIGTERM, so each move
// takes the 3 s stop grace and the bar has time to show progress.
func TestFwadminDrainProgressBar(t *testing.T) {
	s := startStandalone(t, 3, freePorts(t, 3), t.TempDir())
	url := s.url(0)
	fwOK(t, url, "functions", "create", "--go", stubbornScript(t), "--parallelism", "3", "--name", "bar")
	s.eventually("3 instances", 60*time.Second, func() bool { return count(instanceProcs("public/default/bar")) == 3 })
	target, n := busiest(assignmentsOf(t, url), "public/default/bar")
	if n == 0 {
		t.Fatal("no instance assigned")
	}

	cmd := exec.Command(fwadminBin(t), "--admin-url", url, "functions-worker", "drain", "--worker-id", target, "--wait", "--interval", "200ms")
	cmd.Env = append(fwEnv(t), "TERM=xterm")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var out bytes.Buffer
	read := make(chan error, 1)
	go func() { _, err := io.Copy(&out, tty); read <- err }()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err = <-waited:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("drain --wait did not end; drew:\n%q", out.String())
	}
	if err != nil {
		t.Fatalf("drain --wait: %v; drew:\n%q", err, out.String())
	}
	// Linux answers EIO on the terminal once the program is gone.
	if err := <-read; err != nil && !errors.Is(err, syscall.EIO) {
		t.Fatalf("reading the terminal: %v", err)
	}

	screen := out.String()
	frames := strings.FieldsFunc(screen, func(r rune) bool { return r == '\r' || r == '\n' })
	var drawn []string
	for _, f := range frames {
		if strings.Contains(f, "%") {
			drawn = append(drawn, strings.TrimSpace(f))
		}
	}
	if len(drawn) < 3 || !strings.Contains(screen, "\r") {
		t.Fatalf("expected a bar redrawn in place, got:\n%q", screen)
	}
	running := regexp.MustCompile(`^drain ` + target + `: RUNNING, \d+ in flight +0% \|.*\| \(0/` + strconv.Itoa(n) + `\) \[\d+s\]$`)
	if !running.MatchString(drawn[0]) {
		t.Fatalf("first frame %q", drawn[0])
	}
	last := drawn[len(drawn)-1]
	done := fmt.Sprintf("drain %s: SUCCESS 100%% |", target)
	if !strings.HasPrefix(last, done) || !strings.Contains(last, fmt.Sprintf("| (%d/%d) [", n, n)) {
		t.Fatalf("last frame %q, want %q... (%d/%d)", last, done, n, n)
	}
	secs := regexp.MustCompile(`\[(\d+)s\]$`).FindStringSubmatch(last)
	if secs == nil {
		t.Fatalf("no elapsed time in %q", last)
	}
	if el, _ := strconv.Atoi(secs[1]); el < 2 {
		t.Fatalf("elapsed %ss in %q; each move takes the 3 s stop grace", secs[1], last)
	}
	if d := drainStatusOf(t, url, target); d.Status != "SUCCESS" || d.Moved != n {
		t.Fatalf("status after the bar %+v", d)
	}
}
