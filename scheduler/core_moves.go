package scheduler

import (
	"slices"

	"github.com/fworker/fworker/drain"
)

// startMove begins a make-before-break move of s to target; tried lists
// targets that failed this move before.
func (c *Core) startMove(s *slot, target *workerState, reason MoveReason, phase MovePhase, tried ...string) {
	s.a.Move = &Move{
		Tried:   tried,
		Target:  target.info.ID,
		Gen:     c.nextGen(),
		Phase:   phase,
		Reason:  reason,
		Since:   c.now,
		Expires: c.now.Add(c.cfg.MoveTimeout),
	}
	c.linkMove(s)
	c.save(s)
	c.event(EvMoveStarted, s.a.Worker, &s.a.Instance, "%s move to %s (%s)", reason, target.info.ID, phase)
}

// relocate sends s to target: a make-before-break move, or, for an
// instance a user stopped (it runs nowhere), a plain change of owner.
func (c *Core) relocate(s *slot, target *workerState, reason MoveReason, phase MovePhase) {
	if !s.a.Stopped {
		c.startMove(s, target, reason, phase)
		return
	}
	src := s.a.Worker
	c.disown(s)
	c.own(s, target)
	s.a.Gen = c.nextGen()
	c.save(s)
	if d := c.drains[src]; d != nil && d.rec.Status == drain.Running {
		d.rec.Moved++
	}
	c.event(EvMoveDone, target.info.ID, &s.a.Instance, "stopped instance reassigned from %s (%s)", src, reason)
}

// linkMove counts a move on its source and target.
func (c *Core) linkMove(s *slot) {
	m := s.a.Move
	t := c.worker(m.Target)
	t.incoming++
	t.used = t.used.add(c.demandOf(s.a.Instance))
	if src := c.workers[s.a.Worker]; src != nil {
		src.outgoing++
	}
	c.moving[s.a.Instance] = struct{}{}
	if m.Reason == ForRebalance {
		c.rebalancing++
	}
}

// endMove forgets the move of s without changing the owner.
func (c *Core) endMove(s *slot) {
	m := s.a.Move
	if t := c.workers[m.Target]; t != nil {
		t.incoming--
		t.used = t.used.sub(c.demandOf(s.a.Instance))
	}
	if src := c.workers[s.a.Worker]; src != nil {
		src.outgoing--
	}
	delete(c.moving, s.a.Instance)
	if m.Reason == ForRebalance {
		c.rebalancing--
	}
	s.a.Move = nil
	c.needSchedule = len(c.unassigned) > 0 || c.needSchedule // room freed
}

// complete hands the instance to the move target, which has confirmed it.
func (c *Core) complete(s *slot) {
	m := *s.a.Move
	src := s.a.Worker
	c.endMove(s)
	c.disown(s)
	c.own(s, c.worker(m.Target))
	s.a.Gen = m.Gen
	s.running = true
	c.save(s)
	if d := c.drains[src]; d != nil && d.rec.Status == drain.Running {
		d.rec.Moved++
	}
	c.event(EvMoveDone, m.Target, &s.a.Instance, "moved from %s (%s)", src, m.Reason)
}

// cancelMove abandons a move that is still Starting: the source keeps it.
func (c *Core) cancelMove(s *slot, why string) {
	target := s.a.Move.Target
	c.endMove(s)
	c.save(s)
	c.event(EvMoveCancelled, s.a.Worker, &s.a.Instance, "move to %s cancelled: %s", target, why)
}

func (c *Core) sourceLive(s *slot) bool {
	w := c.workers[s.a.Worker]
	return w != nil && w.live
}

func (c *Core) started(worker string, id InstanceID, gen uint64) {
	s := c.slots[id]
	if s == nil {
		return
	}
	if m := s.a.Move; m != nil && m.Target == worker && m.Gen == gen {
		switch {
		case m.Phase == Starting && c.sourceLive(s):
			m.Phase = Stopping
			m.Since = c.now
			c.save(s)
			c.event(EvMoveConfirmed, worker, &id, "running on target; stopping on %s", s.a.Worker)
		case m.Phase == Starting || m.Phase == Forced:
			c.complete(s)
		}
		return
	}
	if s.a.Worker == worker && s.a.Gen == gen && (s.a.Move == nil || s.a.Move.Phase == Starting) {
		s.running = true
	}
}

