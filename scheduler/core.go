package scheduler

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/fworker/fworker/drain"
)

// Config holds the core's tunables. Zero values take the defaults below.
type Config struct {
	// Seed makes placement tie-breaks reproducible.
	Seed int64
	// RescheduleTimeout: how long the instances of a departed worker wait
	// before they are placed elsewhere (Pulsar's rescheduleTimeoutMs).
	RescheduleTimeout time.Duration
	// MoveTimeout: how long a move target may take to confirm before the
	// move is retried on another worker.
	MoveTimeout time.Duration
	// DrainMaxParallelMoves: default cap of moves in flight per drain.
	DrainMaxParallelMoves int
	// MaxConcurrentDrains: how many drains may run at once.
	MaxConcurrentDrains int
	// DrainRecordRetention: how long the record of a departed worker is
	// kept so that pollers still read its final status.
	DrainRecordRetention time.Duration
}

// Defaults.
const (
	DefaultRescheduleTimeout     = 60 * time.Second
	DefaultMoveTimeout           = 60 * time.Second
	DefaultDrainMaxParallelMoves = 4
	DefaultMaxConcurrentDrains   = 1
	DefaultDrainRecordRetention  = 5 * time.Minute
)

func (c Config) withDefaults() Config {
	if c.RescheduleTimeout <= 0 {
		c.RescheduleTimeout = DefaultRescheduleTimeout
	}
	if c.MoveTimeout <= 0 {
		c.MoveTimeout = DefaultMoveTimeout
	}
	if c.DrainMaxParallelMoves <= 0 {
		c.DrainMaxParallelMoves = DefaultDrainMaxParallelMoves
	}
	if c.MaxConcurrentDrains <= 0 {
		c.MaxConcurrentDrains = DefaultMaxConcurrentDrains
	}
	if c.DrainRecordRetention <= 0 {
		c.DrainRecordRetention = DefaultDrainRecordRetention
	}
	return c
}

type workerState struct {
	info       WorkerInfo
	rank       uint64
	live       bool
	departedAt time.Time // zero while live, or not yet known after a rebuild
	cordoned   bool
	owned      map[InstanceID]struct{}
	incoming   int    // moves targeting this worker
	outgoing   int    // moves leaving this worker
	used       demand // resources of owned and incoming instances
}

func (w *workerState) load() int { return len(w.owned) + w.incoming }

type slot struct {
	a       Assignment
	running bool // the owner confirmed generation a.Gen
}

type drainState struct {
	rec   drain.Record
	queue []InstanceID // instances still to move, in order
}

// Core is the scheduling state machine. See the package doc for ownership.
type Core struct {
	cfg     Config
	now     time.Time
	ready   bool // a membership view has arrived
	gen     uint64
	rev     uint64
	workers map[string]*workerState

	functions  map[FunctionKey]*Function
	slots      map[InstanceID]*slot
	moving     map[InstanceID]struct{}
	unassigned map[InstanceID]struct{}
	drains     map[string]*drainState

	rebalancing  int // rebalance moves in flight
	needSchedule bool
	out          []Effect
}

// New returns an empty core.
func New(cfg Config) *Core {
	return &Core{
		cfg:        cfg.withDefaults(),
		workers:    map[string]*workerState{},
		functions:  map[FunctionKey]*Function{},
		slots:      map[InstanceID]*slot{},
		moving:     map[InstanceID]struct{}{},
		unassigned: map[InstanceID]struct{}{},
		drains:     map[string]*drainState{},
	}
}

// Ready returns and clears the effects produced since the last call.
func (c *Core) Ready() []Effect {
	out := c.out
	c.out = nil
	return out
}

// Now is the latest time the core has been told.
func (c *Core) Now() time.Time { return c.now }

// Step applies one message at time now and returns its reply.
func (c *Core) Step(now time.Time, m Message) (any, error) {
	if now.After(c.now) {
		c.now = now
	}
	res, err := c.apply(m)
	c.settle()
	return res, err
}

