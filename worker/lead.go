package worker

import (
	"context"
	"errors"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/fworker/fworker/cluster"
	"github.com/fworker/fworker/scheduler"
)

// leadership is what a leader runs: the actor, its cron jobs and the
// forwarder of worker observations.
type leadership struct {
	actor  *scheduler.Actor
	cron   *cron.Cron
	cancel context.CancelFunc
	done   chan struct{}
	told   <-chan struct{} // Changed of the last view the actor was told
}

// leadLoop follows membership: it starts leading when this worker becomes
// the leader, stops when it does not, and tells the actor every membership
// change. A periodic re-check retries a failed start.
func (s *Service) leadLoop() {
	recheck := time.NewTicker(2 * time.Second)
	defer recheck.Stop()
	var lastLeader string
	for {
		v := s.sess.View()
		if v.Leader.ID != lastLeader {
			lastLeader = v.Leader.ID
			signal(s.nudge) // a new leader wants to hear from us
		}
		s.onView(v)
		select {
		case <-s.ctx.Done():
			s.stepDown()
			return
		case <-v.Changed:
		case <-recheck.C:
		}
	}
}

func (s *Service) onView(v cluster.View) {
	self := s.opts.Self.ID
	s.mu.Lock()
	l := s.lead
	s.mu.Unlock()
	if l != nil {
		select {
		case <-l.done: // the actor stopped (store failure): start afresh
			s.stepDown()
			l = nil
		default:
		}
	}
	switch {
	case v.Leader.ID != self && l != nil:
		s.log.Info("worker: lost leadership", "leader", v.Leader.ID)
		s.stepDown()
	case v.Leader.ID == self && l == nil:
		if err := s.becomeLeader(v); err != nil {
			s.log.Error("worker: cannot start leading; will retry", "err", err)
		}
	case v.Leader.ID == self && l.told != v.Changed: // a view not told yet
		if l.actor.TryTell(scheduler.SetMembership{Workers: v.Members}) {
			l.told = v.Changed
		} else {
			s.log.Warn("worker: actor inbox full; membership change deferred to the next check")
		}
	}
}

// becomeLeader rebuilds the scheduler from the persisted state before it
// answers anything, so a drain survives a change of leader.
func (s *Service) becomeLeader(v cluster.View) error {
	st, err := s.sess.Store().Load(s.ctx)
	if err != nil {
		return err
	}
	core := scheduler.Restore(s.opts.Scheduler, st)
	actor := scheduler.NewActor(core, scheduler.ActorOptions{
		Store: s.sess.Store(), Log: s.log, Published: s.published,
	})
	ctx, cancel := context.WithCancel(s.ctx)
	l := &leadership{actor: actor, cancel: cancel, done: make(chan struct{}), told: v.Changed}
	go func() {
		defer close(l.done)
		if err := actor.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			s.log.Error("worker: scheduler actor ended", "err", err)
		}
	}()
	if err := actor.Tell(ctx, scheduler.SetMembership{Workers: v.Members}); err != nil {
		cancel()
		return err
	}
	l.cron = scheduler.StartPeriodic(actor, s.opts.Periods, s.log)
	go s.forwardReports(ctx, actor)
	s.mu.Lock()
	s.lead = l
	s.mu.Unlock()
	s.log.Info("worker: leading", "functions", len(st.Functions), "assignments", len(st.Assignments), "drains", len(st.Drains))
	return nil
}

func (s *Service) forwardReports(ctx context.Context, a *scheduler.Actor) {
	for {
		select {
		case <-ctx.Done():
			return
		case m := <-s.sess.Reports():
			if err := a.Tell(ctx, m); err != nil {
				return
			}
		}
	}
}

func (s *Service) stepDown() {
	s.mu.Lock()
	l := s.lead
	s.lead = nil
	s.mu.Unlock()
	if l == nil {
		return
	}
	<-l.cron.Stop().Done()
	l.actor.Stop()
	l.cancel()
	<-l.done
}

// published runs on the actor goroutine after a batch was persisted.
func (s *Service) published(effects []scheduler.Effect) {
	for _, e := range effects {
		if ev, ok := e.(scheduler.Event); ok {
			s.events.publish(ev)
		}
	}
}

// leader returns the running actor, or nil.
func (s *Service) actor() *scheduler.Actor {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lead == nil {
		return nil
	}
	return s.lead.actor
}
