package scheduler

import (
	"fmt"
	"strings"

	"github.com/fworker/fworker/drain"
)

func (c *Core) runningDrains() int {
	n := 0
	for _, d := range c.drains {
		if d.rec.Status == drain.Running {
			n++
		}
	}
	return n
}

// drain admits a drain request (Pulsar's checks, then the capacity dry run)
// and starts it; the moves begin in settle.
func (c *Core) drain(worker string, opts drain.Options) (drain.Record, error) {
	if !c.ready {
		return drain.Record{}, ErrNotReady
	}
	if err := opts.Validate(c.now); err != nil {
		return drain.Record{}, err
	}
	avail := map[string]bool{}
	for id, w := range c.workers {
		if w.live && c.drains[id] == nil && (!w.cordoned || id == worker) {
			avail[id] = true
		}
	}
	view := drain.View{
		Running:       c.runningDrains(),
		MaxConcurrent: c.cfg.MaxConcurrentDrains,
		Available:     avail,
		HasRecord:     func(id string) bool { return c.drains[id] != nil },
	}
	if err := drain.Admit(view, worker); err != nil {
		return drain.Record{}, err
	}
	w := c.workers[worker]
	if !opts.Force {
		if err := c.dryRun(w); err != nil {
			return drain.Record{}, err
		}
	}
	d := &drainState{rec: drain.Start(worker, len(w.owned), opts, c.cfg.DrainMaxParallelMoves, c.now)}
	c.drains[worker] = d
	// Nothing new lands on a drained worker: moves heading there that it
	// has not confirmed go elsewhere (or are abandoned).
	for _, id := range sortedIDs(c.moving) {
		s := c.slots[id]
		if m := s.a.Move; m.Target == worker && m.Phase != Stopping {
			c.retryMove(s, "target is being drained")
		}
	}
	c.emit(SaveDrain{Record: d.rec})
	c.event(EvDrainStarted, worker, nil, "%d instance(s) to move, up to %d at a time", d.rec.Total, d.rec.MaxParallel)
	return d.rec, nil
}

// dryRun places the worker's instances on the other schedulable workers,
// as the real placement would, and refuses when something does not fit.
func (c *Core) dryRun(w *workerState) error {
	ws, cands := c.candidates(true)
	var keep []Candidate
	for i := range ws {
		if ws[i] != w {
			keep = append(keep, cands[i])
		}
	}
	ids := sortedIDs(w.owned)
	demands := make([]demand, 0, len(ids))
	for _, id := range ids {
		if c.slots[id].a.Move == nil {
			demands = append(demands, c.demandOf(id))
		}
	}
	free := demand{}
	for _, k := range keep {
		if k.Limited {
			free = free.add(k.Free)
		}
	}
	where := PlaceFit(keep, demands, make([]int32, 0, len(demands)))
	unplaced := 0
	for _, x := range where {
		if x < 0 {
			unplaced++
		}
	}
	if unplaced == 0 {
		return nil
	}
	var need demand
	for _, d := range demands {
		need = need.add(d)
	}
	return &drain.CapacityError{Worker: w.info.ID, Unplaced: unplaced, Total: len(demands), Detail: shortage(need, free)}
}

// shortage compares what the instances need in all with what the other
// workers have free in all, naming only the dimensions that are limited
// somewhere (a huge free amount is an unlimited worker). Fragmentation can
// refuse a drain even when the totals look sufficient; the count says so.
func shortage(need, free demand) string {
	const unlimited = 1 << 60
	var parts []string
	if free.cpu < unlimited {
		parts = append(parts, fmt.Sprintf("cpu %.3f needed, %.3f free", float64(need.cpu)/1000, float64(free.cpu)/1000))
	}
	if free.ram < unlimited {
		parts = append(parts, fmt.Sprintf("ram %d needed, %d free", need.ram, free.ram))
	}
	if free.disk < unlimited {
		parts = append(parts, fmt.Sprintf("disk %d needed, %d free", need.disk, free.disk))
	}
	return strings.Join(parts, "; ")
}

func (c *Core) advanceDrains() {
	for _, id := range sortedKeys(c.drains) {
		d := c.drains[id]
		if d.rec.Status != drain.Running {
			continue
		}
		before := d.rec
		c.advanceDrain(d)
		if d.rec != before {
			c.emit(SaveDrain{Record: d.rec})
		}
	}
}

