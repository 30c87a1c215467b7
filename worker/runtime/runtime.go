package runtime

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/fworker/fworker/scheduler"
)

// Instance is one function instance this worker should run.
type Instance struct {
	ID scheduler.InstanceID
	// Gen is the generation from the assignment (Assignment.DesiredOn); it
	// is echoed in every event about this run.
	Gen uint64
	// Version is the function version; a different one means restart.
	Version uint64
	Spec    scheduler.FunctionSpec
	// PackagePath is the local path of the already fetched package: the
	// executable (GO), jar (JAVA) or script (PYTHON).
	PackagePath string
}

// EventKind says what happened to an instance.
type EventKind int

const (
	// Started: the process was exec'd successfully.
	Started EventKind = iota + 1
	// Stopped: the instance was stopped on request and nothing of it runs.
	Stopped
	// Failed: the process could not be started or exited unexpectedly;
	// the runtime retries after a backoff.
	Failed
)

func (k EventKind) String() string {
	switch k {
	case Started:
		return "Started"
	case Stopped:
		return "Stopped"
	case Failed:
		return "Failed"
	}
	return "EventKind(?)"
}

// Event reports a change of one instance, for the worker to forward to the
// leader as InstanceStarted, InstanceStopped or InstanceFailed.
type Event struct {
	Kind EventKind
	ID   scheduler.InstanceID
	Gen  uint64
	Err  string // Failed only
}

// Options wire a Runtime to the world. Zero durations take the defaults.
type Options struct {
	WorkerID string
	// Dir holds logs/ and instances/ (per-instance work dirs). Required.
	Dir string
	Log *slog.Logger // default slog.Default()
	// Events is called on supervisor goroutines with every event. It must
	// not block long and must not call back into the Runtime's Close.
	Events func(Event)
	// BackoffMin and BackoffMax bound the delay before a restart
	// (defaults 1s and 1m); BackoffReset is the uptime after which the
	// delay starts again from BackoffMin (default 1m).
	BackoffMin, BackoffMax, BackoffReset time.Duration
	// StopGrace is how long a stopped process gets between SIGTERM and
	// SIGKILL (default 10s).
	StopGrace time.Duration
	// Env is added to every instance's environment (e.g. the Pulsar
	// service URL), after the worker's own environment.
	Env []string
	// JavaPath and PythonPath name the interpreters (defaults "java" and
	// "python3", looked up in PATH).
	JavaPath, PythonPath string
	Clock                Clock // default RealClock
}

