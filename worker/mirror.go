package worker

import (
	"cmp"
	"slices"
	"sync"

	"github.com/fworker/fworker/cluster"
	"github.com/fworker/fworker/drain"
	"github.com/fworker/fworker/scheduler"
)

// mirror is this worker's read model of the persisted scheduling state.
// Only the follow goroutine writes it.
type mirror struct {
	mu          sync.RWMutex
	ready       bool
	rev         uint64
	functions   map[scheduler.FunctionKey]scheduler.Function
	assignments map[scheduler.InstanceID]scheduler.Assignment
	drains      map[string]drain.Record
}

func newMirror() *mirror {
	return &mirror{
		functions:   map[scheduler.FunctionKey]scheduler.Function{},
		assignments: map[scheduler.InstanceID]scheduler.Assignment{},
		drains:      map[string]drain.Record{},
	}
}

func (m *mirror) apply(u cluster.Update) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if st := u.Reset; st != nil {
		m.functions = map[scheduler.FunctionKey]scheduler.Function{}
		m.assignments = map[scheduler.InstanceID]scheduler.Assignment{}
		m.drains = map[string]drain.Record{}
		for _, f := range st.Functions {
			m.functions[f.Spec.FunctionKey] = f
		}
		for _, a := range st.Assignments {
			m.assignments[a.Instance] = a
		}
		for _, r := range st.Drains {
			m.drains[r.Worker] = r
		}
		m.rev = st.Rev
		m.ready = true
	}
	for _, e := range u.Effects {
		switch e := e.(type) {
		case scheduler.SaveAssignment:
			m.assignments[e.Assignment.Instance] = e.Assignment
			m.rev = max(m.rev, e.Assignment.Rev)
		case scheduler.RemoveAssignment:
			delete(m.assignments, e.Instance)
			m.rev = max(m.rev, e.Rev)
		case scheduler.SaveFunction:
			m.functions[e.Function.Spec.FunctionKey] = e.Function
		case scheduler.RemoveFunction:
			delete(m.functions, e.Key)
		case scheduler.SaveDrain:
			m.drains[e.Record.Worker] = e.Record
		case scheduler.RemoveDrain:
			delete(m.drains, e.Worker)
		}
	}
}

func (m *mirror) isReady() bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.ready
}

func (m *mirror) function(k scheduler.FunctionKey) (scheduler.Function, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	f, ok := m.functions[k]
	return f, ok
}

func (m *mirror) assignment(id scheduler.InstanceID) (scheduler.Assignment, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	a, ok := m.assignments[id]
	return a, ok
}

// byWorker is Pulsar's assignments view: owner -> sorted instance ids.
func (m *mirror) byWorker() map[string][]string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := map[string][]string{}
	for id, a := range m.assignments {
		out[a.Worker] = append(out[a.Worker], id.String())
	}
	for _, ids := range out {
		slices.Sort(ids)
	}
	return out
}

// names lists the function names of one namespace.
func (m *mirror) names(tenant, namespace string) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := []string{}
	for k := range m.functions {
		if k.Tenant == tenant && k.Namespace == namespace {
			out = append(out, k.Name)
		}
	}
	slices.Sort(out)
	return out
}

// desiredOn lists what worker w should run, with the function of each, at
// the mirror's revision.
func (m *mirror) desiredOn(w string) (rev uint64, runs []desired) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for _, a := range m.assignments {
		gen, ok := a.DesiredOn(w)
		if !ok {
			continue
		}
		f, ok := m.functions[a.Instance.Function]
		if !ok {
			continue
		}
		runs = append(runs, desired{id: a.Instance, gen: gen, fn: f})
	}
	slices.SortFunc(runs, func(a, b desired) int { return a.id.Compare(b.id) })
	return m.rev, runs
}

type desired struct {
	id  scheduler.InstanceID
	gen uint64
	fn  scheduler.Function
}

// counts gives the totals the metrics need.
func (m *mirror) counts() (functions, expected, assigned int) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for _, f := range m.functions {
		expected += f.Spec.Parallelism
	}
	return len(m.functions), expected, len(m.assignments)
}

func (m *mirror) drainRecords() []drain.Record {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]drain.Record, 0, len(m.drains))
	for _, r := range m.drains {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b drain.Record) int { return cmp.Compare(a.Worker, b.Worker) })
	return out
}
