package runtime

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// TestContract checks what an instance sees: its environment, work dir and
// details file, and that its stdout and stderr land in its log file.
func TestContract(t *testing.T) {
	h := newHarness(t, false, func(o *Options) {
		o.Env = append(o.Env, "PULSAR_SERVICE_URL=pulsar://localhost:6650")
	})
	in := fn("contract", 2, 7, 4, "")
	in.Spec.Details = []byte(`{"mode":"","userConfig":{"k":"v"}}`)
	h.rt.Reconcile([]Instance{in})
	h.notes.wait(t, "ready", in.ID) // printed everything below before this

	work := filepath.Join(h.dir, "instances", "t", "ns", "contract", "2")
	details := filepath.Join(work, "function.json")
	log := readLog(t, h, in.ID)
	for _, line := range []string{
		"FWORKER_TENANT=t",
		"FWORKER_NAMESPACE=ns",
		"FWORKER_NAME=contract",
		"FWORKER_INSTANCE_ID=2",
		"FWORKER_FQFN=t/ns/contract",
		"FWORKER_INSTANCE=t/ns/contract:2",
		"FWORKER_PARALLELISM=3",
		"FWORKER_FUNCTION_VERSION=4",
		"FWORKER_WORKER_ID=worker-1",
		"FWORKER_GEN=7",
		"FWORKER_FUNCTION_DETAILS_FILE=" + details,
		"FWORKER_STATS_FILE=" + filepath.Join(work, "stats.json"),
		"PULSAR_SERVICE_URL=pulsar://localhost:6650",
		"cwd=" + work,
		"hello from stderr",
	} {
		if !hasLine(log, line) {
			t.Errorf("log has no line %q:\n%s", line, log)
		}
	}

	b, err := os.ReadFile(details)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{
		"tenant": "t", "namespace": "ns", "name": "contract", "instanceIndex": 2.0,
		"instance": "t/ns/contract:2", "fqfn": "t/ns/contract", "parallelism": 3.0,
		"runtime": "GO", "package": "function://t/ns/contract", "packagePath": fnPath,
		"version": 4.0, "gen": 7.0, "workerId": "worker-1",
		"details": map[string]any{"mode": "", "userConfig": map[string]any{"k": "v"}},
	} {
		if !reflect.DeepEqual(doc[k], want) {
			t.Errorf("details file %s = %#v, want %#v", k, doc[k], want)
		}
	}
	if fi, err := os.Stat(details); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("details file mode = %v, %v; want 0600", fi.Mode(), err)
	}

	h.rt.Reconcile(nil)
	h.events.wait(t, Stopped, in.ID, 7)
	if log := readLog(t, h, in.ID); !hasLine(log, "SIGTERM: exiting") {
		t.Errorf("stopped instance did not get SIGTERM; log:\n%s", log)
	}
}

// TestDetailsNotJSON: opaque details are passed base64-encoded.
func TestDetailsNotJSON(t *testing.T) {
	dir := t.TempDir()
	in := fn("opaque", 0, 1, 1, "")
	in.Spec.Details = []byte{0xff, 0x00, 'x'}
	path := filepath.Join(dir, "function.json")
	if err := writeDetails(path, "w", in); err != nil {
		t.Fatal(err)
	}
	var doc detailsDoc
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Details != nil || string(doc.DetailsBase64) != string(in.Spec.Details) {
		t.Errorf("details = %q, base64 = %q; want only base64 of %q", doc.Details, doc.DetailsBase64, in.Spec.Details)
	}
}

