package worker

import (
	"cmp"
	"context"
	"errors"
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

// ask sends a message to this worker's scheduler, if it leads, and types
// the reply (scheduler.Query); a stopped scheduler means not the leader.
func ask[T any](ctx context.Context, s *Service, m scheduler.Message) (T, error) {
	var zero T
	a := s.actor()
	if a == nil {
		return zero, rest.ErrNotLeader
	}
	v, err := scheduler.Query[T](ctx, a, m)
	if errors.Is(err, scheduler.ErrStopped) {
		return zero, rest.ErrNotLeader
	}
	return v, err
}

// do is ask for messages whose reply carries nothing; it waits for it.
func (s *Service) do(ctx context.Context, m scheduler.Message) error {
	a := s.actor()
	if a == nil {
		return rest.ErrNotLeader
	}
	_, err := a.Ask(ctx, m)
	if errors.Is(err, scheduler.ErrStopped) {
		return rest.ErrNotLeader
	}
	return err
}

func (s *Service) Drain(ctx context.Context, worker string, opts drain.Options) error {
	_, err := ask[drain.Record](ctx, s, scheduler.Drain{Worker: worker, Options: opts})
	return err
}

func (s *Service) DrainStatus(ctx context.Context, worker string) (drain.Record, error) {
	return ask[drain.Record](ctx, s, scheduler.GetDrainStatus{Worker: worker})
}

func (s *Service) Drains(ctx context.Context) ([]drain.Record, error) {
	return ask[[]drain.Record](ctx, s, scheduler.ListDrains{})
}

func (s *Service) Undrain(ctx context.Context, worker string) error {
	return s.do(ctx, scheduler.Undrain{Worker: worker})
}

func (s *Service) Cordon(ctx context.Context, worker string, on bool) error {
	var m scheduler.Message = scheduler.Uncordon{Worker: worker}
	if on {
		m = scheduler.Cordon{Worker: worker}
	}
	return s.do(ctx, m)
}

func (s *Service) Rebalance(ctx context.Context) error {
	return s.do(ctx, scheduler.Rebalance{})
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
