package scheduler

import (
	"context"
	"fmt"
	"github.com/fworker/fworker/drain"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The deterministic simulation: one seeded driver mixes membership churn,
// function CRUD, drains, undrains, cordons, rebalances, worker crashes,
// leader rebuilds from persisted state, and acks that are delayed,
// reordered, duplicated or lost. Invariants (sim_check_test.go) are checked
// after every step; a failure prints the seed and the last steps.
//
// FWORKER_SIM_SEEDS sets the number of seeds (default 10000; 1000 under
// -short), FWORKER_SIM_SEED runs one seed.

type simWorker struct {
	id      string
	info    WorkerInfo
	up      bool
	inbox   []Effect // assignment records not applied yet, in order
	view    map[InstanceID]Assignment
	rev     uint64
	running map[InstanceID]uint64
}

type packet struct {
	at  int
	msg Message
}

type sim struct {
	t        testing.TB
	seed     uint64
	rng      *rand.Rand
	cfg      Config
	now      time.Time
	step     int
	core     *Core
	store    *MemStore
	workers  map[string]*simWorker
	ids      []string
	net      []packet
	trace    []string
	faults   bool
	capacity bool
	status   map[string]string // last drain status written per worker
	current  Message           // the message being applied
	moved    map[string]int    // moves completed off each draining worker
}

func newSim(t testing.TB, seed uint64) *sim {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	s := &sim{
		t: t, seed: seed, rng: rng, now: t0, store: NewMemStore(),
		workers: map[string]*simWorker{}, faults: true, status: map[string]string{}, moved: map[string]int{},
		capacity: rng.IntN(5) == 0,
		cfg: Config{
			Seed:                  int64(seed),
			RescheduleTimeout:     time.Duration(10+rng.IntN(30)) * time.Second,
			MoveTimeout:           time.Duration(5+rng.IntN(20)) * time.Second,
			DrainMaxParallelMoves: 1 + rng.IntN(3),
			MaxConcurrentDrains:   1 + rng.IntN(2),
			DrainRecordRetention:  time.Duration(10+rng.IntN(60)) * time.Second,
		},
	}
	s.core = New(s.cfg)
	n := 2 + rng.IntN(4)
	var members []WorkerInfo
	for range n {
		members = append(members, s.addWorker())
	}
	s.send(SetMembership{Workers: members})
	return s
}

func (s *sim) addWorker() WorkerInfo {
	id := fmt.Sprintf("w%d", len(s.ids))
	s.ids = append(s.ids, id)
	info := WorkerInfo{ID: id, Hostname: "h-" + id, Port: 6750}
	if s.capacity {
		info.Capacity = &Resources{CPU: float64(2 + s.rng.IntN(4)), RAM: 64 << 30, Disk: 1 << 40}
	}
	s.workers[id] = &simWorker{id: id, info: info, up: true, view: map[InstanceID]Assignment{}, running: map[InstanceID]uint64{}}
	return info
}

func (s *sim) logf(format string, args ...any) {
	s.trace = append(s.trace, fmt.Sprintf("%4d %s ", s.step, s.now.Sub(t0))+fmt.Sprintf(format, args...))
	if len(s.trace) > 80 {
		s.trace = s.trace[len(s.trace)-80:]
	}
}

func (s *sim) fail(format string, args ...any) {
	s.t.Helper()
	s.t.Fatalf("seed %d step %d: %s\nwhile applying: %s\nlast steps:\n%s\nreplay: FWORKER_SIM_SEED=%d go test ./scheduler -run TestSimulation -v",
		s.seed, s.step, fmt.Sprintf(format, args...), describe(s.current), strings.Join(s.trace, "\n"), s.seed)
}

// send hands a message to the leader, checks the effects, persists them and
// publishes the records to the workers that are up.
func (s *sim) send(m Message) (any, error) {
	s.current = m
	res, err := s.core.Step(s.now, m)
	effects := s.core.Ready()
	s.checkEffects(m, effects)
	if err := s.store.Apply(context.Background(), effects); err != nil {
		s.fail("store: %v", err)
	}
	for _, e := range effects {
		switch e.(type) {
		case SaveAssignment, RemoveAssignment:
			for _, id := range s.ids {
				if w := s.workers[id]; w.up {
					w.inbox = append(w.inbox, e)
				}
			}
		}
	}
	s.checkState()
	return res, err
}

// post puts a worker's message on the lossy network.
func (s *sim) post(m Message) {
	if s.faults && s.rng.IntN(10) == 0 {
		return // lost
	}
	copies := 1
	if s.faults && s.rng.IntN(10) == 0 {
		copies = 2 // duplicated
	}
	for range copies {
		delay := 0
		if s.faults {
			delay = s.rng.IntN(15)
		}
		s.net = append(s.net, packet{at: s.step + delay, msg: m})
	}
}

// deliver hands due packets to the leader in random order.
func (s *sim) deliver(all bool) {
	var due, rest []packet
	for _, p := range s.net {
		if all || p.at <= s.step {
			due = append(due, p)
		} else {
			rest = append(rest, p)
		}
	}
	s.net = rest
	s.rng.Shuffle(len(due), func(i, j int) { due[i], due[j] = due[j], due[i] })
	for _, p := range due {
		if s.faults {
			s.logf("deliver %s", describe(p.msg))
		}
		s.send(p.msg)
	}
}

func describe(m Message) string {
	switch m := m.(type) {
	case InstanceStarted:
		return fmt.Sprintf("started %s on %s gen %d", m.Instance, m.Worker, m.Gen)
	case InstanceStopped:
		return fmt.Sprintf("stopped %s on %s gen %d", m.Instance, m.Worker, m.Gen)
	case InstanceFailed:
		return fmt.Sprintf("failed %s on %s gen %d", m.Instance, m.Worker, m.Gen)
	case WorkerReport:
		return fmt.Sprintf("report %s rev %d runs %d", m.Worker, m.Rev, len(m.Running))
	}
	return fmt.Sprintf("%T%+v", m, m)
}

// apply makes worker w apply up to n records from its inbox.
func (s *sim) apply(w *simWorker, n int) {
	for ; n > 0 && len(w.inbox) > 0; n-- {
		switch e := w.inbox[0].(type) {
		case SaveAssignment:
			w.view[e.Assignment.Instance] = e.Assignment.Clone()
			w.rev = max(w.rev, e.Assignment.Rev)
		case RemoveAssignment:
			delete(w.view, e.Instance)
			w.rev = max(w.rev, e.Rev)
		}
		w.inbox = w.inbox[1:]
	}
}

// reconcile makes worker w run exactly what its view says, and ack.
func (s *sim) reconcile(w *simWorker) {
	ids := map[InstanceID]struct{}{}
	for id := range w.view {
		ids[id] = struct{}{}
	}
	for id := range w.running {
		ids[id] = struct{}{}
	}
	for _, id := range sortedIDs(ids) {
		a, inView := w.view[id]
		want, desired := a.DesiredOn(w.id)
		have, runs := w.running[id]
		switch {
		case inView && desired && (!runs || have != want):
			if s.faults && s.rng.IntN(20) == 0 {
				delete(w.running, id)
				s.post(InstanceFailed{Worker: w.id, Instance: id, Gen: want, Error: "simulated start failure"})
				continue
			}
			w.running[id] = want
			s.post(InstanceStarted{Worker: w.id, Instance: id, Gen: want})
		case (!inView || !desired) && runs:
			delete(w.running, id)
			s.post(InstanceStopped{Worker: w.id, Instance: id, Gen: have})
		}
	}
}

func (s *sim) report(w *simWorker) {
	r := WorkerReport{Worker: w.id, Rev: w.rev}
	for _, id := range sortedIDs(keysOf(w.running)) {
		r.Running = append(r.Running, Run{Instance: id, Gen: w.running[id]})
	}
	s.post(r)
}

func keysOf(m map[InstanceID]uint64) map[InstanceID]struct{} {
	out := make(map[InstanceID]struct{}, len(m))
	for k := range m {
		out[k] = struct{}{}
	}
	return out
}

func (s *sim) crash(w *simWorker) {
	w.up = false
	w.running = map[InstanceID]uint64{}
	w.view = map[InstanceID]Assignment{}
	w.inbox = nil
	w.rev = 0
	s.send(WorkerLeft{ID: w.id})
}

// restart brings a worker back: it reads the whole assignment table, as a
// worker does from the compacted topic, then joins.
func (s *sim) restart(w *simWorker) {
	w.up = true
	st, _ := s.store.Load(context.Background())
	for _, a := range st.Assignments {
		w.view[a.Instance] = a
	}
	w.rev = st.Rev
	s.send(WorkerJoined{Worker: w.info})
}

// rebuild replaces the leader by a new one restored from the store.
func (s *sim) rebuild() {
	st, _ := s.store.Load(context.Background())
	s.core = Restore(s.cfg, st)
	var members []WorkerInfo
	for _, id := range s.ids {
		if w := s.workers[id]; w.up {
			members = append(members, w.info)
		}
	}
	s.send(SetMembership{Workers: members})
	for _, id := range s.ids {
		if w := s.workers[id]; w.up {
			s.report(w)
		}
	}
}

func (s *sim) pick() *simWorker { return s.workers[s.ids[s.rng.IntN(len(s.ids))]] }

func (s *sim) fnKey() FunctionKey {
	return FunctionKey{"t", "ns", "f" + strconv.Itoa(s.rng.IntN(8))}
}

func (s *sim) spec() FunctionSpec {
	sp := FunctionSpec{FunctionKey: s.fnKey(), Parallelism: 1 + s.rng.IntN(4), Package: "p" + strconv.Itoa(s.rng.IntN(3))}
	if s.capacity {
		sp.Resources = Resources{CPU: 1, RAM: 1 << 30, Disk: 1 << 30}
	}
	return sp
}

// act performs one random step.
func (s *sim) act() {
	s.step++
	r := s.rng.IntN(100)
	w := s.pick()
	switch {
	case r < 25:
		s.deliver(false)
	case r < 45:
		if w.up {
			s.logf("%s applies, reconciles", w.id)
			s.apply(w, 1+s.rng.IntN(4))
			s.reconcile(w)
		}
	case r < 50:
		if w.up {
			s.logf("%s reports", w.id)
			s.report(w)
		}
	case r < 62:
		s.now = s.now.Add(time.Duration(s.rng.IntN(4000)) * time.Millisecond)
		s.logf("tick")
		s.send(Tick{})
	case r < 64:
		s.logf("check failures")
		s.send(CheckFailures{})
	case r < 65:
		s.logf("cleanup drains")
		s.send(CleanupDrains{})
	case r < 70:
		sp := s.spec()
		_, err := s.send(CreateFunction{Spec: sp})
		s.logf("create %s p=%d: %v", sp.FunctionKey, sp.Parallelism, err)
	case r < 74:
		sp := s.spec()
		_, err := s.send(UpdateFunction{Spec: sp})
		s.logf("update %s p=%d: %v", sp.FunctionKey, sp.Parallelism, err)
	case r < 76:
		k := s.fnKey()
		_, err := s.send(DeleteFunction{Key: k})
		s.logf("delete %s: %v", k, err)
	case r < 78:
		k, i, on := s.fnKey(), s.rng.IntN(5)-1, s.rng.IntN(2) == 0
		_, err := s.send(SetInstanceState{Key: k, Index: i, Running: on})
		s.logf("set %s:%d running=%v: %v", k, i, on, err)
	case r < 79:
		k, i := s.fnKey(), s.rng.IntN(5)-1
		_, err := s.send(RestartInstance{Key: k, Index: i})
		s.logf("restart %s:%d: %v", k, i, err)
	case r < 82:
		s.drain(w)
	case r < 84:
		_, err := s.send(Undrain{Worker: w.id})
		s.logf("undrain %s: %v", w.id, err)
	case r < 86:
		_, err := s.send(Cordon{Worker: w.id})
		s.logf("cordon %s: %v", w.id, err)
	case r < 88:
		_, err := s.send(Uncordon{Worker: w.id})
		s.logf("uncordon %s: %v", w.id, err)
	case r < 90:
		_, err := s.send(Rebalance{})
		s.logf("rebalance: %v", err)
	case r < 93:
		if w.up {
			s.logf("crash %s", w.id)
			s.crash(w)
		} else {
			s.logf("restart %s", w.id)
			s.restart(w)
		}
	case r < 94:
		if len(s.ids) < 8 {
			info := s.addWorker()
			s.logf("join %s", info.ID)
			s.send(WorkerJoined{Worker: info})
		}
	case r < 96:
		s.logf("leader rebuild")
		s.rebuild()
	default:
		for _, id := range s.ids {
			if w := s.workers[id]; w.up {
				s.apply(w, len(w.inbox))
			}
		}
		s.logf("all workers catch up on records")
	}
}

func (s *sim) drain(w *simWorker) {
	var o = struct {
		deadline bool
		force    bool
		par      int
	}{s.rng.IntN(3) == 0, s.rng.IntN(3) == 0, s.rng.IntN(4)}
	m := Drain{Worker: w.id}
	if o.deadline {
		m.Options.Deadline = s.now.Add(time.Duration(5+s.rng.IntN(60)) * time.Second)
	}
	m.Options.Force = o.force
	m.Options.MaxParallel = o.par
	_, err := s.send(m)
	s.logf("drain %s %+v: %v", w.id, o, err)
}

// quiesce stops the faults and lets everything settle.
func (s *sim) quiesce() {
	s.faults = false
	s.logf("--- quiesce ---")
	calm := 0
	for round := 0; round < 300 && calm < 3; round++ {
		s.step++
		s.deliver(true)
		for _, id := range s.ids {
			if w := s.workers[id]; w.up {
				s.apply(w, len(w.inbox))
				s.reconcile(w)
				s.report(w)
			}
		}
		s.deliver(true)
		s.now = s.now.Add(5 * time.Second)
		s.send(Tick{})
		s.send(CheckFailures{})
		s.send(CleanupDrains{})
		if s.settled() {
			calm++
		} else {
			calm = 0
		}
	}
	s.checkQuiet()
}

func simSeeds(t *testing.T) (first, n uint64) {
	if v := os.Getenv("FWORKER_SIM_SEED"); v != "" {
		seed, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return seed, 1
	}
	n = 10000
	if testing.Short() {
		n = 1000
	}
	if v := os.Getenv("FWORKER_SIM_SEEDS"); v != "" {
		var err error
		if n, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	return 1, n
}

func TestSimulation(t *testing.T) {
	first, n := simSeeds(t)
	for seed := first; seed < first+n; seed++ {
		s := newSim(t, seed)
		steps := 150 + s.rng.IntN(150)
		for range steps {
			s.act()
		}
		s.quiesce()
	}
	t.Logf("%d seeds passed", n)
}

// settled is a cheap guess that nothing more will happen: no moves, no
// running drain, no instance on a departed worker or unconfirmed.
func (s *sim) settled() bool {
	c := s.core
	if len(c.moving) > 0 || len(s.net) > 0 {
		return false
	}
	for _, d := range c.drains {
		if d.rec.Status == drain.Running {
			return false
		}
	}
	for _, sl := range c.slots {
		if (!sl.running && !sl.a.Stopped) || !s.live(sl.a.Worker) {
			return false
		}
	}
	return true
}
