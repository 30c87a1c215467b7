package scheduler

import (
	"context"
	"slices"
	"sync"

	"github.com/fworker/fworker/drain"
)

// State is everything the scheduler persists. A new leader rebuilds its
// core from it (Restore) and continues where the old one stopped, drains
// included.
type State struct {
	Functions   []Function
	Assignments []Assignment
	Drains      []drain.Record
	Cordoned    []string
	// Gen and Rev are the highest generation and revision ever written,
	// tombstones included, so that a new leader never reissues one.
	Gen, Rev uint64
}

// Store is the persistence the actor needs. Implementations: MemStore here,
// a bbolt file for the standalone, compacted topics on Pulsar for clusters.
// Apply must make the effects durable, in order, before it returns; it may
// ignore Events.
type Store interface {
	Load(ctx context.Context) (State, error)
	Apply(ctx context.Context, effects []Effect) error
}

// Restore builds a core from persisted state. It is not ready until the
// first SetMembership: no drain is started and no failure is declared
// before the new leader knows who is there.
func Restore(cfg Config, st State) *Core {
	c := New(cfg)
	c.gen, c.rev = st.Gen, st.Rev
	for _, f := range st.Functions {
		f.Spec.Details = slices.Clone(f.Spec.Details)
		fn := f
		c.functions[f.Spec.FunctionKey] = &fn
	}
	for _, id := range st.Cordoned {
		c.worker(id).cordoned = true
	}
	for _, a := range st.Assignments {
		a = a.Clone()
		c.gen = max(c.gen, a.Gen)
		c.rev = max(c.rev, a.Rev)
		if a.Move != nil {
			c.gen = max(c.gen, a.Move.Gen)
		}
		f := c.functions[a.Instance.Function]
		if f == nil || a.Instance.Index >= f.Spec.Parallelism || a.Worker == "" {
			c.rev++
			c.emit(RemoveAssignment{Instance: a.Instance, Rev: c.rev})
			continue
		}
		s := &slot{a: a}
		owner := a.Worker
		s.a.Worker = ""
		s.a.Move = nil
		c.slots[a.Instance] = s
		c.own(s, c.worker(owner))
		if a.Move != nil {
			s.a.Move = a.Move
			c.linkMove(s)
		}
	}
	for _, f := range c.functions {
		for i := range f.Spec.Parallelism {
			id := InstanceID{Function: f.Spec.FunctionKey, Index: i}
			if c.slots[id] == nil {
				c.unassigned[id] = struct{}{}
			}
		}
	}
	for _, r := range st.Drains {
		c.worker(r.Worker)
		c.drains[r.Worker] = &drainState{rec: r}
	}
	return c
}

// MemStore is an in-memory Store. It is the reference implementation the
// durable stores are tested against, and what the simulation rebuilds from.
type MemStore struct {
	mu          sync.Mutex
	functions   map[FunctionKey]Function
	assignments map[InstanceID]Assignment
	drains      map[string]drain.Record
	cordoned    map[string]bool
	gen, rev    uint64
}

// NewMemStore returns an empty store.
func NewMemStore() *MemStore {
	return &MemStore{
		functions:   map[FunctionKey]Function{},
		assignments: map[InstanceID]Assignment{},
		drains:      map[string]drain.Record{},
		cordoned:    map[string]bool{},
	}
}

// Load returns a copy of the stored state.
func (m *MemStore) Load(context.Context) (State, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := State{Gen: m.gen, Rev: m.rev}
	for _, f := range m.functions {
		f.Spec.Details = slices.Clone(f.Spec.Details)
		st.Functions = append(st.Functions, f)
	}
	for _, a := range m.assignments {
		st.Assignments = append(st.Assignments, a.Clone())
	}
	for _, r := range m.drains {
		st.Drains = append(st.Drains, r)
	}
	for id, on := range m.cordoned {
		if on {
			st.Cordoned = append(st.Cordoned, id)
		}
	}
	return st, nil
}

// Apply stores the effects.
func (m *MemStore) Apply(_ context.Context, effects []Effect) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range effects {
		switch e := e.(type) {
		case SaveAssignment:
			m.gen, m.rev = HighWater(m.gen, m.rev, e)
			m.assignments[e.Assignment.Instance] = e.Assignment.Clone()
		case RemoveAssignment:
			m.gen, m.rev = HighWater(m.gen, m.rev, e)
			delete(m.assignments, e.Instance)
		case SaveFunction:
			f := e.Function
			f.Spec.Details = slices.Clone(f.Spec.Details)
			m.functions[f.Spec.FunctionKey] = f
		case RemoveFunction:
			delete(m.functions, e.Key)
		case SaveDrain:
			m.drains[e.Record.Worker] = e.Record
		case RemoveDrain:
			delete(m.drains, e.Worker)
		case SaveCordon:
			m.cordoned[e.Worker] = e.Cordoned
		}
	}
	return nil
}

// HighWater folds an effect into the highest generation and revision seen,
// for stores that keep State.Gen and State.Rev.
func HighWater(gen, rev uint64, e Effect) (uint64, uint64) {
	switch e := e.(type) {
	case SaveAssignment:
		gen = max(gen, e.Assignment.Gen)
		if e.Assignment.Move != nil {
			gen = max(gen, e.Assignment.Move.Gen)
		}
		rev = max(rev, e.Assignment.Rev)
	case RemoveAssignment:
		rev = max(rev, e.Rev)
	}
	return gen, rev
}
