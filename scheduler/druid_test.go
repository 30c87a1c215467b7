package scheduler

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/fworker/fworker/drain"
)

// The Druid rebalance race (apache/druid#18764): a single-replica segment
// moves from A to B; B's load ack, A's drop ack and the coordinator's
// snapshot interleave, the snapshot sees it on both servers with no move in
// progress, "fixes" the over-replication and drops it from B: served by
// nobody. Here every fact is a message applied in order, so any
// interleaving of B's start ack, A's stop ack and an operation that builds a
// view must keep the instance desired on a live worker at every step, never
// on two workers outside a recorded move, and end on B alone.

type druidEvent byte

const (
	evStart druidEvent = 'S' // B confirms it runs the move's generation
	evStop  druidEvent = 'P' // A confirms it stopped its generation
	evView  druidEvent = 'V' // an operation that builds a view of the state
)

var druidViews = []struct {
	name string
	run  func(k *kit) (any, error)
}{
	{"GetSnapshot", func(k *kit) (any, error) { return k.step(GetSnapshot{}) }},
	{"Rebalance", func(k *kit) (any, error) { return k.step(Rebalance{}) }},
	{"Tick", func(k *kit) (any, error) { return k.step(Tick{}) }},
	{"CreateFunction", func(k *kit) (any, error) { return k.step(CreateFunction{Spec: fn("late", 1)}) }},
}

// druidMove is the move under test: instance id from src (A) to dst (B).
type druidMove struct {
	id             InstanceID
	src, dst       string
	srcGen, dstGen uint64
	byDrain        bool // false: started by a rebalance
}

// druidSetup starts the move A -> B by a drain of A or by a rebalance.
// Layout: by drain, A holds the instance, C three fillers, B nothing; by
// rebalance, A holds two instances, C one, B nothing.
func druidSetup(t *testing.T, byDrain bool) (*kit, druidMove) {
	k := newKit(t, Config{}, "A", "B", "C")
	if byDrain {
		k.createOn("A", "tracked", 1, Resources{})
		k.createOn("C", "filler", 3, Resources{})
	} else {
		k.createOn("A", "tracked", 2, Resources{})
		k.createOn("C", "filler", 1, Resources{})
	}
	k.converge()
	if byDrain {
		k.must(Drain{Worker: "A"})
	} else {
		k.must(Rebalance{})
	}
	ms := k.movesOff("A")
	if len(ms) != 1 || ms[0].Move.Target != "B" {
		t.Fatalf("setup: moves off A %+v, want one to B", ms)
	}
	a := ms[0]
	return k, druidMove{id: a.Instance, src: "A", dst: "B", srcGen: a.Gen, dstGen: a.Move.Gen, byDrain: byDrain}
}

// permutations returns the distinct orderings of a multiset of events.
func permutations(evs []druidEvent) [][]druidEvent {
	evs = slices.Clone(evs)
	slices.Sort(evs)
	var out [][]druidEvent
	for {
		out = append(out, slices.Clone(evs))
		i := len(evs) - 2
		for i >= 0 && evs[i] >= evs[i+1] {
			i--
		}
		if i < 0 {
			return out
		}
		j := len(evs) - 1
		for evs[j] <= evs[i] {
			j--
		}
		evs[i], evs[j] = evs[j], evs[i]
		slices.Reverse(evs[i+1:])
	}
}

// desiredOn lists the workers an assignment record tells to run it.
func desiredOn(a Assignment, workers []string) []string {
	var out []string
	for _, w := range workers {
		if _, ok := a.DesiredOn(w); ok {
			out = append(out, w)
		}
	}
	return out
}

// checkServed: every record, in the core and in the effects of the last
// step, is desired on one live worker, or on two during a recorded
// make-before-break move, under different generations.
func checkServed(t *testing.T, k *kit, where string, extra ...Snapshot) {
	t.Helper()
	var ws []string
	live := map[string]bool{}
	for id, w := range k.c.workers {
		ws = append(ws, id)
		live[id] = w.live
	}
	slices.Sort(ws)
	check := func(src string, a Assignment) {
		t.Helper()
		on := desiredOn(a, ws)
		switch {
		case len(on) == 0:
			t.Fatalf("%s: %s: %s is desired nowhere: %+v", where, src, a.Instance, a)
		case len(on) > 2:
			t.Fatalf("%s: %s: %s desired on %v", where, src, a.Instance, on)
		case len(on) == 2 && (a.Move == nil || a.Move.Phase != Starting || a.Move.Gen == a.Gen ||
			!slices.Contains(on, a.Worker) || !slices.Contains(on, a.Move.Target)):
			t.Fatalf("%s: %s: %s desired on %v outside a recorded move: %+v", where, src, a.Instance, on, a)
		}
		for _, w := range on {
			if !live[w] {
				t.Fatalf("%s: %s: %s desired on departed %s", where, src, a.Instance, w)
			}
		}
	}
	for _, id := range sortedIDs(mapKeys(k.c.slots)) {
		check("core", k.c.slots[id].a)
	}
	for _, e := range k.last {
		switch e := e.(type) {
		case SaveAssignment:
			check("published record", e.Assignment)
		case RemoveAssignment:
			t.Fatalf("%s: %s removed", where, e.Instance)
		}
	}
	for _, s := range extra {
		for _, a := range s.Assignments {
			check("snapshot reply", a.Assignment)
		}
	}
	if err := checkBooks(k.c, k.store); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
}

