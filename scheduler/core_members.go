package scheduler

import (
	"cmp"
	"slices"
	"time"

	"github.com/fworker/fworker/drain"
)

func (c *Core) setMembership(members []WorkerInfo) {
	in := make(map[string]bool, len(members))
	sorted := slices.Clone(members)
	slices.SortFunc(sorted, func(a, b WorkerInfo) int { return cmp.Compare(a.ID, b.ID) })
	for _, m := range sorted {
		in[m.ID] = true
		c.join(m)
	}
	// Every departure is marked before any move is settled, so that no move
	// is retried onto a worker that leaves in this same view.
	var gone []string
	for _, id := range sortedKeys(c.workers) {
		if w := c.workers[id]; w.live && !in[id] {
			c.markGone(w)
			gone = append(gone, id)
		}
	}
	for _, id := range gone {
		c.settleMoves(id)
	}
	if !c.ready {
		c.ready = true
		// Workers known only from persisted records (rebuild) and absent
		// now count as departed from this moment.
		for _, w := range c.workers {
			if !w.live && w.departedAt.IsZero() {
				w.departedAt = c.now
			}
		}
	}
	c.needSchedule = true
}

func (c *Core) join(info WorkerInfo) {
	if info.ID == "" {
		return
	}
	w := c.worker(info.ID)
	if info.Capacity != nil {
		capa := *info.Capacity
		info.Capacity = &capa
	}
	w.info = info
	if !w.live {
		w.live = true
		w.departedAt = time.Time{}
		c.event(EvWorkerJoined, info.ID, nil, "%s:%d", info.Hostname, info.Port)
	}
	c.needSchedule = true
}

// leave marks a worker departed. Its instances stay assigned for
// RescheduleTimeout (it may come back); moves that depended on it are
// settled now.
func (c *Core) leave(id string) {
	w := c.workers[id]
	if w == nil || !w.live {
		return
	}
	c.markGone(w)
	c.settleMoves(id)
}

func (c *Core) markGone(w *workerState) {
	w.live = false
	w.departedAt = c.now
	c.event(EvWorkerLeft, w.info.ID, nil, "%d instance(s) on it", len(w.owned))
}

// settleMoves resolves the moves that involve a departed worker.
func (c *Core) settleMoves(id string) {
	for _, iid := range sortedIDs(c.moving) {
		s := c.slots[iid]
		m := s.a.Move
		switch {
		case m.Target == id && m.Phase == Stopping:
			// The target confirmed and left: the source runs it again.
			c.endMove(s)
			s.a.Gen = c.nextGen()
			s.running = false
			c.save(s)
			c.event(EvMoveCancelled, s.a.Worker, &iid, "target %s left after confirming; back on the source", id)
		case m.Target == id:
			c.retryMove(s, "target left")
		case s.a.Worker == id && m.Phase == Stopping:
			c.complete(s)
		}
	}
}

// checkFailures reschedules the instances of workers gone for longer than
// RescheduleTimeout, as Pulsar's failure checker does. A drained worker's
// instances are left to its drain, which moves them make-before-break.
func (c *Core) checkFailures() {
	if !c.ready {
		return
	}
	for _, id := range sortedKeys(c.workers) {
		w := c.workers[id]
		if w.live || w.departedAt.IsZero() || c.now.Before(w.departedAt.Add(c.cfg.RescheduleTimeout)) {
			continue
		}
		if d := c.drains[id]; d != nil && d.rec.Status == drain.Running {
			continue
		}
		n := 0
		for _, iid := range sortedIDs(w.owned) {
			s := c.slots[iid]
			if s.a.Move != nil {
				continue
			}
			c.drop(s)
			c.unassigned[iid] = struct{}{}
			n++
		}
		if n > 0 {
			c.event(EvRescheduled, id, nil, "%d instance(s) of a departed worker to be placed again", n)
			c.needSchedule = true
		}
	}
}

// cleanup removes drain records of workers gone longer than the retention
// and forgets departed workers that nothing refers to any more.
func (c *Core) cleanup() {
	if !c.ready {
		return
	}
	for _, id := range sortedKeys(c.workers) {
		w := c.workers[id]
		if w.live || w.departedAt.IsZero() {
			continue
		}
		gone := c.now.Sub(w.departedAt)
		if d := c.drains[id]; d != nil && d.rec.Status != drain.Running && gone >= c.cfg.DrainRecordRetention {
			delete(c.drains, id)
			c.emit(RemoveDrain{Worker: id})
			c.event(EvDrainRemoved, id, nil, "worker gone for %s; record removed", gone)
		}
		if c.drains[id] == nil && len(w.owned) == 0 && w.incoming == 0 &&
			gone >= max(c.cfg.DrainRecordRetention, c.cfg.RescheduleTimeout) {
			if w.cordoned {
				c.emit(SaveCordon{Worker: id, Cordoned: false})
			}
			delete(c.workers, id)
		}
	}
}

// rebalance plans the fewest moves that leave max - min <= 1 among the
// schedulable workers and starts them, make-before-break.
func (c *Core) rebalance(periodic bool) error {
	quiet := func(err error) error {
		if periodic {
			return nil
		}
		return err
	}
	if !c.ready {
		return quiet(ErrNotReady)
	}
	if c.rebalancing > 0 {
		return quiet(ErrRebalanceInProgress)
	}
	ws, cands := c.candidates(true)
	if len(ws) <= 1 {
		return quiet(drain.ErrTooFewWorkers)
	}
	loads := make([]int, len(ws))
	ranks := make([]uint64, len(ws))
	for i, w := range ws {
		loads[i] = w.load() - w.outgoing
		ranks[i] = w.rank
	}
	plan := PlanRebalance(loads, ranks)
	movable := map[int][]InstanceID{}
	started := 0
	for _, t := range plan {
		from, to := ws[t.From], ws[t.To]
		if _, ok := movable[t.From]; !ok {
			for _, id := range sortedIDs(from.owned) {
				if c.slots[id].a.Move == nil {
					movable[t.From] = append(movable[t.From], id)
				}
			}
		}
		for range t.Count {
			ids := movable[t.From]
			if len(ids) == 0 {
				break
			}
			id := ids[len(ids)-1]
			movable[t.From] = ids[:len(ids)-1]
			if cd := cands[t.To]; cd.Limited && !c.demandOf(id).fits(demandOf(*to.info.Capacity).sub(to.used)) {
				continue
			}
			c.relocate(c.slots[id], to, ForRebalance, Starting)
			started++
		}
	}
	c.event(EvRebalance, "", nil, "%d move(s) planned across %d worker(s)", started, len(ws))
	return nil
}