func (c *Core) stopped(worker string, id InstanceID, gen uint64) {
	s := c.slots[id]
	if s == nil || s.a.Worker != worker || s.a.Gen != gen {
		return
	}
	if m := s.a.Move; m != nil && m.Phase == Stopping {
		c.complete(s)
		return
	}
	s.running = false
}

// failed: the worker could not run the instance. A failing move target is
// replaced at once; a failing owner keeps it (its restart policy retries).
func (c *Core) failed(worker string, id InstanceID, gen uint64, _ string) {
	s := c.slots[id]
	if s == nil {
		return
	}
	if m := s.a.Move; m != nil && m.Target == worker && m.Gen == gen && m.Phase != Stopping {
		c.retryMove(s, "target failed to start it")
		return
	}
	if s.a.Worker == worker && s.a.Gen == gen {
		s.running = false
	}
}

// report reconciles a worker's full view: exact-generation runs confirm
// starts; an instance the worker no longer runs, although it had seen the
// record telling it to stop, confirms the stop.
func (c *Core) report(r WorkerReport) {
	w := c.workers[r.Worker]
	if w == nil {
		return
	}
	runs := make(map[InstanceID]uint64, len(r.Running))
	for _, run := range r.Running {
		runs[run.Instance] = run.Gen
	}
	var check []InstanceID
	for id := range w.owned {
		check = append(check, id)
	}
	for id := range c.moving {
		if c.slots[id].a.Move.Target == r.Worker {
			check = append(check, id)
		}
	}
	slices.SortFunc(check, InstanceID.Compare)
	for _, id := range check {
		s := c.slots[id]
		if s == nil {
			continue // completed or dropped earlier in this loop
		}
		gen, running := runs[id]
		if want, ok := s.a.DesiredOn(r.Worker); ok {
			if running && gen == want {
				c.started(r.Worker, id, gen)
			} else if s.a.Worker == r.Worker && r.Rev >= s.a.Rev {
				s.running = false
			}
			continue
		}
		if !running && s.a.Worker == r.Worker && r.Rev >= s.a.Rev && s.a.Move != nil && s.a.Move.Phase == Stopping {
			c.stopped(r.Worker, id, s.a.Gen)
		}
	}
}

// expireMoves retries moves whose target did not confirm in time.
func (c *Core) expireMoves() {
	for _, id := range sortedIDs(c.moving) {
		s := c.slots[id]
		m := s.a.Move
		if m.Phase != Stopping && !c.now.Before(m.Expires) {
			c.retryMove(s, "target did not confirm in time")
		}
	}
}

// retryMove sends a Starting or Forced move to another worker. A Starting
// move with nowhere to go is cancelled (the source still runs it); a Forced
// one leaves the instance unassigned.
func (c *Core) retryMove(s *slot, why string) {
	m := s.a.Move
	tried := append(slices.Clone(m.Tried), m.Target)
	src := s.a.Worker
	target := c.pickTarget(s.a.Instance, func(id string) bool { return id != src && !slices.Contains(tried, id) })
	if target == nil {
		if m.Phase == Forced {
			c.unplace(s)
			return
		}
		c.cancelMove(s, why+"; no other worker can take it")
		return
	}
	phase, reason := m.Phase, m.Reason
	old := m.Target
	c.endMove(s)
	c.startMove(s, target, reason, phase, tried...)
	c.event(EvMoveRetried, target.info.ID, &s.a.Instance, "%s: retried from %s", why, old)
}

// unplace stops an instance without a new home: it becomes unassigned.
func (c *Core) unplace(s *slot) {
	id := s.a.Instance
	src := s.a.Worker
	if d := c.drains[src]; d != nil && d.rec.Status == drain.Running {
		d.rec.Unplaced++
	}
	c.drop(s)
	c.unassigned[id] = struct{}{}
}

// pickTarget chooses the least loaded schedulable worker that fits the
// instance and passes allowed.
func (c *Core) pickTarget(id InstanceID, allowed func(string) bool) *workerState {
	ws, cands := c.candidates(false)
	i := pickOne(cands, c.demandOf(id), func(i int) bool { return allowed(ws[i].info.ID) })
	if i < 0 {
		return nil
	}
	return ws[i]
}
