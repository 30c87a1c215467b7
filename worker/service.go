package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/fworker/fworker/cluster"
	"github.com/fworker/fworker/scheduler"
	"github.com/fworker/fworker/worker/runtime"
)

// Options configure a Service.
type Options struct {
	Self    scheduler.WorkerInfo
	Backend cluster.Backend
	// Dir is this worker's own directory: package cache, instance logs.
	Dir       string
	Scheduler scheduler.Config
	Periods   scheduler.Periods
	// ReportInterval between WorkerReports (default 5s).
	ReportInterval time.Duration
	// Runtime options; WorkerID, Dir and Events are set by the Service.
	Runtime runtime.Options
	// MaxPackageBytes bounds an uploaded package (default 64 MiB).
	MaxPackageBytes int64
	HTTPClient      *http.Client
	Log             *slog.Logger
}

// Service is one worker node.
type Service struct {
	opts   Options
	log    *slog.Logger
	sess   cluster.Session
	rt     *runtime.Runtime
	mirror *mirror
	events *broadcaster

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	kick   chan struct{} // reconcile
	nudge  chan struct{} // report now

	mu            sync.Mutex
	lead          *leadership
	reconciledRev uint64
}

// Start joins the cluster and starts the worker's goroutines.
func Start(ctx context.Context, opts Options) (*Service, error) {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.ReportInterval <= 0 {
		opts.ReportInterval = 5 * time.Second
	}
	if opts.MaxPackageBytes <= 0 {
		opts.MaxPackageBytes = 64 << 20
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	log := opts.Log.With("worker", opts.Self.ID)
	s := &Service{
		opts: opts, log: log, mirror: newMirror(), events: newBroadcaster(),
		kick: make(chan struct{}, 1), nudge: make(chan struct{}, 1),
	}
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	ro := opts.Runtime
	ro.WorkerID = opts.Self.ID
	ro.Dir = filepath.Join(opts.Dir, "runtime")
	ro.Log = log
	ro.Events = s.onRuntimeEvent
	s.rt = runtime.New(ro)
	sess, err := opts.Backend.Join(ctx, opts.Self)
	if err != nil {
		return nil, fmt.Errorf("worker %s: join: %w", opts.Self.ID, err)
	}
	s.sess = sess
	s.spawn(s.followLoop)
	s.spawn(s.reconcileLoop)
	s.spawn(s.reportLoop)
	s.spawn(s.leadLoop)
	return s, nil
}

func (s *Service) spawn(fn func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		fn()
	}()
}

// Close stops leading (and does not take leadership back), stops every
// instance gracefully and leaves the cluster. It returns when all
// goroutines have ended.
func (s *Service) Close(ctx context.Context) error {
	s.cancel() // every loop ends; the lead loop steps down on its way out
	s.wg.Wait()
	s.stepDown()
	err := s.rt.Close(ctx)
	return errors.Join(err, s.sess.Close())
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// followLoop keeps the mirror current.
func (s *Service) followLoop() {
	for s.ctx.Err() == nil {
		err := s.sess.Follow(s.ctx, func(u cluster.Update) {
			s.mirror.apply(u)
			signal(s.kick)
		})
		if s.ctx.Err() != nil || errors.Is(err, cluster.ErrClosed) {
			return
		}
		s.log.Warn("worker: state feed ended; following again", "err", err)
		s.pause(time.Second)
	}
}

// pause waits d or until the service ends.
func (s *Service) pause(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.ctx.Done():
	}
}

// reconcileLoop makes the runtime run what the records say.
func (s *Service) reconcileLoop() {
	retry := time.NewTicker(5 * time.Second) // packages that failed to fetch
	defer retry.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-s.kick:
		case <-retry.C:
		}
		rev, runs := s.mirror.desiredOn(s.opts.Self.ID)
		want := make([]runtime.Instance, 0, len(runs))
		for _, d := range runs {
			path, err := s.fetchPackage(s.ctx, d.fn.Spec.Package)
			if err != nil {
				s.log.Error("worker: cannot fetch package", "instance", d.id.String(), "package", d.fn.Spec.Package, "err", err)
				_ = s.sess.Report(s.ctx, scheduler.InstanceFailed{Worker: s.opts.Self.ID, Instance: d.id, Gen: d.gen, Error: err.Error()})
				continue
			}
			want = append(want, runtime.Instance{ID: d.id, Gen: d.gen, Version: d.fn.Version, Spec: d.fn.Spec, PackagePath: path})
		}
		s.rt.Reconcile(want)
		s.mu.Lock()
		s.reconciledRev = rev
		s.mu.Unlock()
	}
}

func (s *Service) onRuntimeEvent(e runtime.Event) {
	var m scheduler.Message
	switch e.Kind {
	case runtime.Started:
		m = scheduler.InstanceStarted{Worker: s.opts.Self.ID, Instance: e.ID, Gen: e.Gen}
	case runtime.Stopped:
		m = scheduler.InstanceStopped{Worker: s.opts.Self.ID, Instance: e.ID, Gen: e.Gen}
	case runtime.Failed:
		m = scheduler.InstanceFailed{Worker: s.opts.Self.ID, Instance: e.ID, Gen: e.Gen, Error: e.Err}
	default:
		return
	}
	if err := s.sess.Report(s.ctx, m); err != nil {
		s.log.Debug("worker: observation not sent", "err", err)
	}
}

// reportLoop sends what runs here, so the leader repairs lost acks. The
// revision is the one the runtime was last reconciled to, and Running
// includes processes still stopping: a report never claims a stop early.
func (s *Service) reportLoop() {
	t := time.NewTicker(s.opts.ReportInterval)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		case <-s.nudge:
		}
		s.mu.Lock()
		rev := s.reconciledRev
		s.mu.Unlock()
		r := scheduler.WorkerReport{Worker: s.opts.Self.ID, Rev: rev, Running: s.rt.Running()}
		if err := s.sess.Report(s.ctx, r); err != nil {
			s.log.Debug("worker: report not sent", "err", err)
		}
	}
}
