// Package e2e tests fworker through real processes and real HTTP: the built
// binaries, real function instance processes, the admin client.
package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var bins struct {
	dir      string
	fworker  string
	function string
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fworker-e2e")
	if err != nil {
		panic(err)
	}
	bins.dir = dir
	bins.fworker = filepath.Join(dir, "fworker")
	bins.function = filepath.Join(dir, "sleeper")
	for _, b := range [][2]string{{bins.fworker, "../cmd/fworker"}, {bins.function, "../worker/testdata/sleeper"}} {
		if out, err := exec.Command("go", "build", "-o", b[0], b[1]).CombinedOutput(); err != nil {
			panic(fmt.Sprintf("go build %s: %v\n%s", b[1], err, out))
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// freePorts finds n consecutive free ports.
func freePorts(t *testing.T, n int) int {
	t.Helper()
	for try := 0; try < 50; try++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		base := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		ok := true
		for i := 0; i < n && ok; i++ {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(base+i))
			if err != nil {
				ok = false
				break
			}
			l.Close()
		}
		if ok && base+n < 65000 {
			return base
		}
	}
	t.Fatal("no free ports")
	return 0
}

// standalone is a running `fworker standalone` process.
type standalone struct {
	t       *testing.T
	cmd     *exec.Cmd
	port    int
	workers int
	dataDir string
	mu      sync.Mutex
	log     bytes.Buffer
	exited  chan struct{}
}

func startStandalone(t *testing.T, workers, port int, dataDir string) *standalone {
	t.Helper()
	s := &standalone{t: t, port: port, workers: workers, dataDir: dataDir, exited: make(chan struct{})}
	s.cmd = exec.Command(bins.fworker, "standalone", "--workers", strconv.Itoa(workers), "--port", strconv.Itoa(port), "--data-dir", dataDir)
	s.cmd.Env = append(os.Environ(), "FWORKER_WORKERREPORTINTERVALMS=500", "FWORKER_INSTANCESTOPGRACEPERIODMS=3000")
	stderr, _ := s.cmd.StderrPipe()
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.mu.Lock()
			s.log.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
		}
	}()
	go func() { s.cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			s.mu.Lock()
			t.Logf("fworker log:\n%s", s.log.String())
			s.mu.Unlock()
		}
	})
	s.eventually("every worker initialized", 30*time.Second, func() bool {
		for i := range workers {
			resp, err := http.Get(s.url(i) + "/initialized")
			if err != nil {
				return false
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				return false
			}
		}
		return true
	})
	return s
}

func (s *standalone) url(i int) string { return fmt.Sprintf("http://127.0.0.1:%d", s.port+i) }

// stop sends SIGINT and waits for a clean exit.
func (s *standalone) stop() {
	select {
	case <-s.exited:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.exited:
	case <-time.After(60 * time.Second):
		s.cmd.Process.Kill()
		s.t.Error("fworker did not stop within 60s of SIGINT")
		<-s.exited
	}
}

func (s *standalone) eventually(what string, timeout time.Duration, cond func() bool) {
	s.t.Helper()
	eventually(s.t, what, timeout, cond)
}

func eventually(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		<-tick.C
	}
}

// instanceProcs scans /proc for instance processes of function fqfn and
// returns worker id -> instance -> pid. These are real OS processes.
func instanceProcs(fqfn string) map[string]map[string]int {
	out := map[string]map[string]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		var inst, worker string
		for _, kv := range strings.Split(string(env), "\x00") {
			if v, ok := strings.CutPrefix(kv, "FWORKER_INSTANCE="); ok {
				inst = v
			}
			if v, ok := strings.CutPrefix(kv, "FWORKER_WORKER_ID="); ok {
				worker = v
			}
		}
		if strings.HasPrefix(inst, fqfn+":") {
			if out[worker] == nil {
				out[worker] = map[string]int{}
			}
			out[worker][inst] = pid
		}
	}
	return out
}

func count(m map[string]map[string]int) int {
	n := 0
	for _, ids := range m {
		n += len(ids)
	}
	return n
}

// distinct counts distinct instances running anywhere.
func distinct(m map[string]map[string]int) int {
	seen := map[string]bool{}
	for _, ids := range m {
		for id := range ids {
			seen[id] = true
		}
	}
	return len(seen)
}