func (o *Options) defaults() {
	if o.Dir == "" {
		panic("runtime: Options.Dir is required")
	}
	if abs, err := filepath.Abs(o.Dir); err == nil {
		o.Dir = abs
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Events == nil {
		o.Events = func(Event) {}
	}
	if o.BackoffMin <= 0 {
		o.BackoffMin = time.Second
	}
	if o.BackoffMax <= 0 {
		o.BackoffMax = time.Minute
	}
	o.BackoffMax = max(o.BackoffMax, o.BackoffMin)
	if o.BackoffReset <= 0 {
		o.BackoffReset = time.Minute
	}
	if o.StopGrace <= 0 {
		o.StopGrace = 10 * time.Second
	}
	if o.JavaPath == "" {
		o.JavaPath = "java"
	}
	if o.PythonPath == "" {
		o.PythonPath = "python3"
	}
	if o.Clock == nil {
		o.Clock = RealClock
	}
}

// Runtime runs and supervises this worker's function instances.
type Runtime struct {
	opts Options

	mu     sync.Mutex
	closed bool
	// desired holds the supervisor of each wanted instance.
	desired map[scheduler.InstanceID]*supervisor
	// latest holds the newest live supervisor of each ID, wanted or
	// stopping; a replacement waits for it to finish.
	latest map[scheduler.InstanceID]*supervisor
	// live holds every supervisor whose goroutine has not finished.
	live map[*supervisor]struct{}
}

// New returns a Runtime that runs nothing yet. It panics if opts.Dir is empty.
func New(opts Options) *Runtime {
	opts.defaults()
	return &Runtime{
		opts:    opts,
		desired: make(map[scheduler.InstanceID]*supervisor),
		latest:  make(map[scheduler.InstanceID]*supervisor),
		live:    make(map[*supervisor]struct{}),
	}
}

// Reconcile makes the set of running instances equal desired, by ID. An
// instance whose Gen or Version differs from the running one is stopped and
// started again with the new values. Reconcile does not wait: starts and
// stops happen on the supervisors' goroutines and are reported as events.
// If desired names an ID twice, the last one wins. After Close it does
// nothing.
func (r *Runtime) Reconcile(desired []Instance) {
	want := make(map[scheduler.InstanceID]Instance, len(desired))
	for _, in := range desired {
		if _, dup := want[in.ID]; dup {
			r.opts.Log.Warn("runtime: instance listed twice in desired set; using the last", "instance", in.ID)
		}
		want[in.ID] = in
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		r.opts.Log.Warn("runtime: Reconcile after Close ignored", "instances", len(desired))
		return
	}
	for id, s := range r.desired {
		if in, ok := want[id]; ok && in.Gen == s.inst.Gen && in.Version == s.inst.Version {
			continue
		}
		s.requestStop()
		delete(r.desired, id)
	}
	for id, in := range want {
		if _, ok := r.desired[id]; ok {
			continue
		}
		var prev <-chan struct{}
		if old := r.latest[id]; old != nil {
			prev = old.done
		}
		s := newSupervisor(r, in, prev)
		r.desired[id] = s
		r.latest[id] = s
		r.live[s] = struct{}{}
		go s.run()
	}
}

// Running lists the instances whose process is alive now, with the
// generation each runs, sorted by ID: what a WorkerReport carries. An
// instance that is being stopped is listed (with its old generation) until
// its process has exited; one waiting in backoff is not.
func (r *Runtime) Running() []scheduler.Run {
	r.mu.Lock()
	sups := make([]*supervisor, 0, len(r.live))
	for s := range r.live {
		sups = append(sups, s)
	}
	r.mu.Unlock()

	runs := make([]scheduler.Run, 0, len(sups))
	for _, s := range sups {
		if st := s.status(); st.Running {
			runs = append(runs, scheduler.Run{Instance: st.ID, Gen: st.Gen})
		}
	}
	slices.SortFunc(runs, func(a, b scheduler.Run) int {
		if c := a.Instance.Compare(b.Instance); c != 0 {
			return c
		}
		switch {
		case a.Gen < b.Gen:
			return -1
		case a.Gen > b.Gen:
			return 1
		}
		return 0
	})
	return runs
}

// Status reports the newest supervisor of id: the wanted one, or, if id is
// no longer wanted, the one still stopping. ok is false once nothing of id
// is left (by the time its Stopped event is sent).
func (r *Runtime) Status(id scheduler.InstanceID) (InstanceStatus, bool) {
	r.mu.Lock()
	s := r.latest[id]
	r.mu.Unlock()
	if s == nil {
		return InstanceStatus{}, false
	}
	st := s.status()
	return st, st.State != StateDone
}

// StatsFile is where instance id writes its counters (FWORKER_STATS_FILE).
func (r *Runtime) StatsFile(id scheduler.InstanceID) (string, error) {
	work, _, err := instancePaths(r.opts.Dir, id)
	return filepath.Join(work, StatsFileName), err
}

// Close stops every instance concurrently (SIGTERM, then SIGKILL after
// StopGrace) and waits until all are stopped; each sends its Stopped event.
// If ctx ends first, Close SIGKILLs every remaining process group and
// returns ctx.Err() without waiting further; the supervisors still finish
// and send their events in the background. Later Reconcile calls do nothing.
func (r *Runtime) Close(ctx context.Context) error {
	r.mu.Lock()
	r.closed = true
	sups := make([]*supervisor, 0, len(r.live))
	for s := range r.live {
		s.requestStop()
		sups = append(sups, s)
	}
	clear(r.desired)
	r.mu.Unlock()

	for _, s := range sups {
		select {
		case <-s.done:
		case <-ctx.Done():
			for _, s := range sups {
				s.requestKill()
			}
			return ctx.Err()
		}
	}
	return nil
}

// forget drops a finished supervisor. Called by its own goroutine.
func (r *Runtime) forget(s *supervisor) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.live, s)
	if r.latest[s.inst.ID] == s {
		delete(r.latest, s.inst.ID)
	}
}
