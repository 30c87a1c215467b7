package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The fwadmin binary, built once per test run into bins.dir (which
// TestMain makes and removes).
var fwadminBuild struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

func fwadminBin(t *testing.T) string {
	t.Helper()
	fwadminBuild.once.Do(func() {
		fwadminBuild.path = filepath.Join(bins.dir, "fwadmin")
		args := []string{"build", "-o", fwadminBuild.path}
		if fwadminRace {
			args = append(args, "-race")
		}
		fwadminBuild.out, fwadminBuild.err = exec.Command("go", append(args, "../cmd/fwadmin")...).CombinedOutput()
	})
	if fwadminBuild.err != nil {
		t.Fatalf("go build ./cmd/fwadmin: %v\n%s", fwadminBuild.err, fwadminBuild.out)
	}
	return fwadminBuild.path
}

// fwResult is one finished fwadmin run.
type fwResult struct {
	args           []string
	stdout, stderr string
	code           int
}

func (r fwResult) String() string {
	return "fwadmin " + strings.Join(r.args, " ") + "\n exit " + strconv.Itoa(r.code) + "\n stdout: " + r.stdout + "\n stderr: " + r.stderr
}

// fwEnv is the environment fwadmin runs in: ours without any FWADMIN_
// variable, and a config home of its own, so that no developer's
// ~/.config/fwadmin/config.yaml is read. A race-enabled fwadmin would
// sleep 1 s at exit; it need not (a race still fails it with exit 66).
func fwEnv(t *testing.T, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FWADMIN_") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") && !strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	env = append(env, "XDG_CONFIG_HOME="+t.TempDir(), "GORACE=atexit_sleep_ms=0")
	return append(env, extra...)
}

// fwadminEnv runs fwadmin with env and args and waits for it (2 min at most).
func fwadminEnv(t *testing.T, env []string, args ...string) fwResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, fwadminBin(t), args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := fwResult{args: args, stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("fwadmin %v: %v", args, err)
	}
	return r
}

// fw runs fwadmin against url.
func fw(t *testing.T, url string, args ...string) fwResult {
	t.Helper()
	return fwadminEnv(t, fwEnv(t), append([]string{"--admin-url", url}, args...)...)
}

// fwOK runs fwadmin against url and fails the test unless it exits 0.
func fwOK(t *testing.T, url string, args ...string) fwResult {
	t.Helper()
	r := fw(t, url, args...)
	if r.code != 0 {
		t.Fatalf("expected exit 0:\n%s", r)
	}
	return r
}

// fwJSON runs fwadmin, expects exit 0 and decodes its stdout into out.
func fwJSON(t *testing.T, url string, out any, args ...string) {
	t.Helper()
	r := fwOK(t, url, args...)
	if err := json.Unmarshal([]byte(r.stdout), out); err != nil {
		t.Fatalf("stdout is not the JSON expected: %v\n%s", err, r)
	}
}

// fwFails runs fwadmin, expects exit code want and stderr containing each
// of msgs.
func fwFails(t *testing.T, url string, want int, msgs []string, args ...string) fwResult {
	t.Helper()
	r := fw(t, url, args...)
	if r.code != want {
		t.Fatalf("expected exit %d:\n%s", want, r)
	}
	for _, m := range msgs {
		if !strings.Contains(r.stderr, m) {
			t.Fatalf("stderr lacks %q:\n%s", m, r)
		}
	}
	return r
}

func mustContain(t *testing.T, r fwResult, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(r.stdout, p) {
			t.Fatalf("stdout lacks %q:\n%s", p, r)
		}
	}
}

// fwDrain is the drain status JSON as fwadmin prints it.
type fwDrain struct {
	Worker      string `json:"workerId"`
	Status      string `json:"status"`
	LastError   string `json:"lastError"`
	Reason      string `json:"reason"`
	RequestedBy string `json:"requestedBy"`
	MaxParallel int    `json:"maxParallel"`
	Total       int    `json:"total"`
	Moved       int    `json:"moved"`
	Remaining   int    `json:"remaining"`
}

func drainStatusOf(t *testing.T, url, worker string) fwDrain {
	t.Helper()
	var d fwDrain
	fwJSON(t, url, &d, "functions-worker", "get-drain-status", "--worker-id", worker)
	return d
}

// assignmentsOf is get-function-assignments as fwadmin prints it.
func assignmentsOf(t *testing.T, url string) map[string][]string {
	t.Helper()
	var a map[string][]string
	fwJSON(t, url, &a, "functions-worker", "get-function-assignments")
	return a
}

// busiest returns the worker with the most instances of fqfn, skipping
// the workers in not.
func busiest(a map[string][]string, fqfn string, not ...string) (string, int) {
	best, n := "", 0
	for w, ids := range a {
		skip := false
		for _, x := range not {
			skip = skip || x == w
		}
		c := 0
		for _, id := range ids {
			if strings.HasPrefix(id, fqfn+":") {
				c++
			}
		}
		if !skip && (c > n || c == n && c > 0 && w < best) {
			best, n = w, c
		}
	}
	return best, n
}

// stubbornScript writes a GO-runtime "binary" (a shell script, exec'd
// like any executable) whose process ignores SIGTERM. Stopping it takes
// the whole stop grace period (3 s in startStandalone) before the SIGKILL,
// so every make-before-break move of it takes at least 3 s: a drain of
// such instances cannot meet a 2 s deadline, nor end within a 1 s wait.
func stubbornScript(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "stubborn")
	script := "#!/bin/sh\ntrap '' TERM INT\nexec sleep 100000\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
