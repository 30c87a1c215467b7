package worker

import (
	"cmp"
	"context"
	"slices"

	"github.com/fworker/fworker/drain"
	"github.com/fworker/fworker/rest"
	"github.com/fworker/fworker/scheduler"
)

var _ rest.Backend = (*Service)(nil)

func (s *Service) Self() scheduler.WorkerInfo { return s.opts.Self }

// Initialized: joined, a leader is known and the state feed has arrived;
// and if this worker is the one elected, its scheduler has been rebuilt and
// runs (until then every request gets Pulsar's 503 "not done initializing",
// rather than a redirect to itself).
func (s *Service) Initialized() bool {
	l := s.sess.View().Leader.ID
	return s.mirror.isReady() && l != "" && (l != s.opts.Self.ID || s.actor() != nil)
}

func (s *Service) Members() []scheduler.WorkerInfo {
	m := s.sess.View().Members
	out := make([]scheduler.WorkerInfo, len(m))
	for i, w := range m {
		w.Capacity = nil
		out[i] = w
	}
	slices.SortFunc(out, func(a, b scheduler.WorkerInfo) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

func (s *Service) Leader() (scheduler.WorkerInfo, bool) {
	l := s.sess.View().Leader
	l.Capacity = nil
	return l, l.ID != ""
}

// IsLeader: this worker leads and its scheduler is running.
func (s *Service) IsLeader() bool { return s.actor() != nil }

func (s *Service) Assignments() map[string][]string { return s.mirror.byWorker() }

// ask sends a message to this worker's scheduler, if it leads.
func (s *Service) ask(ctx context.Context, m scheduler.Message) (any, error) {
	a := s.actor()
	if a == nil {
		return nil, rest.ErrNotLeader
	}
	v, err := a.Ask(ctx, m)
	if err == scheduler.ErrStopped {
		return nil, rest.ErrNotLeader
	}
	return v, err
}

func (s *Service) Drain(ctx context.Context, worker string, opts drain.Options) error {
	_, err := s.ask(ctx, scheduler.Drain{Worker: worker, Options: opts})
	return err
}

func (s *Service) DrainStatus(ctx context.Context, worker string) (drain.Record, error) {
	v, err := s.ask(ctx, scheduler.GetDrainStatus{Worker: worker})
	if err != nil {
		return drain.Record{}, err
	}
	return v.(drain.Record), nil
}

func (s *Service) Drains(ctx context.Context) ([]drain.Record, error) {
	v, err := s.ask(ctx, scheduler.ListDrains{})
	if err != nil {
		return nil, err
	}
	return v.([]drain.Record), nil
}

func (s *Service) Undrain(ctx context.Context, worker string) error {
	_, err := s.ask(ctx, scheduler.Undrain{Worker: worker})
	return err
}

func (s *Service) Cordon(ctx context.Context, worker string, on bool) error {
	var m scheduler.Message = scheduler.Uncordon{Worker: worker}
	if on {
		m = scheduler.Cordon{Worker: worker}
	}
	_, err := s.ask(ctx, m)
	return err
}

func (s *Service) Rebalance(ctx context.Context) error {
	_, err := s.ask(ctx, scheduler.Rebalance{})
	return err
}

// Events streams this leader's scheduling events until ctx ends.
func (s *Service) Events(ctx context.Context) (<-chan scheduler.Event, error) {
	if s.actor() == nil {
		return nil, rest.ErrNotLeader
	}
	in := s.events.subscribe()
	out := make(chan scheduler.Event)
	go func() {
		defer close(out)
		defer s.events.unsubscribe(in)
		for {
			select {
			case <-ctx.Done():
				return
			case e := <-in:
				select {
				case out <- e:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}
