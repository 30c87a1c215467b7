package scheduler

import (
	"slices"

	"github.com/fworker/fworker/drain"
)

// checkEffects checks each assignment and drain write of one step against
// the record it replaces (the store still holds the old one).
func (s *sim) checkEffects(m Message, effects []Effect) {
	prev := map[InstanceID]*Assignment{}
	old := func(id InstanceID) *Assignment {
		if a, ok := prev[id]; ok {
			return a
		}
		if a, ok := s.store.assignments[id]; ok {
			return &a
		}
		return nil
	}
	for _, e := range effects {
		switch e := e.(type) {
		case SaveAssignment:
			next := e.Assignment
			p := old(next.Instance)
			s.checkTransition(m, p, &next)
			if p != nil && next.Worker != p.Worker && s.status[p.Worker] == string(drain.Running) {
				s.moved[p.Worker]++
			}
			prev[next.Instance] = &next
		case RemoveAssignment:
			s.checkTransition(m, old(e.Instance), nil)
			prev[e.Instance] = nil
		case SaveDrain:
			before, seen := s.status[e.Record.Worker]
			now := string(e.Record.Status)
			switch {
			case !seen && e.Record.Status != drain.Running:
				s.fail("drain %s written first as %s", e.Record.Worker, now)
			case seen && before != string(drain.Running) && before != now:
				s.fail("drain %s went %s -> %s", e.Record.Worker, before, now)
			}
			if !seen {
				s.moved[e.Record.Worker] = 0
			}
			if e.Record.Moved != s.moved[e.Record.Worker] {
				s.fail("drain %s says moved %d; %d moves off it completed", e.Record.Worker, e.Record.Moved, s.moved[e.Record.Worker])
			}
			s.status[e.Record.Worker] = now
		case RemoveDrain:
			delete(s.status, e.Worker)
			delete(s.moved, e.Worker)
		}
	}
}

func (s *sim) live(w string) bool {
	ws := s.core.workers[w]
	return ws != nil && ws.live
}

// forced: the worker's drain has force and its deadline has passed.
func (s *sim) forced(w string) bool {
	d := s.core.drains[w]
	return d != nil && d.rec.Force && d.rec.DeadlinePassed(s.core.now)
}

// confirms reports whether message m is target's confirmation of gen.
func confirms(m Message, target string, id InstanceID, gen uint64) bool {
	switch m := m.(type) {
	case InstanceStarted:
		return m.Worker == target && m.Instance == id && m.Gen == gen
	case WorkerReport:
		return m.Worker == target && slices.Contains(m.Running, Run{Instance: id, Gen: gen})
	}
	return false
}

// checkTransition: the record safety rules for one instance.
func (s *sim) checkTransition(m Message, prev, next *Assignment) {
	if next != nil {
		run := runners(*next)
		if len(run) > 2 || (len(run) == 2 && next.Move.Phase != Starting) || (len(run) == 2 && run[0] == run[1]) {
			s.fail("%s desired on %v (move %+v)", next.Instance, run, next.Move)
		}
		// Nothing new on a drained, cordoned or departed worker.
		for _, w := range run {
			isNew := prev == nil || !slices.Contains(runners(*prev), w)
			if isNew && (prev == nil || w != prev.Worker) && !s.core.schedulable(s.core.workers[w]) {
				s.fail("%s newly placed on unschedulable worker %s", next.Instance, w)
			}
		}
	}
	if prev == nil {
		return
	}
	s.checkGroundTruth(prev, next)
	src := prev.Worker
	if !slices.Contains(runners(*prev), src) {
		return // the source had already been released
	}
	if next != nil && slices.Contains(runners(*next), src) {
		return // the source keeps it (maybe restarted with a new gen)
	}
	// The source is being told to stop. Allowed when the target confirmed
	// (by this very message), under force at the deadline, when the source
	// is gone, or when the instance itself is gone.
	switch {
	case !s.live(src):
	case s.forced(src):
	case next != nil && next.Stopped: // a user stopped it
	case next == nil:
		f := s.core.functions[prev.Instance.Function]
		if f != nil && prev.Instance.Index < f.Spec.Parallelism {
			s.fail("%s removed from live %s while its function still wants it", prev.Instance, src)
		}
	case next.Move != nil && next.Move.Phase == Stopping:
		if !confirms(m, next.Move.Target, next.Instance, next.Move.Gen) {
			s.fail("%s: source %s told to stop without %s confirming gen %d (message %s)",
				next.Instance, src, next.Move.Target, next.Move.Gen, describe(m))
		}
	default:
		s.fail("%s: source %s told to stop before the target confirmed: %+v -> %+v (move %+v)",
			prev.Instance, src, *prev, *next, next.Move)
	}
}

