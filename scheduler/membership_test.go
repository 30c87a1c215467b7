package scheduler

import (
	"testing"

	"github.com/fworker/fworker/drain"
)

// TestSetMembershipDepartsTogether: one membership view drops both targets
// of a drain's moves. The moves must be abandoned (the source keeps the
// instances), and no record may send a move to a worker that leaves in the
// same view. Found by FuzzCore: leave() ran one worker at a time, so the
// move off the first departed target was retried onto the second, which was
// still marked live, and published.
func TestSetMembershipDepartsTogether(t *testing.T) {
	k := newKit(t, Config{}, "w0", "w1", "w2")
	k.createOn("w0", "f", 2, Resources{})
	k.converge()
	k.must(Drain{Worker: "w0", Options: drain.Options{MaxParallel: 2}})
	ms := k.movesOff("w0")
	if len(ms) != 2 || ms[0].Move.Target == ms[1].Move.Target {
		t.Fatalf("setup: want one move to each of w1 and w2, got %+v", ms)
	}
	k.must(SetMembership{Workers: infos("w0")})
	for _, e := range k.last {
		switch e := e.(type) {
		case SaveAssignment:
			if m := e.Assignment.Move; m != nil {
				t.Errorf("published a move of %s to departed %s (tried %v)", e.Assignment.Instance, m.Target, m.Tried)
			}
		case Event:
			if e.Type == EvMoveStarted || e.Type == EvMoveRetried {
				t.Errorf("event %s: %s", e.Type, e.Detail)
			}
		}
	}
	for _, a := range ms {
		if got := k.c.slots[a.Instance].a; got.Worker != "w0" || got.Move != nil {
			t.Errorf("%s: %+v, want back on w0 alone", a.Instance, got)
		}
	}
	k.checkBooks()
}
