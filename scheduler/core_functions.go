package scheduler

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
)

// ErrNoChange is Pulsar's answer to an update that changes nothing (400).
var ErrNoChange = errors.New("Update contains no change")

func (c *Core) createFunction(spec FunctionSpec) (Function, error) {
	if err := spec.Normalize(); err != nil {
		return Function{}, err
	}
	if c.functions[spec.FunctionKey] != nil {
		return Function{}, &FunctionExistsError{Key: spec.FunctionKey}
	}
	spec.Details = bytes.Clone(spec.Details)
	f := &Function{Spec: spec, Version: 1, CreateTime: c.now}
	c.functions[spec.FunctionKey] = f
	c.emit(SaveFunction{Function: f.clone()})
	for i := range spec.Parallelism {
		c.unassigned[InstanceID{Function: spec.FunctionKey, Index: i}] = struct{}{}
	}
	c.needSchedule = true
	return *f, nil
}

func sameSpec(a, b FunctionSpec) bool {
	return a.FunctionKey == b.FunctionKey && a.Parallelism == b.Parallelism && a.Resources == b.Resources &&
		a.Runtime == b.Runtime && a.Package == b.Package && bytes.Equal(a.Details, b.Details)
}

// updateFunction stores a new version. As in Pulsar, every existing instance
// is re-sent on the worker it is on (a new generation restarts it there),
// extra instances are removed and missing ones scheduled.
func (c *Core) updateFunction(spec FunctionSpec) (Function, error) {
	if err := spec.Normalize(); err != nil {
		return Function{}, err
	}
	f := c.functions[spec.FunctionKey]
	if f == nil {
		return Function{}, &FunctionNotFoundError{Key: spec.FunctionKey}
	}
	if sameSpec(f.Spec, spec) {
		return Function{}, ErrNoChange
	}
	old := f.Spec
	f.Stopped = slices.DeleteFunc(f.Stopped, func(i int) bool { return i >= spec.Parallelism })
	// Resources are accounted per function: take the old demand off
	// before the spec changes, put the new one on after.
	c.forInstances(old, func(id InstanceID, s *slot) { c.account(s, -1) })
	spec.Details = bytes.Clone(spec.Details)
	f.Spec = spec
	f.Version++
	c.emit(SaveFunction{Function: f.clone()})
	c.forInstances(old, func(id InstanceID, s *slot) { c.account(s, +1) })
	for i := range max(old.Parallelism, spec.Parallelism) {
		id := InstanceID{Function: spec.FunctionKey, Index: i}
		s := c.slots[id]
		switch {
		case i >= spec.Parallelism:
			if s != nil {
				c.drop(s)
			}
			delete(c.unassigned, id)
		case s == nil:
			c.unassigned[id] = struct{}{}
		default:
			s.a.Version = f.Version
			s.a.Gen = c.nextGen()
			s.running = false
			if m := s.a.Move; m != nil {
				m.Gen = c.nextGen()
			}
			c.save(s)
		}
	}
	c.needSchedule = true
	return *f, nil
}

func (c *Core) deleteFunction(k FunctionKey) error {
	if err := k.Validate(); err != nil {
		return err
	}
	f := c.functions[k]
	if f == nil {
		return &FunctionNotFoundError{Key: k}
	}
	for i := range f.Spec.Parallelism {
		id := InstanceID{Function: k, Index: i}
		if s := c.slots[id]; s != nil {
			c.drop(s)
		}
		delete(c.unassigned, id)
	}
	delete(c.functions, k)
	c.emit(RemoveFunction{Key: k})
	return nil
}

// forInstances visits the assigned instances of a function spec.
func (c *Core) forInstances(spec FunctionSpec, fn func(InstanceID, *slot)) {
	for i := range spec.Parallelism {
		id := InstanceID{Function: spec.FunctionKey, Index: i}
		if s := c.slots[id]; s != nil {
			fn(id, s)
		}
	}
}

// account adds (sign=+1) or removes (-1) the slot's resources on its owner
// and move target.
func (c *Core) account(s *slot, sign int64) {
	d := c.demandOf(s.a.Instance)
	d = demand{d.cpu * sign, d.ram * sign, d.disk * sign}
	if w := c.workers[s.a.Worker]; w != nil {
		w.used = w.used.add(d)
	}
	if m := s.a.Move; m != nil {
		if w := c.workers[m.Target]; w != nil {
			w.used = w.used.add(d)
		}
	}
}