func (c *Core) advanceDrain(d *drainState) {
	w := c.worker(d.rec.Worker)
	if d.rec.DeadlinePassed(c.now) && len(w.owned) > 0 {
		if !d.rec.Force {
			c.finishDrain(d, w, fmt.Sprintf("deadline passed with %d of %d instance(s) still on worker %s",
				len(w.owned), d.rec.Moved+len(w.owned), w.info.ID))
			return
		}
		c.forceRest(w)
	}
	stuck := false
	for w.outgoing < d.rec.MaxParallel {
		s := c.nextToMove(d, w)
		if s == nil {
			break
		}
		target := c.pickTarget(s.a.Instance, func(id string) bool { return id != w.info.ID })
		if target == nil {
			d.queue = append([]InstanceID{s.a.Instance}, d.queue...)
			stuck = true
			break
		}
		c.relocate(s, target, ForDrain, Starting)
	}
	d.rec.Observe(len(w.owned), w.outgoing)
	switch {
	case len(w.owned) == 0 && d.rec.Unplaced > 0:
		c.finishDrain(d, w, fmt.Sprintf("deadline passed: %d instance(s) were stopped with no other worker to take them", d.rec.Unplaced))
	case len(w.owned) == 0:
		c.finishDrain(d, w, "")
	case stuck && w.outgoing == 0 && d.rec.Deadline.IsZero():
		c.finishDrain(d, w, fmt.Sprintf("no other worker can take the %d remaining instance(s) of worker %s", len(w.owned), w.info.ID))
	}
}

// nextToMove pops the next instance of w that is not moving yet.
func (c *Core) nextToMove(d *drainState, w *workerState) *slot {
	for {
		if len(d.queue) == 0 {
			for _, id := range sortedIDs(w.owned) {
				if c.slots[id].a.Move == nil {
					d.queue = append(d.queue, id)
				}
			}
			if len(d.queue) == 0 {
				return nil
			}
		}
		id := d.queue[0]
		d.queue = d.queue[1:]
		if s := c.slots[id]; s != nil && s.a.Worker == w.info.ID && s.a.Move == nil {
			return s
		}
	}
}

// forceRest is the deadline with force: whatever is still on w is stopped
// there now and placed elsewhere break-before-make.
func (c *Core) forceRest(w *workerState) {
	for _, id := range sortedIDs(w.owned) {
		s := c.slots[id]
		if m := s.a.Move; m != nil {
			if m.Phase == Starting {
				m.Phase = Forced
				c.save(s)
			}
			continue
		}
		target := c.pickTarget(id, func(t string) bool { return t != w.info.ID })
		if target == nil {
			c.unplace(s)
			continue
		}
		c.relocate(s, target, ForDrain, Forced)
	}
}

func (c *Core) finishDrain(d *drainState, w *workerState, lastError string) {
	if lastError != "" {
		c.cancelStartingMoves(w.info.ID, "drain ended: "+lastError)
	}
	d.rec.Observe(len(w.owned), w.outgoing)
	d.rec.Finish(c.now, lastError)
	d.queue = nil
	c.event(EvDrainFinished, w.info.ID, nil, "%s: moved %d of %d %s", d.rec.Status, d.rec.Moved, d.rec.Total, lastError)
}

// cancelStartingMoves abandons the drain moves off worker that the target
// has not confirmed yet.
func (c *Core) cancelStartingMoves(worker, why string) {
	for _, id := range sortedIDs(c.moving) {
		s := c.slots[id]
		if m := s.a.Move; s.a.Worker == worker && m.Reason == ForDrain && m.Phase == Starting {
			c.cancelMove(s, why)
		}
	}
}

func (c *Core) undrain(worker string) error {
	d := c.drains[worker]
	if d == nil {
		return &drain.NoRecordError{Worker: worker}
	}
	if d.rec.Status == drain.Running {
		c.cancelStartingMoves(worker, "undrain")
	}
	delete(c.drains, worker)
	c.emit(RemoveDrain{Worker: worker})
	c.event(EvDrainRemoved, worker, nil, "undrained: worker is schedulable again (was %s)", d.rec.Status)
	c.needSchedule = true
	return nil
}

func (c *Core) cordon(worker string, on bool) error {
	w := c.workers[worker]
	if w == nil || !w.live {
		return &drain.UnknownWorkerError{Worker: worker}
	}
	if w.cordoned == on {
		return nil
	}
	w.cordoned = on
	c.emit(SaveCordon{Worker: worker, Cordoned: on})
	if on {
		c.event(EvWorkerCordon, worker, nil, "no new instances will be placed here")
	} else {
		c.event(EvWorkerUncordon, worker, nil, "schedulable again")
		c.needSchedule = true
	}
	return nil
}

// drainStatus answers as Pulsar does, with our progress fields added.
func (c *Core) drainStatus(worker string) drain.Record {
	if worker == "" {
		return drain.Record{Status: drain.NotRun}
	}
	if d := c.drains[worker]; d != nil {
		return d.rec
	}
	return drain.NotFound(worker)
}

func (c *Core) listDrains() []drain.Record {
	out := make([]drain.Record, 0, len(c.drains))
	for _, id := range sortedKeys(c.drains) {
		out = append(out, c.drains[id].rec)
	}
	return out
}
