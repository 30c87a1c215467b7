package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStartFailures: an instance that cannot be started is Failed with a
// clear error, is not Running, and is retried after the backoff.
func TestStartFailures(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		edit    func(*Instance)
		wantErr string
	}{
		{"missing executable", func(in *Instance) { in.PackagePath = "/nonexistent/fworker/fn" },
			"exec GO package: fork/exec /nonexistent/fworker/fn: no such file or directory"},
		{"not executable", func(in *Instance) { in.PackagePath = notExec }, "permission denied"},
		{"no package path", func(in *Instance) { in.PackagePath = "" }, "has no package path"},
		{"python missing", func(in *Instance) { in.Spec.Runtime = "PYTHON" },
			`runtime PYTHON needs interpreter "fworker-test-no-python", which was not found`},
		{"java missing", func(in *Instance) { in.Spec.Runtime = "JAVA" },
			`runtime JAVA needs interpreter "fworker-test-no-java", which was not found`},
		{"unsupported runtime", func(in *Instance) { in.Spec.Runtime = "RUST" }, `unsupported runtime "RUST"`},
		{"name escapes the dir", func(in *Instance) { in.ID.Function.Name = ".." }, `".." cannot be used as a directory name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, true, func(o *Options) {
				o.PythonPath, o.JavaPath = "fworker-test-no-python", "fworker-test-no-java"
			})
			in := fn("broken", 0, 9, 1, "")
			tt.edit(&in)
			h.rt.Reconcile([]Instance{in})
			ev := h.events.wait(t, Failed, in.ID, 9)
			if !strings.Contains(ev.Err, tt.wantErr) {
				t.Errorf("Failed.Err = %q, want it to contain %q", ev.Err, tt.wantErr)
			}
			h.clock.waitTimers(t, time.Second, 1) // a retry is scheduled
			if s, ok := h.rt.Status(in.ID); !ok || s.Running || s.State != StateBackoff || s.LastError != ev.Err {
				t.Errorf("Status = %+v, %v", s, ok)
			}
			if got := h.rt.Running(); len(got) != 0 {
				t.Errorf("Running() = %v, want none", got)
			}
			h.rt.Reconcile(nil) // stopping during backoff still says Stopped
			h.events.wait(t, Stopped, in.ID, 9)
			if n := h.events.count(Started, in.ID); n != 0 {
				t.Errorf("%d Started events for an instance that never started", n)
			}
		})
	}
}

// TestBackoffGrows: repeated failures wait BackoffMin, doubling up to
// BackoffMax, whether the start fails or the process exits at once.
func TestBackoffGrows(t *testing.T) {
	tests := []struct {
		name    string
		inst    Instance
		starts  bool // the process starts, then exits
		wantErr string
	}{
		{"missing executable", func() Instance {
			in := fn("missing", 0, 1, 1, "")
			in.PackagePath = "/nonexistent/fworker/fn"
			return in
		}(), false, "no such file or directory"},
		{"exits with status 3", fn("exit3", 0, 1, 1, "exit:3"), true, "exit status 3"},
	}
	delays := []time.Duration{1, 2, 4, 5, 5} // seconds: BackoffMin 1s, BackoffMax 5s
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, true, nil)
			h.rt.Reconcile([]Instance{tt.inst})
			for i, d := range delays {
				if tt.starts {
					h.events.wait(t, Started, tt.inst.ID, 1)
				}
				ev := h.events.wait(t, Failed, tt.inst.ID, 1)
				if !strings.Contains(ev.Err, tt.wantErr) {
					t.Fatalf("attempt %d: Failed.Err = %q, want %q in it", i, ev.Err, tt.wantErr)
				}
				h.clock.waitTimers(t, d*time.Second, 1)
				if s, _ := h.rt.Status(tt.inst.ID); s.NumRestarts != i {
					t.Fatalf("attempt %d: NumRestarts = %d", i, s.NumRestarts)
				}
				h.clock.Advance(d * time.Second)
			}
		})
	}
}

// TestBackoffResets: after the process stayed up for BackoffReset, the next
// failure waits BackoffMin again.
func TestBackoffResets(t *testing.T) {
	h := newHarness(t, true, nil)
	in := fn("flaky", 0, 1, 1, "")
	h.rt.Reconcile([]Instance{in})
	crash := func() {
		t.Helper()
		ready := h.notes.wait(t, "ready", in.ID)
		if err := syscall.Kill(ready.pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		h.events.wait(t, Failed, in.ID, 1)
	}
	steps := []struct {
		name   string
		uptime time.Duration
		delay  time.Duration
	}{
		{"first crash", 0, time.Second},
		{"quick crash doubles", 0, 2 * time.Second},
		{"quick crash doubles again", 0, 4 * time.Second},
		{"crash after a stable run resets", time.Minute, time.Second},
		{"and grows again", 0, 2 * time.Second},
	}
	for _, st := range steps {
		h.events.wait(t, Started, in.ID, 1)
		h.clock.Advance(st.uptime) // no timer is pending while it runs
		crash()
		h.clock.waitTimers(t, st.delay, 1)
		h.clock.Advance(st.delay)
	}
}
