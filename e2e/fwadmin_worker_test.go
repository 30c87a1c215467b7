package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

type fwWorker struct {
	WorkerID string `json:"workerId"`
	Hostname string `json:"workerHostname"`
	Port     int    `json:"port"`
}

// TestFwadminWorker runs the functions-worker commands other than the
// drain family: cluster, leader, assignments, stats, metrics, rebalance,
// cordon, uncordon, and watch following the event stream.
func TestFwadminWorker(t *testing.T) {
	s := startStandalone(t, 3, freePorts(t, 3), t.TempDir())
	url := s.url(2)

	var members []fwWorker
	fwJSON(t, url, &members, "functions-worker", "get-cluster")
	if len(members) != 3 {
		t.Fatalf("get-cluster %+v", members)
	}
	tbl := fwOK(t, url, "functions-worker", "get-cluster", "-o", "table")
	rows := strings.Split(strings.TrimSpace(tbl.stdout), "\n")
	if len(rows) != 4 || !strings.HasPrefix(rows[0], "WORKER ID") || !strings.HasPrefix(rows[1], "standalone-0") || !strings.HasSuffix(rows[1], "yes") {
		t.Fatalf("get-cluster table\n%s", tbl)
	}
	var leader fwWorker
	fwJSON(t, url, &leader, "functions-worker", "get-cluster-leader")
	if leader.WorkerID != "standalone-0" || leader.Port != s.port {
		t.Fatalf("leader %+v", leader)
	}
	fwFails(t, url, 1, []string{`--output "yaml": want "json" or "table"`}, "functions-worker", "get-cluster", "-o", "yaml")

	fwOK(t, url, "functions", "create", "--go", bins.function, "--parallelism", "3", "--name", "w")
	s.eventually("3 instances", 60*time.Second, func() bool { return count(instanceProcs("public/default/w")) == 3 })
	s.eventually("assignments seen by the follower", 30*time.Second, func() bool {
		n := 0
		for _, ids := range assignmentsOf(t, url) {
			n += len(ids)
		}
		return n == 3
	})
	mustContain(t, fwOK(t, url, "functions-worker", "get-function-assignments", "-o", "table"), "WORKER ID", "INSTANCES", "public/default/w:")
	var fstats []struct {
		Name    string         `json:"name"`
		Metrics map[string]any `json:"metrics"`
	}
	fwJSON(t, url, &fstats, "functions-worker", "function-stats")
	for _, st := range fstats {
		if !strings.HasPrefix(st.Name, "public/default/w") || st.Metrics == nil {
			t.Fatalf("function-stats %+v", fstats)
		}
	}
	var metrics []struct {
		Metrics    map[string]any    `json:"metrics"`
		Dimensions map[string]string `json:"dimensions"`
	}
	fwJSON(t, url, &metrics, "functions-worker", "monitoring-metrics")
	if len(metrics) == 0 {
		t.Fatal("monitoring-metrics: none")
	}

	// watch (through a follower: the stream is redirected to the leader)
	// while the leader gets a cordon, an uncordon and a rebalance.
	w := startWatch(t, url, "--timeout", "2m")
	mustContain(t, fwOK(t, url, "functions-worker", "cordon", "--worker-id", "standalone-2"), "Cordoned standalone-2 successfully")
	w.waitFor(t, " worker-cordoned standalone-2 ")
	mustContain(t, fwOK(t, url, "functions-worker", "uncordon", "--worker-id", "standalone-2"), "Uncordoned standalone-2 successfully")
	w.waitFor(t, " worker-uncordoned standalone-2 ")
	mustContain(t, fwOK(t, url, "functions-worker", "rebalance"), "Rebalance command sent successfully")
	w.waitFor(t, " rebalance-started")
	if code := w.interrupt(t); code != 0 {
		t.Fatalf("watch exit %d after Ctrl-C\n%s", code, w.stderr())
	}
	fwFails(t, url, 1, []string{"code: 400 reason: Worker nope is not among the current workers in the system"},
		"functions-worker", "cordon", "--worker-id", "nope")

	fwFails(t, "http://127.0.0.1:1", 1, []string{"connection refused"}, "functions-worker", "watch", "--timeout", "1m")

	// --timeout ends a watch with exit 0; -o json prints one event per line.
	r := fwOK(t, url, "functions-worker", "watch", "--timeout", "1s", "-o", "json")
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if l != "" && !json.Valid([]byte(l)) {
			t.Fatalf("watch -o json line %q", l)
		}
	}
}

// watcher is a `fwadmin functions-worker watch` running in the background.
type watcher struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  []string
	errb strings.Builder
	done chan struct{}
}

func startWatch(t *testing.T, url string, args ...string) *watcher {
	t.Helper()
	w := &watcher{done: make(chan struct{})}
	w.cmd = exec.Command(fwadminBin(t), append([]string{"--admin-url", url, "-v", "functions-worker", "watch"}, args...)...)
	w.cmd.Env = fwEnv(t)
	stdout, _ := w.cmd.StdoutPipe()
	stderr, _ := w.cmd.StderrPipe()
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	connected := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			w.mu.Lock()
			w.errb.WriteString(sc.Text() + "\n")
			w.mu.Unlock()
			// -v: the stream's answer, after the redirect to the leader.
			if strings.Contains(sc.Text(), "/admin/v2/worker/events -> 200 OK") {
				once.Do(func() { close(connected) })
			}
		}
	}()
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			w.mu.Lock()
			w.out = append(w.out, sc.Text())
			w.mu.Unlock()
		}
		close(w.done)
	}()
	t.Cleanup(func() { w.cmd.Process.Kill(); <-w.done; w.cmd.Wait() })
	select {
	case <-connected:
	case <-time.After(30 * time.Second):
		t.Fatalf("watch did not connect:\n%s", w.stderr())
	}
	return w
}

