package scheduler

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"reflect"
	"testing"
)

// checkBooks verifies what sim_check_test.go's checkState leaves out: the
// resources booked on each worker, the move index, the uniqueness of
// generations and revisions, versions, and that the store (what a new leader
// restores from) holds exactly the core's assignments, functions, drains and
// cordons, so that Restore would rebuild the same books.
func checkBooks(c *Core, store *MemStore) error {
	used := map[string]demand{}
	gens := map[uint64]InstanceID{}
	revs := map[uint64]InstanceID{}
	moves := 0
	issue := func(id InstanceID, g uint64) error {
		if g == 0 || g > c.gen {
			return fmt.Errorf("%s has generation %d; the core issued up to %d", id, g, c.gen)
		}
		if other, dup := gens[g]; dup {
			return fmt.Errorf("generation %d used by %s and %s", g, other, id)
		}
		gens[g] = id
		return nil
	}
	for id, s := range c.slots {
		a := s.a
		f := c.functions[id.Function]
		switch {
		case a.Instance != id:
			return fmt.Errorf("slot %s holds the record of %s", id, a.Instance)
		case f == nil || id.Index >= f.Spec.Parallelism:
			return fmt.Errorf("%s is assigned but its function does not want it", id)
		case a.Version != f.Version:
			return fmt.Errorf("%s at version %d, function at %d", id, a.Version, f.Version)
		case c.workers[a.Worker] == nil:
			return fmt.Errorf("%s owned by unknown worker %q", id, a.Worker)
		case a.Rev == 0 || a.Rev > c.rev:
			return fmt.Errorf("%s has revision %d; the core wrote up to %d", id, a.Rev, c.rev)
		}
		if other, dup := revs[a.Rev]; dup {
			return fmt.Errorf("revision %d used by %s and %s", a.Rev, other, id)
		}
		revs[a.Rev] = id
		if err := issue(id, a.Gen); err != nil {
			return err
		}
		d := c.demandOf(id)
		used[a.Worker] = used[a.Worker].add(d)
		if m := a.Move; m != nil {
			moves++
			if m.Target == a.Worker || c.workers[m.Target] == nil {
				return fmt.Errorf("%s moves from %s to %q", id, a.Worker, m.Target)
			}
			if err := issue(id, m.Gen); err != nil {
				return err
			}
			used[m.Target] = used[m.Target].add(d)
		}
	}
	if moves != len(c.moving) {
		return fmt.Errorf("%d moves in the table, %d indexed", moves, len(c.moving))
	}
	for id, w := range c.workers {
		if w.info.ID != id {
			return fmt.Errorf("worker %s is filed as %s", w.info.ID, id)
		}
		if w.used != used[id] {
			return fmt.Errorf("worker %s books %+v used, its instances and incoming moves need %+v", id, w.used, used[id])
		}
		for iid := range w.owned {
			if s := c.slots[iid]; s == nil || s.a.Worker != id {
				return fmt.Errorf("worker %s lists %s, which it does not own", id, iid)
			}
		}
	}
	for id := range c.unassigned {
		if f := c.functions[id.Function]; f == nil || id.Index >= f.Spec.Parallelism {
			return fmt.Errorf("%s waits for placement but its function does not want it", id)
		}
	}
	for id, d := range c.drains {
		switch {
		case d.rec.Worker != id:
			return fmt.Errorf("drain of %s filed as %s", d.rec.Worker, id)
		case c.workers[id] == nil:
			return fmt.Errorf("drain record of forgotten worker %s", id)
		case d.rec.Status.Terminal() == d.rec.FinishedAt.IsZero():
			return fmt.Errorf("drain %s is %s with finish time %v", id, d.rec.Status, d.rec.FinishedAt)
		}
	}
	return checkStored(c, store)
}

