package runtime

import (
	"context"
	"errors"
	"testing"
)

// TestClose stops every instance concurrently: all of them are in their
// stop grace at once, and Close returns once all have sent Stopped.
func TestClose(t *testing.T) {
	h := newHarness(t, true, nil)
	set := []Instance{fn("a", 0, 1, 1, "ignore-term"), fn("b", 0, 2, 1, "ignore-term"), fn("c", 0, 3, 1, "")}
	h.rt.Reconcile(set)
	var pids []int
	for _, in := range set {
		pids = append(pids, h.notes.wait(t, "ready", in.ID).pid)
	}
	closed := make(chan error, 1)
	go func() { closed <- h.rt.Close(context.Background()) }()
	h.clock.waitTimers(t, h.rt.opts.StopGrace, len(set)-1) // both stubborn ones at once
	h.events.wait(t, Stopped, set[2].ID, 3)                // the polite one is already gone
	h.clock.Advance(h.rt.opts.StopGrace)
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, in := range set { // sent before Close returned
		if n := h.events.count(Stopped, in.ID); n != 1 {
			t.Errorf("%s: %d Stopped events, want 1", in.ID, n)
		}
	}
	for _, pid := range pids {
		waitGone(t, pid)
	}
	if got := h.rt.Running(); len(got) != 0 {
		t.Errorf("Running() after Close = %v", got)
	}

	h.rt.Reconcile(set) // ignored after Close
	if got := h.rt.Running(); len(got) != 0 {
		t.Errorf("Running() after Reconcile after Close = %v", got)
	}
	if _, ok := h.rt.Status(set[0].ID); ok {
		t.Error("Reconcile after Close created an instance")
	}
	if err := h.rt.Close(context.Background()); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestCloseDeadline: when ctx ends before the grace does, Close kills what
// is left and returns ctx's error; the instances still report Stopped.
func TestCloseDeadline(t *testing.T) {
	h := newHarness(t, true, nil)
	in := fn("stubborn", 0, 4, 1, "ignore-term")
	h.rt.Reconcile([]Instance{in})
	ready := h.notes.wait(t, "ready", in.ID)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.rt.Close(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Close = %v, want context.Canceled", err)
	}
	h.events.wait(t, Stopped, in.ID, 4) // the fake grace never ended: it was killed
	waitGone(t, ready.pid)
}