// checkState: the core's books balance, drain counts match the assignment
// table, and workers only run what their view of the records says.
func (s *sim) checkState() {
	c := s.core
	owned, in, out, reb := 0, map[string]int{}, map[string]int{}, 0
	for _, w := range c.workers {
		owned += len(w.owned)
	}
	if owned != len(c.slots) {
		s.fail("owned %d != slots %d", owned, len(c.slots))
	}
	for id, sl := range c.slots {
		if _, ok := c.workers[sl.a.Worker].owned[id]; !ok {
			s.fail("%s not in its owner's set", id)
		}
		if _, ok := c.unassigned[id]; ok {
			s.fail("%s both assigned and unassigned", id)
		}
		if m := sl.a.Move; m != nil {
			in[m.Target]++
			out[sl.a.Worker]++
			if m.Reason == ForRebalance {
				reb++
			}
			if _, ok := c.moving[id]; !ok {
				s.fail("%s moving but not indexed", id)
			}
		}
	}
	if reb != c.rebalancing {
		s.fail("rebalancing %d, moves %d", c.rebalancing, reb)
	}
	for id, w := range c.workers {
		if w.incoming != in[id] || w.outgoing != out[id] {
			s.fail("%s incoming/outgoing %d/%d, table says %d/%d", id, w.incoming, w.outgoing, in[id], out[id])
		}
		if d := c.drains[id]; d != nil && d.rec.Status == drain.Running {
			r := d.rec
			if r.Remaining != len(w.owned) || r.Total != r.Moved+r.Remaining || r.InFlight != w.outgoing {
				s.fail("drain %s counts %+v, table: owned %d outgoing %d", id, r, len(w.owned), w.outgoing)
			}
		}
	}
	for k, f := range c.functions {
		for i := range f.Spec.Parallelism {
			id := InstanceID{k, i}
			_, un := c.unassigned[id]
			if c.slots[id] == nil && !un {
				s.fail("%s neither assigned nor unassigned", id)
			}
		}
	}
	// Workers run only what their (possibly stale) view says, and a worker
	// whose view is current agrees with the records.
	for _, wid := range s.ids {
		w := s.workers[wid]
		if !w.up {
			continue
		}
		for id, gen := range w.running {
			want, ok := w.view[id].DesiredOn(wid)
			if _, inView := w.view[id]; !inView || !ok || want != gen {
				continue // it will stop or restart at its next reconcile
			}
			rec, stored := s.store.assignments[id]
			if stored && rec.Rev == w.view[id].Rev {
				if g, ok := rec.DesiredOn(wid); !ok || g != gen {
					s.fail("%s runs %s gen %d; records say %v/%d", wid, id, gen, ok, g)
				}
			}
		}
	}
}

// checkQuiet: once quiet, every expected instance runs exactly once, on its
// owner, when some worker can take it.
func (s *sim) checkQuiet() {
	c := s.core
	if len(c.moving) > 0 {
		s.fail("%d moves still in flight when quiet", len(c.moving))
	}
	for id, d := range c.drains {
		if d.rec.Status == drain.Running {
			s.fail("drain %s still RUNNING when quiet: %+v", id, d.rec)
		}
	}
	runsOn := map[InstanceID][]string{}
	for _, wid := range s.ids {
		if w := s.workers[wid]; w.up {
			for id := range w.running {
				runsOn[id] = append(runsOn[id], wid)
			}
		}
	}
	_, cands := c.candidates(false)
	for k, f := range c.functions {
		for i := range f.Spec.Parallelism {
			id := InstanceID{k, i}
			sl := c.slots[id]
			if sl == nil {
				if pickOne(cands, c.demandOf(id), nil) >= 0 {
					s.fail("%s unassigned although a worker can take it", id)
				}
				continue
			}
			if !s.live(sl.a.Worker) {
				s.fail("%s owned by departed %s when quiet", id, sl.a.Worker)
			}
			if sl.a.Stopped {
				if len(runsOn[id]) > 0 {
					s.fail("%s stopped by the user but runs on %v", id, runsOn[id])
				}
				continue
			}
			if got := runsOn[id]; len(got) != 1 || got[0] != sl.a.Worker {
				s.fail("%s runs on %v, owner %s", id, got, sl.a.Worker)
			}
			if !sl.running {
				s.fail("%s not confirmed running on %s", id, sl.a.Worker)
			}
			delete(runsOn, id)
		}
	}
	for id, ws := range runsOn {
		s.fail("%s runs on %v but is not expected", id, ws)
	}
}

// checkGroundTruth compares confirmations with what the simulated workers
// really do: a target said to run a move runs it, and a source said to have
// stopped has stopped.
func (s *sim) checkGroundTruth(prev, next *Assignment) {
	if next == nil || prev.Move == nil {
		return
	}
	id := next.Instance
	if next.Move != nil && next.Move.Phase == Stopping && prev.Move.Phase == Starting {
		if t := s.workers[next.Move.Target]; t.up && t.running[id] != next.Move.Gen {
			s.fail("%s: move confirmed but %s does not run gen %d", id, t.id, next.Move.Gen)
		}
	}
	if next.Move == nil && prev.Move.Phase == Stopping && next.Worker == prev.Move.Target {
		if src := s.workers[prev.Worker]; src.up && src.running[id] == prev.Gen {
			s.fail("%s: move completed but source %s still runs gen %d", id, src.id, prev.Gen)
		}
	}
}