// checkStored compares the store with the core, then rebuilds a core from
// the store and compares the books a new leader would start with.
func checkStored(c *Core, store *MemStore) error {
	st, _ := store.Load(context.Background())
	if st.Rev != c.rev || st.Gen > c.gen {
		return fmt.Errorf("store high water gen %d rev %d, core gen %d rev %d", st.Gen, st.Rev, c.gen, c.rev)
	}
	if len(st.Assignments) != len(c.slots) {
		return fmt.Errorf("store holds %d assignments, core %d", len(st.Assignments), len(c.slots))
	}
	for _, a := range st.Assignments {
		if s := c.slots[a.Instance]; s == nil || !reflect.DeepEqual(a, s.a) {
			return fmt.Errorf("stored record of %s differs from the core's: %+v", a.Instance, a)
		}
	}
	if len(st.Functions) != len(c.functions) {
		return fmt.Errorf("store holds %d functions, core %d", len(st.Functions), len(c.functions))
	}
	for _, f := range st.Functions {
		cf := c.functions[f.Spec.FunctionKey]
		if cf == nil || !bytes.Equal(cf.Spec.Details, f.Spec.Details) {
			return fmt.Errorf("stored function %s differs", f.Spec.FunctionKey)
		}
		a, b := *cf, f
		a.Spec.Details, b.Spec.Details = nil, nil
		if !reflect.DeepEqual(a, b) {
			return fmt.Errorf("stored function %s is %+v, core has %+v", f.Spec.FunctionKey, b, a)
		}
	}
	if len(st.Drains) != len(c.drains) {
		return fmt.Errorf("store holds %d drain records, core %d", len(st.Drains), len(c.drains))
	}
	for _, r := range st.Drains {
		if d := c.drains[r.Worker]; d == nil || d.rec != r {
			return fmt.Errorf("stored drain record of %s is %+v", r.Worker, r)
		}
	}
	cordoned := map[string]bool{}
	for _, id := range st.Cordoned {
		cordoned[id] = true
	}
	for id, w := range c.workers {
		if w.cordoned != cordoned[id] {
			return fmt.Errorf("worker %s cordoned %v, store says %v", id, w.cordoned, cordoned[id])
		}
		delete(cordoned, id)
	}
	if len(cordoned) > 0 {
		return fmt.Errorf("store has cordons for forgotten workers %v", cordoned)
	}

	r := Restore(c.cfg, st)
	if out := r.Ready(); len(out) > 0 {
		return fmt.Errorf("a rebuild from the store would tombstone %d record(s): %v", len(out), out)
	}
	if !maps.Equal(r.unassigned, c.unassigned) || r.rebalancing != c.rebalancing || !maps.Equal(r.moving, c.moving) {
		return fmt.Errorf("a rebuild has %d unassigned, %d moving (%d rebalance); core %d, %d (%d)",
			len(r.unassigned), len(r.moving), r.rebalancing, len(c.unassigned), len(c.moving), c.rebalancing)
	}
	for _, id := range sortedKeys(c.workers) {
		w, rw := c.workers[id], r.workers[id]
		if len(w.owned)+w.incoming+w.outgoing == 0 {
			continue
		}
		if rw == nil || !maps.Equal(w.owned, rw.owned) || w.incoming != rw.incoming || w.outgoing != rw.outgoing || w.used != rw.used {
			return fmt.Errorf("a rebuild books worker %s differently", id)
		}
	}
	return nil
}

// newCheckedSim wraps the simulator's invariant checks (checkEffects,
// checkState) around a core that a test drives itself: no randomness, no
// simulated workers. Worker ids are registered as stubs that are never up,
// so the ground-truth comparisons, which need real simulated workers, skip
// them. Drive it with sendChecked.
func newCheckedSim(t testing.TB, cfg Config, workers ...string) *sim {
	s := &sim{t: t, cfg: cfg, now: t0, core: New(cfg), store: NewMemStore(),
		workers: map[string]*simWorker{}, status: map[string]string{}, moved: map[string]int{}}
	for _, id := range workers {
		s.workers[id] = &simWorker{id: id, view: map[InstanceID]Assignment{}, running: map[InstanceID]uint64{}}
	}
	return s
}

// sendChecked applies m with the simulator's checks, then checks the books.
func (s *sim) sendChecked(m Message) (any, error) {
	s.t.Helper()
	s.step++
	res, err := s.send(m)
	s.logf("%s: %v", describe(m), err)
	if e := checkBooks(s.core, s.store); e != nil {
		s.fail("books: %v", e)
	}
	return res, err
}

// checkKit is checkBooks for kit-driven tests.
func (k *kit) checkBooks() {
	k.t.Helper()
	if err := checkBooks(k.c, k.store); err != nil {
		k.t.Fatal(err)
	}
}

// TestSimulationBooks runs a few simulation seeds with checkBooks after
// every random step (TestSimulation checks its own invariants only).
func TestSimulationBooks(t *testing.T) {
	seeds := uint64(150)
	if testing.Short() {
		seeds = 30
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		s := newSim(t, seed)
		for range 150 + s.rng.IntN(150) {
			s.act()
			if err := checkBooks(s.core, s.store); err != nil {
				s.fail("books: %v", err)
			}
		}
		s.quiesce()
		if err := checkBooks(s.core, s.store); err != nil {
			s.fail("books after quiesce: %v", err)
		}
	}
}
