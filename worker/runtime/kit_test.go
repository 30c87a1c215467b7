package runtime

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fworker/fworker/scheduler"
)

// waitFor bounds every wait in these tests; generous for -race on 2 cores.
const waitFor = 30 * time.Second

// harness is a Runtime under test with its recorders.
type harness struct {
	rt     *Runtime
	dir    string
	events events
	notes  notes
	clock  *fakeClock // nil when the real clock is used
}

// newHarness starts a Runtime on a temp dir. fake selects the fake clock.
// Cleanup closes it and checks every process it started is gone.
func newHarness(t *testing.T, fake bool, tweak func(*Options)) *harness {
	t.Helper()
	h := &harness{dir: t.TempDir(), events: events{newFeed[Event]()}}
	var env string
	h.notes, env = newNotes(t)
	opts := Options{
		WorkerID:   "worker-1",
		Dir:        h.dir,
		Log:        slog.New(slog.NewTextHandler(io.Discard, nil)),
		Events:     h.events.add,
		BackoffMin: 10 * time.Millisecond,
		BackoffMax: 100 * time.Millisecond,
		StopGrace:  5 * time.Second,
		Env:        []string{env},
	}
	if fake {
		h.clock = newFakeClock()
		opts.Clock = h.clock
		opts.BackoffMin, opts.BackoffMax, opts.BackoffReset = time.Second, 5*time.Second, time.Minute
		opts.StopGrace = 30 * time.Second
	}
	if testing.Verbose() {
		opts.Log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if tweak != nil {
		tweak(&opts)
	}
	h.rt = New(opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		defer cancel()
		if h.clock != nil {
			cancel() // fake grace timers never fire: kill right away
		}
		_ = h.rt.Close(ctx)
		h.waitIdle(t)
		for _, n := range h.notes.all() {
			waitGone(t, n.pid)
		}
	})
	return h
}

// waitIdle waits until every supervisor goroutine has finished.
func (h *harness) waitIdle(t *testing.T) {
	t.Helper()
	h.rt.mu.Lock()
	var dones []chan struct{}
	for s := range h.rt.live {
		dones = append(dones, s.done)
	}
	h.rt.mu.Unlock()
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	for _, d := range dones {
		select {
		case <-d:
		case <-deadline.C:
			t.Fatalf("supervisors still running after %s", waitFor)
		}
	}
}

// id names instance index of function t/ns/name.
func id(name string, index int) scheduler.InstanceID {
	return scheduler.InstanceID{Function: scheduler.FunctionKey{Tenant: "t", Namespace: "ns", Name: name}, Index: index}
}

// fn is an Instance running the test program in the given mode.
func fn(name string, index int, gen, version uint64, mode string) Instance {
	details, _ := json.Marshal(map[string]string{"mode": mode})
	i := id(name, index)
	return Instance{
		ID: i, Gen: gen, Version: version,
		Spec: scheduler.FunctionSpec{
			FunctionKey: i.Function, Parallelism: index + 1, Runtime: "GO",
			Package: "function://t/ns/" + name, Details: details,
		},
		PackagePath: fnPath,
	}
}

const pidfdOpen = 434 // pidfd_open(2), the same number on every architecture

// exited reports whether pid has exited (zombie or reaped), waiting up to
// timeout for it. It watches a pidfd, so no polling.
func exited(t *testing.T, pid int, timeout time.Duration) bool {
	t.Helper()
	fd, _, e := syscall.Syscall(pidfdOpen, uintptr(pid), 0, 0)
	if e == syscall.ESRCH {
		return true
	}
	if e != 0 {
		t.Fatalf("pidfd_open(%d): %v", pid, e)
	}
	defer syscall.Close(int(fd))
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(ep)
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, int(fd), &syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(timeout)
	for {
		ms := max(int(time.Until(deadline).Milliseconds()), 0)
		n, err := syscall.EpollWait(ep, make([]syscall.EpollEvent, 1), ms)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	if !exited(t, pid, waitFor) {
		t.Errorf("pid %d still alive after %s", pid, waitFor)
	}
}

func alive(t *testing.T, pid int) bool {
	t.Helper()
	return !exited(t, pid, 0)
}

func readLog(t *testing.T, h *harness, i scheduler.InstanceID) string {
	t.Helper()
	k := i.Function
	b, err := os.ReadFile(filepath.Join(h.dir, "logs", k.Tenant, k.Namespace, k.Name, strconv.Itoa(i.Index)+".log"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func runs(ins ...Instance) []scheduler.Run {
	out := make([]scheduler.Run, 0, len(ins))
	for _, in := range ins {
		out = append(out, scheduler.Run{Instance: in.ID, Gen: in.Gen})
	}
	slices.SortFunc(out, func(a, b scheduler.Run) int { return a.Instance.Compare(b.Instance) })
	return out
}

func hasLine(text, line string) bool { return slices.Contains(strings.Split(text, "\n"), line) }