func (c *Core) apply(m Message) (any, error) {
	switch m := m.(type) {
	case SetMembership:
		c.setMembership(m.Workers)
	case WorkerJoined:
		c.join(m.Worker)
	case WorkerLeft:
		c.leave(m.ID)
	case CreateFunction:
		return c.createFunction(m.Spec)
	case UpdateFunction:
		return c.updateFunction(m.Spec)
	case DeleteFunction:
		return nil, c.deleteFunction(m.Key)
	case SetInstanceState:
		return nil, c.setInstanceState(m.Key, m.Index, m.Running)
	case RestartInstance:
		return nil, c.restartInstance(m.Key, m.Index)
	case InstanceStarted:
		c.started(m.Worker, m.Instance, m.Gen)
	case InstanceStopped:
		c.stopped(m.Worker, m.Instance, m.Gen)
	case InstanceFailed:
		c.failed(m.Worker, m.Instance, m.Gen, m.Error)
	case WorkerReport:
		c.report(m)
	case Drain:
		return c.drain(m.Worker, m.Options)
	case Undrain:
		return nil, c.undrain(m.Worker)
	case Cordon:
		return nil, c.cordon(m.Worker, true)
	case Uncordon:
		return nil, c.cordon(m.Worker, false)
	case Rebalance:
		return nil, c.rebalance(m.Periodic)
	case Tick:
		c.expireMoves()
		c.needSchedule = true
	case CheckFailures:
		c.checkFailures()
	case CleanupDrains:
		c.cleanup()
	case GetDrainStatus:
		return c.drainStatus(m.Worker), nil
	case ListDrains:
		return c.listDrains(), nil
	case GetSnapshot:
		return c.snapshot(), nil
	default:
		return nil, &InvalidError{Field: "message", Detail: fmt.Sprintf("unknown message %T", m)}
	}
	return nil, nil
}

// settle runs after every message: place what is unassigned, then let the
// drains make progress.
func (c *Core) settle() {
	if !c.ready {
		return
	}
	if c.needSchedule {
		c.needSchedule = false
		c.schedule()
	}
	c.advanceDrains()
}

func (c *Core) emit(e Effect) { c.out = append(c.out, e) }

func (c *Core) event(typ, worker string, inst *InstanceID, format string, args ...any) {
	e := Event{Time: c.now, Type: typ, Worker: worker, Detail: fmt.Sprintf(format, args...)}
	if inst != nil {
		e.Instance = inst.String()
	}
	c.emit(e)
}

func (c *Core) nextGen() uint64 { c.gen++; return c.gen }

// save writes a slot's assignment with a new revision.
func (c *Core) save(s *slot) {
	c.rev++
	s.a.Rev = c.rev
	c.emit(SaveAssignment{Assignment: s.a.Clone()})
}

func (c *Core) demandOf(id InstanceID) demand {
	if f := c.functions[id.Function]; f != nil {
		return demandOf(f.Spec.Resources)
	}
	return demand{}
}

func (c *Core) worker(id string) *workerState {
	w := c.workers[id]
	if w == nil {
		w = &workerState{info: WorkerInfo{ID: id}, rank: rankOf(c.cfg.Seed, id), owned: map[InstanceID]struct{}{}}
		c.workers[id] = w
	}
	return w
}

// schedulable: live, not cordoned, no drain record.
func (c *Core) schedulable(w *workerState) bool {
	return w.live && !w.cordoned && c.drains[w.info.ID] == nil
}

// candidates lists schedulable workers with their loads. Placement is
// decided by (load, seeded rank) alone, so the order does not matter for
// the outcome; sorted asks for id order anyway (stable output for batches).
func (c *Core) candidates(sorted bool) ([]*workerState, []Candidate) {
	var ws []*workerState
	for _, w := range c.workers {
		if c.schedulable(w) {
			ws = append(ws, w)
		}
	}
	if sorted {
		c.sortWorkers(ws)
	}
	cs := make([]Candidate, len(ws))
	for i, w := range ws {
		cs[i] = Candidate{Load: w.load(), Rank: w.rank}
		if capa := w.info.Capacity; capa != nil {
			cs[i].Limited = true
			cs[i].Free = demandOf(*capa).sub(w.used)
		}
	}
	return ws, cs
}

func (c *Core) sortWorkers(ws []*workerState) {
	slices.SortFunc(ws, func(a, b *workerState) int { return cmp.Compare(a.info.ID, b.info.ID) })
}

// own makes w the owner of s (s.a.Worker must be empty).
func (c *Core) own(s *slot, w *workerState) {
	s.a.Worker = w.info.ID
	w.owned[s.a.Instance] = struct{}{}
	w.used = w.used.add(c.demandOf(s.a.Instance))
}

// disown removes the owner of s.
func (c *Core) disown(s *slot) {
	if w := c.workers[s.a.Worker]; w != nil {
		delete(w.owned, s.a.Instance)
		w.used = w.used.sub(c.demandOf(s.a.Instance))
	}
	s.a.Worker = ""
	c.needSchedule = len(c.unassigned) > 0 || c.needSchedule // room freed
}

// sortedIDs returns the keys of a set in order.
func sortedIDs(set map[InstanceID]struct{}) []InstanceID {
	ids := make([]InstanceID, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, InstanceID.Compare)
	return ids
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
