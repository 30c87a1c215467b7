package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/robfig/cron/v3"
)

// Clock is the actor's source of time; tests inject a fake one.
type Clock interface{ Now() time.Time }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// RealClock reads the system clock.
var RealClock Clock = realClock{}

// ActorOptions wires the actor to the world.
type ActorOptions struct {
	Store Store
	Clock Clock        // default RealClock
	Log   *slog.Logger // default slog.Default()
	// Published, if set, is called on the actor goroutine with every
	// batch of effects after the store made them durable (to notify
	// workers and event subscribers). It must not block or call the actor.
	Published func([]Effect)
	// Inbox is the request queue length (default 1024).
	Inbox int
}

type result struct {
	val any
	err error
}

type envelope struct {
	msg   Message
	reply chan result // nil: nobody waits (ticks, acks)
}

// Actor is the one goroutine that owns a Core. Every public method is safe
// for concurrent use; none of them touches the core directly.
type Actor struct {
	core  *Core
	opts  ActorOptions
	inbox chan envelope
	stopc chan struct{}
	done  chan struct{}
	err   error // why Run ended; read after done is closed
}

// ErrPersist wraps a store failure. The actor stops after one: its memory is
// ahead of the store, so the owner must rebuild it from the store.
var ErrPersist = errors.New("scheduler: persisting state failed")

// NewActor wraps core. Call Run (usually in a goroutine) to start it.
func NewActor(core *Core, opts ActorOptions) *Actor {
	if opts.Clock == nil {
		opts.Clock = RealClock
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Inbox <= 0 {
		opts.Inbox = 1024
	}
	return &Actor{core: core, opts: opts, inbox: make(chan envelope, opts.Inbox), stopc: make(chan struct{}), done: make(chan struct{})}
}

// Run processes messages until Stop, ctx is done, or a store failure. It
// returns nil after Stop or cancellation.
func (a *Actor) Run(ctx context.Context) error {
	defer close(a.done)
	// Effects the core produced before Run (a rebuild's tombstones).
	if err := a.publish(ctx, a.core.Ready()); err != nil {
		a.err = err
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-a.stopc:
			return nil
		case env := <-a.inbox:
			val, err := a.core.Step(a.opts.Clock.Now(), env.msg)
			if perr := a.publish(ctx, a.core.Ready()); perr != nil {
				err = perr
				a.err = perr
			}
			if env.reply != nil {
				env.reply <- result{val, err} // buffered: never blocks
			}
			if a.err != nil {
				return a.err
			}
		}
	}
}

func (a *Actor) publish(ctx context.Context, effects []Effect) error {
	if len(effects) == 0 {
		return nil
	}
	if err := a.opts.Store.Apply(ctx, effects); err != nil {
		a.opts.Log.Error("scheduler: store failed; stopping the actor", "err", err)
		return fmt.Errorf("%w: %v", ErrPersist, err)
	}
	for _, e := range effects {
		if ev, ok := e.(Event); ok {
			a.opts.Log.Info("scheduler event", "type", ev.Type, "worker", ev.Worker, "instance", ev.Instance, "detail", ev.Detail)
		}
	}
	if a.opts.Published != nil {
		a.opts.Published(effects)
	}
	return nil
}

// Stop ends Run and waits for it. A second call does nothing.
func (a *Actor) Stop() {
	select {
	case a.stopc <- struct{}{}:
	case <-a.done:
	}
	<-a.done
}

// Done is closed when Run has returned.
func (a *Actor) Done() <-chan struct{} { return a.done }

// Err is why Run ended, once Done is closed.
func (a *Actor) Err() error {
	select {
	case <-a.done:
		return a.err
	default:
		return nil
	}
}

// Ask sends m and waits for its reply. It never blocks past ctx or the
// actor's end.
func (a *Actor) Ask(ctx context.Context, m Message) (any, error) {
	env := envelope{msg: m, reply: make(chan result, 1)}
	select {
	case a.inbox <- env:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-a.done:
		return nil, ErrStopped
	}
	select {
	case r := <-env.reply:
		return r.val, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-a.done:
		// It may have answered just before it ended.
		select {
		case r := <-env.reply:
			return r.val, r.err
		default:
			return nil, ErrStopped
		}
	}
}

// Tell sends m without waiting for a reply; it blocks only while the inbox
// is full, and never past ctx or the actor's end.
func (a *Actor) Tell(ctx context.Context, m Message) error {
	select {
	case <-a.done: // never report a message to a stopped actor as sent
		return ErrStopped
	default:
	}
	select {
	case a.inbox <- envelope{msg: m}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-a.done:
		return ErrStopped
	}
}

// TryTell sends m if the inbox has room and reports whether it did. Periodic
// jobs use it: a tick dropped under load is replaced by the next one.
func (a *Actor) TryTell(m Message) bool {
	select {
	case a.inbox <- envelope{msg: m}:
		return true
	default:
		return false
	}
}

// Query is Ask with a typed reply.
func Query[T any](ctx context.Context, a *Actor, m Message) (T, error) {
	var zero T
	v, err := a.Ask(ctx, m)
	if err != nil {
		return zero, err
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("scheduler: %T answered %T, want %T", m, v, zero)
	}
	return t, nil
}

// Periods are the intervals of the periodic messages; zero or less turns
// one off. Pulsar's names: failureCheckFreqMs, workerListProbeIntervalSec,
// rebalanceCheckFreqSec.
type Periods struct {
	Tick         time.Duration // moves, deadlines, placement retries
	FailureCheck time.Duration
	DrainCleanup time.Duration
	Rebalance    time.Duration
}

// StartPeriodic schedules the periodic messages with cron. Jobs only ever
// send a message to the actor. Stop the returned cron to end them.
func StartPeriodic(a *Actor, p Periods, log *slog.Logger) *cron.Cron {
	if log == nil {
		log = slog.Default()
	}
	c := cron.New()
	add := func(d time.Duration, name string, m Message) {
		if d <= 0 {
			return
		}
		if d < time.Second {
			d = time.Second // cron's resolution
		}
		c.Schedule(cron.Every(d), cron.FuncJob(func() {
			if !a.TryTell(m) {
				log.Warn("scheduler: inbox full, periodic message skipped", "job", name)
			}
		}))
	}
	add(p.Tick, "tick", Tick{})
	add(p.FailureCheck, "membership-monitor", CheckFailures{})
	add(p.DrainCleanup, "drain-worker-list-probe", CleanupDrains{})
	add(p.Rebalance, "rebalance-periodic-check", Rebalance{Periodic: true})
	c.Start()
	return c
}
