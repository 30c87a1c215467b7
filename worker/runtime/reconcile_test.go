package runtime

import (
	"reflect"
	"testing"
)

// TestReconcile walks one runtime through a sequence of desired sets and
// checks, at each step, the events, Running() and that untouched instances
// keep their process; at the end, each instance's whole event history.
func TestReconcile(t *testing.T) {
	h := newHarness(t, false, nil)
	a1, b1, c1 := fn("a", 0, 1, 1, ""), fn("b", 0, 1, 1, ""), fn("c", 1, 1, 1, "")
	b2 := fn("b", 0, 2, 1, "")   // new generation
	a1v2 := fn("a", 0, 1, 2, "") // new version, same generation
	ev := func(k EventKind, in Instance) Event { return Event{Kind: k, ID: in.ID, Gen: in.Gen} }

	steps := []struct {
		name    string
		desired []Instance
		want    []Event    // events this step causes, in order per instance
		same    []Instance // must keep their process
	}{
		{"start a set", []Instance{a1, b1}, []Event{ev(Started, a1), ev(Started, b1)}, nil},
		{"same set is a no-op", []Instance{b1, a1}, nil, []Instance{a1, b1}},
		{"add c, new gen of b", []Instance{a1, b2, c1}, []Event{ev(Stopped, b1), ev(Started, b2), ev(Started, c1)}, []Instance{a1}},
		{"new version of a", []Instance{a1v2, b2, c1}, []Event{ev(Stopped, a1), ev(Started, a1v2)}, []Instance{b2, c1}},
		{"remove c", []Instance{a1v2, b2}, []Event{ev(Stopped, c1)}, []Instance{a1v2, b2}},
		{"remove all", nil, []Event{ev(Stopped, a1v2), ev(Stopped, b2)}, nil},
	}
	for _, st := range steps {
		pids := map[string]int{}
		for _, in := range st.same {
			s, ok := h.rt.Status(in.ID)
			if !ok || !s.Running {
				t.Fatalf("%s: %s not running before the step: %+v", st.name, in.ID, s)
			}
			pids[in.ID.String()] = s.PID
		}
		h.rt.Reconcile(st.desired)
		for _, w := range st.want {
			h.events.wait(t, w.Kind, w.ID, w.Gen)
		}
		if got, want := h.rt.Running(), runs(st.desired...); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Running() = %v, want %v", st.name, got, want)
		}
		for _, in := range st.desired {
			s, ok := h.rt.Status(in.ID)
			if !ok || !s.Running || s.Gen != in.Gen || s.Version != in.Version || s.State != StateRunning {
				t.Fatalf("%s: Status(%s) = %+v, %v; want running gen %d version %d", st.name, in.ID, s, ok, in.Gen, in.Version)
			}
			if old, ok := pids[in.ID.String()]; ok && old != s.PID {
				t.Errorf("%s: %s was restarted (pid %d -> %d)", st.name, in.ID, old, s.PID)
			}
		}
	}
	for _, in := range []Instance{a1, b1, c1} {
		if s, ok := h.rt.Status(in.ID); ok {
			t.Errorf("Status(%s) after removal = %+v, want gone", in.ID, s)
		}
	}
	want := map[string][]string{
		a1.ID.String(): {"Started/1", "Stopped/1", "Started/1", "Stopped/1"},
		b1.ID.String(): {"Started/1", "Stopped/1", "Started/2", "Stopped/2"},
		c1.ID.String(): {"Started/1", "Stopped/1"},
	}
	if got := h.events.history(); !reflect.DeepEqual(got, want) {
		t.Errorf("event history:\n got %v\nwant %v", got, want)
	}
}

// TestReconcileChainedGenerations replaces a generation that has not
// started yet: each generation ends with Stopped, in order, and only the
// last one runs.
func TestReconcileChainedGenerations(t *testing.T) {
	h := newHarness(t, true, nil)
	g1, g2, g3 := fn("f", 0, 1, 1, "ignore-term"), fn("f", 0, 2, 1, ""), fn("f", 0, 3, 1, "")
	h.rt.Reconcile([]Instance{g1})
	first := h.notes.wait(t, "ready", g1.ID)
	h.rt.Reconcile([]Instance{g2}) // g1 ignores SIGTERM: g2 waits
	h.notes.wait(t, "ignored", g1.ID)
	if s, _ := h.rt.Status(g1.ID); s.Gen != 2 || s.State != StateWaiting {
		t.Errorf("Status while the old gen stops = %+v, want gen 2 waiting", s)
	}
	if got := h.rt.Running(); !reflect.DeepEqual(got, runs(g1)) {
		t.Errorf("Running() while the old gen stops = %v, want %v", got, runs(g1))
	}
	h.rt.Reconcile([]Instance{g3})
	h.clock.waitTimers(t, 30e9, 1)
	h.clock.Advance(30e9) // grace over: g1 is killed
	h.events.wait(t, Started, g3.ID, 3)
	waitGone(t, first.pid)
	want := map[string][]string{g1.ID.String(): {"Started/1", "Stopped/1", "Stopped/2", "Started/3"}}
	if got := h.events.history(); !reflect.DeepEqual(got, want) {
		t.Errorf("event history:\n got %v\nwant %v", got, want)
	}
	if got := h.rt.Running(); !reflect.DeepEqual(got, runs(g3)) {
		t.Errorf("Running() = %v, want %v", got, runs(g3))
	}
}