func (w *watcher) stderr() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.errb.String()
}

// waitFor waits for an event line containing s.
func (w *watcher) waitFor(t *testing.T, s string) {
	t.Helper()
	eventually(t, "watch line with "+s, 30*time.Second, func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, l := range w.out {
			if strings.Contains(l, s) {
				return true
			}
		}
		return false
	})
}

// interrupt sends Ctrl-C (SIGINT) and returns the exit code.
func (w *watcher) interrupt(t *testing.T) int {
	t.Helper()
	w.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-w.done:
	case <-time.After(30 * time.Second):
		t.Fatal("watch did not stop on SIGINT")
	}
	w.cmd.Wait()
	return w.cmd.ProcessState.ExitCode()
}

// TestFwadminSettings checks where the settings come from: flag, then
// FWADMIN_* environment, then the config file (--config or
// $XDG_CONFIG_HOME/fwadmin/config.yaml), then the default.
func TestFwadminSettings(t *testing.T) {
	s := startStandalone(t, 1, freePorts(t, 1), t.TempDir())
	bad := "http://127.0.0.1:1"
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "fwadmin"), 0o755)
	os.WriteFile(filepath.Join(home, "fwadmin", "config.yaml"), []byte("admin-url: "+s.url(0)+"\n"), 0o644)
	other := filepath.Join(t.TempDir(), "other.yaml")
	os.WriteFile(other, []byte("admin-url: "+bad+"\n"), 0o644)
	leader := []string{"functions-worker", "get-cluster-leader"}
	env := func(kv ...string) []string {
		return append(fwEnv(t), append([]string{"XDG_CONFIG_HOME=" + home}, kv...)...)
	}

	cases := []struct {
		name string
		env  []string
		args []string
		ok   bool
		msg  string
	}{
		{"default config file", env(), leader, true, ""},
		{"env beats file", env("FWADMIN_ADMIN_URL=" + bad), leader, false, "connection refused"},
		{"flag beats env", env("FWADMIN_ADMIN_URL=" + bad), append([]string{"--admin-url", s.url(0)}, leader...), true, ""},
		{"--config beats the default file", env(), append([]string{"--config", other}, leader...), false, "connection refused"},
		{"FWADMIN_CONFIG", env("FWADMIN_CONFIG=" + other), leader, false, "connection refused"},
		{"missing --config", env(), append([]string{"--config", "/nonexistent.yaml"}, leader...), false, "config file /nonexistent.yaml"},
		{"no config: default URL", fwEnv(t), leader, false, "localhost:6750"},
		{"token file from env", env("FWADMIN_AUTH_TOKEN_FILE=/nonexistent-token"), leader, false, "authentication settings"},
		{"token from env", env("FWADMIN_AUTH_TOKEN=secret"), leader, true, ""},
		{"tls trust from env", env("FWADMIN_TLS_TRUST_CERT_PATH=/nonexistent.pem"), leader, false, "authentication settings"},
		{"bad URL", env(), append([]string{"--admin-url", "localhost"}, leader...), false, "is not an http(s) URL"},
	}
	for _, c := range cases {
		r := fwadminEnv(t, c.env, c.args...)
		if c.ok != (r.code == 0) || (!c.ok && r.code != 1) || !strings.Contains(r.stderr, c.msg) {
			t.Errorf("%s: ok=%v msg=%q\n%s", c.name, c.ok, c.msg, r)
		}
		if c.ok && !strings.Contains(r.stdout, `"workerId": "standalone-0"`) {
			t.Errorf("%s:\n%s", c.name, r)
		}
	}
}

// TestFwadminHelpAndCompletion: every command has --help with examples,
// and completion scripts come out for bash, zsh and fish.
func TestFwadminHelpAndCompletion(t *testing.T) {
	env := fwEnv(t)
	cmds := [][]string{{}, {"completion"}, {"functions-worker"}, {"functions"}}
	for _, c := range strings.Fields("get-cluster get-cluster-leader get-function-assignments function-stats monitoring-metrics rebalance drain get-drain-status undrain cordon uncordon list-drains watch") {
		cmds = append(cmds, []string{"functions-worker", c})
	}
	for _, c := range strings.Fields("create update delete list get status stats start stop restart download") {
		cmds = append(cmds, []string{"functions", c})
	}
	for _, c := range cmds {
		r := fwadminEnv(t, env, append(c, "--help")...)
		if r.code != 0 || !strings.Contains(r.stdout, "Examples:") || !strings.Contains(r.stdout, "Usage:") {
			t.Errorf("no help with examples for %v:\n%s", c, r)
		}
	}
	for shell, marker := range map[string]string{"bash": "complete -o default -F __start_fwadmin fwadmin", "zsh": "#compdef fwadmin", "fish": "complete -c fwadmin"} {
		r := fwadminEnv(t, env, "completion", shell)
		if r.code != 0 || !strings.Contains(r.stdout, marker) {
			t.Errorf("completion %s:\n%s", shell, r)
		}
	}
	if r := fwadminEnv(t, env, "completion", "tcsh"); r.code != 1 {
		t.Errorf("completion tcsh:\n%s", r)
	}
	// Dynamic completion of subcommands, through cobra's __complete.
	r := fwadminEnv(t, env, "__complete", "functions-worker", "dr")
	if !strings.Contains(r.stdout, "drain") {
		t.Errorf("__complete:\n%s", r)
	}
}