// drop removes an assignment: the instance stops wherever it runs.
func (c *Core) drop(s *slot) {
	if s.a.Move != nil {
		c.endMove(s)
	}
	id := s.a.Instance
	c.disown(s)
	delete(c.slots, id)
	c.rev++
	c.emit(RemoveAssignment{Instance: id, Rev: c.rev})
}

// schedule places every unassigned instance, least loaded first, in
// instance order. What does not fit stays unassigned.
func (c *Core) schedule() {
	if len(c.unassigned) == 0 {
		return
	}
	ws, cands := c.candidates(true)
	if len(ws) == 0 {
		return
	}
	ids := sortedIDs(c.unassigned)
	demands := make([]demand, len(ids))
	limited := false
	for i, id := range ids {
		demands[i] = c.demandOf(id)
	}
	for _, cd := range cands {
		limited = limited || cd.Limited
	}
	var where []int32
	if limited {
		where = PlaceFit(cands, demands, nil)
	} else {
		where = PlaceLeastLoaded(cands, len(ids), make([]int32, 0, len(ids)))
	}
	placed := 0
	for i, id := range ids {
		if where[i] < 0 {
			continue
		}
		f := c.functions[id.Function]
		s := &slot{a: Assignment{Instance: id, Version: f.Version, Gen: c.nextGen(), Stopped: f.IsStopped(id.Index)}}
		c.slots[id] = s
		c.own(s, ws[where[i]])
		delete(c.unassigned, id)
		c.save(s)
		placed++
	}
	if placed > 0 {
		c.event(EvScheduled, "", nil, "placed %d instance(s); %d left unassigned", placed, len(c.unassigned))
	}
}

// instanceRange resolves Pulsar's "one instance or all" (-1) to indexes.
func (c *Core) instanceRange(k FunctionKey, index int) (*Function, []int, error) {
	if err := k.Validate(); err != nil {
		return nil, nil, err
	}
	f := c.functions[k]
	if f == nil {
		return nil, nil, &FunctionNotFoundError{Key: k}
	}
	if index == -1 {
		all := make([]int, f.Spec.Parallelism)
		for i := range all {
			all[i] = i
		}
		return f, all, nil
	}
	if index < 0 || index >= f.Spec.Parallelism {
		return nil, nil, &InvalidError{Field: "instanceId", Detail: fmt.Sprintf("%d is not between 0 and %d", index, f.Spec.Parallelism-1)}
	}
	return f, []int{index}, nil
}

// setInstanceState stops or starts instances where they are assigned. A
// move in flight is abandoned: a stopped instance needs no make-before-break.
func (c *Core) setInstanceState(k FunctionKey, index int, running bool) error {
	f, idxs, err := c.instanceRange(k, index)
	if err != nil {
		return err
	}
	for _, i := range idxs {
		if running {
			f.Stopped = slices.DeleteFunc(f.Stopped, func(x int) bool { return x == i })
		} else if !f.IsStopped(i) {
			f.Stopped = append(f.Stopped, i)
		}
		s := c.slots[InstanceID{Function: k, Index: i}]
		if s == nil || s.a.Stopped == !running {
			continue
		}
		if s.a.Move != nil {
			c.endMove(s)
		}
		s.a.Stopped = !running
		s.a.Gen = c.nextGen()
		s.running = false
		c.save(s)
	}
	slices.Sort(f.Stopped)
	c.emit(SaveFunction{Function: f.clone()})
	return nil
}

// restartInstance gives instances a new generation where they run, which
// makes their worker restart them. Moving instances restart on the target.
func (c *Core) restartInstance(k FunctionKey, index int) error {
	_, idxs, err := c.instanceRange(k, index)
	if err != nil {
		return err
	}
	for _, i := range idxs {
		s := c.slots[InstanceID{Function: k, Index: i}]
		if s == nil || s.a.Stopped {
			continue
		}
		m := s.a.Move
		if m != nil {
			m.Gen = c.nextGen()
		}
		if m == nil || m.Phase == Starting {
			s.a.Gen = c.nextGen()
			s.running = false
		}
		c.save(s)
	}
	return nil
}

func (f *Function) clone() Function {
	g := *f
	g.Spec.Details = slices.Clone(f.Spec.Details)
	g.Stopped = slices.Clone(f.Stopped)
	return g
}