// TestKilledInstanceRestarts: kill -9 of the instance is Failed, its
// children die with it, and after the backoff it is Started again with the
// same generation.
func TestKilledInstanceRestarts(t *testing.T) {
	h := newHarness(t, true, nil)
	in := fn("crashy", 0, 5, 1, "child")
	h.rt.Reconcile([]Instance{in})
	h.events.wait(t, Started, in.ID, 5)
	child := h.notes.wait(t, "child", in.ID)
	first := h.notes.wait(t, "ready", in.ID)

	if err := syscall.Kill(first.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	failed := h.events.wait(t, Failed, in.ID, 5)
	if !strings.Contains(failed.Err, "signal: killed") {
		t.Errorf("Failed.Err = %q, want the kill signal in it", failed.Err)
	}
	waitGone(t, child.pid) // the rest of the group went with it
	if got := h.rt.Running(); len(got) != 0 {
		t.Errorf("Running() in backoff = %v, want none", got)
	}
	if s, _ := h.rt.Status(in.ID); s.State != StateBackoff || s.Running || s.LastError != failed.Err {
		t.Errorf("Status in backoff = %+v", s)
	}

	h.clock.waitTimers(t, h.rt.opts.BackoffMin, 1)
	h.clock.Advance(h.rt.opts.BackoffMin)
	h.events.wait(t, Started, in.ID, 5)
	second := h.notes.wait(t, "ready", in.ID)
	if second.pid == first.pid || second.gen != 5 {
		t.Errorf("restarted as %+v, first was %+v", second, first)
	}
	s, _ := h.rt.Status(in.ID)
	if !s.Running || s.PID != second.pid || s.NumRestarts != 1 || s.Gen != 5 || s.LastError != failed.Err {
		t.Errorf("Status after restart = %+v", s)
	}
	if got := h.rt.Running(); !reflect.DeepEqual(got, runs(in)) {
		t.Errorf("Running() = %v, want %v", got, runs(in))
	}
}

// TestStopKillsProcessGroup: stopping an instance ends its children too.
func TestStopKillsProcessGroup(t *testing.T) {
	h := newHarness(t, false, nil)
	in := fn("parent", 0, 1, 1, "child")
	h.rt.Reconcile([]Instance{in})
	child := h.notes.wait(t, "child", in.ID)
	main := h.notes.wait(t, "ready", in.ID)
	h.rt.Reconcile(nil)
	h.events.wait(t, Stopped, in.ID, 1)
	waitGone(t, main.pid)
	waitGone(t, child.pid)
}

// TestStopGraceEscalates: a process that ignores SIGTERM keeps running
// through StopGrace and is then SIGKILLed.
func TestStopGraceEscalates(t *testing.T) {
	h := newHarness(t, true, nil)
	in := fn("stubborn", 0, 3, 1, "ignore-term")
	h.rt.Reconcile([]Instance{in})
	ready := h.notes.wait(t, "ready", in.ID)

	h.rt.Reconcile(nil)
	h.notes.wait(t, "ignored", in.ID)
	if !alive(t, ready.pid) {
		t.Fatal("process ended on SIGTERM; it should have ignored it")
	}
	if n := h.events.count(Stopped, in.ID); n != 0 {
		t.Fatalf("Stopped sent before the grace ended")
	}
	if s, ok := h.rt.Status(in.ID); !ok || s.State != StateStopping || !s.Running {
		t.Errorf("Status while stopping = %+v, %v", s, ok)
	}
	if got := h.rt.Running(); !reflect.DeepEqual(got, runs(in)) {
		t.Errorf("Running() while stopping = %v, want %v", got, runs(in))
	}

	h.clock.waitTimers(t, h.rt.opts.StopGrace, 1)
	h.clock.Advance(h.rt.opts.StopGrace)
	h.events.wait(t, Stopped, in.ID, 3)
	waitGone(t, ready.pid)
	if got := h.rt.Running(); len(got) != 0 {
		t.Errorf("Running() = %v, want none", got)
	}
	if s, ok := h.rt.Status(in.ID); ok {
		t.Errorf("Status after Stopped = %+v, want gone", s)
	}
	if log := readLog(t, h, in.ID); !strings.Contains(log, "signal: killed") {
		t.Errorf("log does not record the kill:\n%s", log)
	}
}