func TestDruidMoveRaceAroundSnapshot(t *testing.T) {
	multisets := [][]druidEvent{
		{evStart, evStop, evView},          // 6 orders, stop before start among them
		{evStart, evStop, evStop, evView},  // duplicated stop ack
		{evStart, evStart, evStop, evView}, // duplicated start ack
	}
	for _, byDrain := range []bool{true, false} {
		for _, view := range druidViews {
			for _, set := range multisets {
				for _, order := range permutations(set) {
					name := fmt.Sprintf("drain=%v/%s/%s", byDrain, view.name, string(order))
					t.Run(name, func(t *testing.T) {
						k, mv := druidSetup(t, byDrain)
						checkServed(t, k, "after the move started")
						runDruidOrder(t, k, mv, view.run, order)
					})
				}
			}
		}
	}
}

func runDruidOrder(t *testing.T, k *kit, mv druidMove, view func(*kit) (any, error), order []druidEvent) {
	started := false
	completedEarly := false // a stop ack arrives after the start ack
	for i, ev := range order {
		where := fmt.Sprintf("step %d (%c of %s)", i, ev, string(order))
		var snaps []Snapshot
		switch ev {
		case evStart:
			k.must(InstanceStarted{Worker: mv.dst, Instance: mv.id, Gen: mv.dstGen})
			started = true
		case evStop:
			k.must(InstanceStopped{Worker: mv.src, Instance: mv.id, Gen: mv.srcGen})
			completedEarly = completedEarly || started
		case evView:
			res, err := view(k)
			if err != nil && !errors.Is(err, ErrRebalanceInProgress) && !errors.Is(err, drain.ErrTooFewWorkers) {
				t.Fatalf("%s: %v", where, err)
			}
			if s, ok := res.(Snapshot); ok {
				snaps = append(snaps, s)
			}
		}
		checkServed(t, k, where, snaps...)
		a := k.c.slots[mv.id].a
		if a.Worker != mv.src && a.Worker != mv.dst || a.Move != nil && a.Move.Target != mv.dst {
			t.Fatalf("%s: the instance went elsewhere: %+v", where, a)
		}
	}
	a := k.c.slots[mv.id].a
	if done := a.Move == nil; done != completedEarly {
		t.Fatalf("after %s: move done %v, want %v (%+v)", string(order), done, completedEarly, a)
	}
	if !completedEarly {
		// A's only stop ack came before B confirmed: A had not yet been
		// told to stop. The core waits for A; A's report settles it.
		if a.Move.Phase != Stopping || !slices.Equal(desiredOn(a, []string{mv.src, mv.dst}), []string{mv.dst}) {
			t.Fatalf("after %s: want Stopping and desired on B only, got %+v", string(order), a)
		}
		r := WorkerReport{Worker: mv.src, Rev: k.c.rev}
		for _, id := range sortedIDs(k.c.workers[mv.src].owned) {
			if g, ok := k.c.slots[id].a.DesiredOn(mv.src); ok {
				r.Running = append(r.Running, Run{Instance: id, Gen: g})
			}
		}
		k.must(r)
		checkServed(t, k, "after A's report")
	}
	s := k.c.slots[mv.id]
	if s.a.Worker != mv.dst || s.a.Move != nil || s.a.Gen != mv.dstGen || !s.running {
		t.Fatalf("after %s: %+v running=%v, want on %s at gen %d, confirmed", string(order), s.a, s.running, mv.dst, mv.dstGen)
	}
	if mv.byDrain {
		k.wantStatus(mv.src, drain.Success, 1, 0)
	}
	if !mv.byDrain && k.c.rebalancing != 0 {
		t.Fatalf("rebalance still counts %d move(s)", k.c.rebalancing)
	}
	k.converge()
	checkServed(t, k, "converged")
	for w, ids := range byWorker(k.snap()) {
		if w != mv.dst && slices.Contains(ids, mv.id.String()) {
			t.Fatalf("%s also assigned to %s", mv.id, w)
		}
	}
	if got := desiredOn(k.c.slots[mv.id].a, sortedKeys(k.c.workers)); !slices.Equal(got, []string{mv.dst}) {
		t.Fatalf("in the end desired on %v, want only %s", got, mv.dst)
	}
}
