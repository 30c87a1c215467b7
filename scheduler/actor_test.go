package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fworker/fworker/drain"
)

// fakeClock is the actor's clock in tests: it moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// testStore is a MemStore that records each batch and the goroutine that
// applied it, and can hold (gate) or fail Apply.
type testStore struct {
	mem     *MemStore
	gate    chan struct{} // if set, each Apply waits for one value
	entered chan struct{} // if set (buffered), Apply signals it was called
	fail    error
	mu      sync.Mutex
	batches [][]Effect
	goids   []uint64
}

func (s *testStore) Load(ctx context.Context) (State, error) { return s.mem.Load(ctx) }

func (s *testStore) Apply(ctx context.Context, effects []Effect) error {
	select {
	case s.entered <- struct{}{}:
	default: // nobody asked, or the last signal was not taken yet
	}
	if s.gate != nil {
		<-s.gate
	}
	if s.fail != nil {
		return s.fail
	}
	s.mu.Lock()
	s.batches = append(s.batches, effects)
	s.goids = append(s.goids, goid())
	s.mu.Unlock()
	return s.mem.Apply(ctx, effects)
}

// goid is the current goroutine's id, from the runtime's stack header.
func goid() uint64 {
	var buf [64]byte
	f := strings.Fields(string(buf[:runtime.Stack(buf[:], false)]))
	id, _ := strconv.ParseUint(f[1], 10, 64)
	return id
}

type actorRig struct {
	a     *Actor
	store *testStore
	clock *fakeClock
	run   chan error // Run's result
	runID chan uint64
}

func startActor(t *testing.T, store *testStore, opts ActorOptions) *actorRig {
	t.Helper()
	if store == nil {
		store = &testStore{}
	}
	store.mem = NewMemStore()
	r := &actorRig{store: store, clock: &fakeClock{now: t0}, run: make(chan error, 1), runID: make(chan uint64, 1)}
	opts.Store, opts.Clock, opts.Log = store, r.clock, quiet
	r.a = NewActor(New(Config{MoveTimeout: 5 * time.Second}), opts)
	go func() {
		r.runID <- goid()
		r.run <- r.a.Run(context.Background())
	}()
	t.Cleanup(r.a.Stop)
	return r
}

var (
	bg    = context.Background()
	quiet = slog.New(slog.DiscardHandler)
)

// bogus is a message the core does not know.
type bogus struct{}

func (bogus) isMessage() {}

func TestActorAskQuery(t *testing.T) {
	r := startActor(t, nil, ActorOptions{})
	if _, err := r.a.Ask(bg, SetMembership{Workers: infos("w0", "w1")}); err != nil {
		t.Fatal(err)
	}
	f, err := Query[Function](bg, r.a, CreateFunction{Spec: fn("f", 3)})
	if err != nil || f.Version != 1 || f.Spec.Parallelism != 3 {
		t.Fatalf("create: %+v, %v", f, err)
	}
	var exists *FunctionExistsError
	if _, err := r.a.Ask(bg, CreateFunction{Spec: fn("f", 3)}); !errors.As(err, &exists) {
		t.Fatalf("duplicate create: %v", err)
	}
	snap, err := Query[Snapshot](bg, r.a, GetSnapshot{})
	if err != nil || len(snap.Assignments) != 3 || !snap.Time.Equal(t0) {
		t.Fatalf("snapshot: %d assignments at %v, %v", len(snap.Assignments), snap.Time, err)
	}
	st, err := Query[drain.Record](bg, r.a, GetDrainStatus{Worker: "w9"})
	if err != nil || st.LastError != "Worker w9 not found in drain records" {
		t.Fatalf("status: %+v, %v", st, err)
	}
	if _, err := Query[Snapshot](bg, r.a, ListDrains{}); err == nil || !strings.Contains(err.Error(), "answered []drain.Record") {
		t.Fatalf("typed query of the wrong reply: %v", err)
	}
	var inv *InvalidError
	if _, err := r.a.Ask(bg, bogus{}); !errors.As(err, &inv) {
		t.Fatalf("unknown message: %v", err)
	}
	if err := r.a.Tell(bg, Tick{}); err != nil {
		t.Fatal(err)
	}
}

func TestActorConcurrentAsks(t *testing.T) {
	r := startActor(t, nil, ActorOptions{Inbox: 4})
	if _, err := r.a.Ask(bg, SetMembership{Workers: infos("w0", "w1", "w2")}); err != nil {
		t.Fatal(err)
	}
	const clients, each = 16, 8
	var wg sync.WaitGroup
	errs := make(chan error, clients*each)
	for c := range clients {
		wg.Go(func() {
			for i := range each {
				name := fmt.Sprintf("f-%d-%d", c, i)
				f, err := Query[Function](bg, r.a, CreateFunction{Spec: fn(name, 1+i%3)})
				if err != nil || f.Spec.Name != name {
					errs <- fmt.Errorf("create %s: %+v, %v", name, f, err)
				}
				if _, err := Query[Snapshot](bg, r.a, GetSnapshot{}); err != nil {
					errs <- err
				}
				if !r.a.TryTell(Tick{}) {
					_ = r.a.Tell(bg, Tick{})
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	snap, err := Query[Snapshot](bg, r.a, GetSnapshot{})
	if err != nil || len(snap.Functions) != clients*each {
		t.Fatalf("%d functions, %v", len(snap.Functions), err)
	}
	if len(snap.Unassigned) != 0 || len(snap.Assignments) == 0 {
		t.Fatalf("%d assignments, %d unassigned", len(snap.Assignments), len(snap.Unassigned))
	}
}

func TestActorStop(t *testing.T) {
	t.Run("twice, then asks fail", func(t *testing.T) {
		r := startActor(t, nil, ActorOptions{})
		r.a.Stop()
		r.a.Stop() // no-op
		<-r.a.Done()
		if err := <-r.run; err != nil || r.a.Err() != nil {
			t.Fatalf("Run = %v, Err = %v", err, r.a.Err())
		}
		if _, err := r.a.Ask(bg, GetSnapshot{}); !errors.Is(err, ErrStopped) {
			t.Fatalf("ask after stop: %v", err)
		}
	})
	t.Run("tell after stop reports ErrStopped", func(t *testing.T) {
		// Tell's select could pick the (buffered, never read) inbox over
		// the actor's end and report a dropped message as sent. 64 tries:
		// a coin-flip select would pass them all with odds 2^-64.
		r := startActor(t, nil, ActorOptions{Inbox: 128})
		r.a.Stop()
		for i := range 64 {
			if err := r.a.Tell(bg, Tick{}); !errors.Is(err, ErrStopped) {
				t.Fatalf("tell #%d after stop: %v (the message is lost)", i, err)
			}
		}
	})
	t.Run("unblocks pending asks", func(t *testing.T) {
		// The actor is held inside Apply while asks queue up behind it
		// and Stop waits; then Apply is released one call at a time.
		const pending = 32
		store := &testStore{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
		r := startActor(t, store, ActorOptions{Inbox: pending})
		go func() { _, _ = r.a.Ask(bg, CreateFunction{Spec: fn("first", 1)}) }()
		<-store.entered
		replies := make(chan error, pending)
		for i := range pending {
			go func() {
				_, err := r.a.Ask(bg, CreateFunction{Spec: fn(fmt.Sprintf("q%d", i), 1)})
				replies <- err
			}()
		}
		for len(r.a.inbox) < pending { // wait until all are queued
			runtime.Gosched()
		}
		stopped := make(chan struct{})
		go func() { r.a.Stop(); close(stopped) }()
		for done := false; !done; {
			select {
			case store.gate <- struct{}{}: // one more Apply may finish
			case <-r.a.Done():
				done = true
			}
		}
		<-stopped
		got := map[string]int{}
		for range pending {
			err := <-replies
			switch {
			case err == nil:
				got["answered"]++
			case errors.Is(err, ErrStopped):
				got["stopped"]++
			default:
				t.Fatalf("pending ask: %v", err)
			}
		}
		// Each pending ask had at most even odds of being served before
		// the stop: all 32 served would be a 2^-32 event.
		if got["stopped"] == 0 {
			t.Fatalf("no pending ask saw ErrStopped: %v", got)
		}
	})
}

func TestActorContext(t *testing.T) {
	store := &testStore{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
	r := startActor(t, store, ActorOptions{Inbox: 1})
	go func() { _, _ = r.a.Ask(bg, CreateFunction{Spec: fn("busy", 1)}) }()
	<-store.entered // the actor is busy from now on
	ctx, cancel := context.WithCancel(bg)
	res := make(chan error, 1)
	go func() { _, err := r.a.Ask(ctx, GetSnapshot{}); res <- err }() // queued, waits for its reply
	for len(r.a.inbox) < 1 {
		runtime.Gosched()
	}
	cancel()
	if err := <-res; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled while waiting for the reply: %v", err)
	}
	// The inbox is full now: an already cancelled ask cannot even queue.
	if _, err := r.a.Ask(ctx, GetSnapshot{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before queueing: %v", err)
	}
	if err := r.a.Tell(ctx, Tick{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("tell: %v", err)
	}
	if r.a.TryTell(Tick{}) {
		t.Fatal("TryTell into a full inbox")
	}
	close(store.gate)
	// Run itself ends, with nil, when its context is cancelled.
	a := NewActor(New(Config{}), ActorOptions{Store: NewMemStore(), Clock: &fakeClock{now: t0}, Log: quiet})
	if err := a.Run(ctx); err != nil {
		t.Fatalf("Run with a cancelled context: %v", err)
	}
}

func TestActorPersistFailure(t *testing.T) {
	boom := errors.New("disk on fire")
	store := &testStore{gate: make(chan struct{}), entered: make(chan struct{}, 1), fail: boom}
	published := 0
	r := startActor(t, store, ActorOptions{Published: func([]Effect) { published++ }})
	first := make(chan error, 1)
	go func() { _, err := r.a.Ask(bg, SetMembership{Workers: infos("w0")}); first <- err }()
	<-store.entered
	queued := make(chan error, 1)
	go func() { _, err := r.a.Ask(bg, GetSnapshot{}); queued <- err }()
	for len(r.a.inbox) < 1 {
		runtime.Gosched()
	}
	close(store.gate)
	err := <-first
	if !errors.Is(err, ErrPersist) || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("reply error %v, want one wrapping ErrPersist", err)
	}
	if runErr := <-r.run; !errors.Is(runErr, ErrPersist) || !errors.Is(r.a.Err(), ErrPersist) {
		t.Fatalf("Run = %v, Err = %v", runErr, r.a.Err())
	}
	if err := <-queued; !errors.Is(err, ErrStopped) {
		t.Fatalf("ask queued behind the failure: %v", err)
	}
	if published != 0 {
		t.Fatal("Published called for a batch the store refused")
	}
}

func TestActorPublishedAfterApply(t *testing.T) {
	store := &testStore{}
	var batches [][]Effect
	var bad []string
	var r *actorRig
	r = startActor(t, store, ActorOptions{Published: func(effects []Effect) {
		store.mu.Lock()
		defer store.mu.Unlock()
		n := len(store.batches)
		switch {
		case n != len(batches)+1 || fmt.Sprint(store.batches[n-1]) != fmt.Sprint(effects):
			bad = append(bad, "published a batch the store did not apply just before")
		case store.goids[n-1] != goid():
			bad = append(bad, "Published and Apply ran on different goroutines")
		}
		st, _ := store.mem.Load(bg)
		for _, e := range effects {
			if sf, ok := e.(SaveFunction); ok && !hasFunction(st, sf.Function.Spec.FunctionKey) {
				bad = append(bad, "published "+sf.Function.Spec.Name+" before the store had it")
			}
		}
		batches = append(batches, effects)
	}})
	runID := <-r.runID
	k := []string{"a", "b", "c", "d", "e"}
	for _, name := range k {
		if _, err := r.a.Ask(bg, CreateFunction{Spec: fn(name, 1)}); err != nil {
			t.Fatal(err)
		}
	}
	r.a.Stop()
	if len(bad) > 0 {
		t.Fatal(bad)
	}
	var order []string
	for _, b := range batches {
		for _, e := range b {
			if sf, ok := e.(SaveFunction); ok {
				order = append(order, sf.Function.Spec.Name)
			}
		}
	}
	if strings.Join(order, "") != strings.Join(k, "") {
		t.Fatalf("published functions in order %v", order)
	}
	for _, id := range store.goids {
		if id != runID {
			t.Fatalf("applied on goroutine %d, Run is %d", id, runID)
		}
	}
}

func hasFunction(st State, k FunctionKey) bool {
	for _, f := range st.Functions {
		if f.Spec.FunctionKey == k {
			return true
		}
	}
	return false
}

func TestActorStartPeriodic(t *testing.T) {
	seen := make(chan string, 64)
	r := startActor(t, nil, ActorOptions{Published: func(effects []Effect) {
		for _, e := range effects {
			if ev, ok := e.(Event); ok {
				select {
				case seen <- ev.Type:
				default:
				}
			}
		}
	}})
	for _, m := range []Message{SetMembership{Workers: infos("w0", "w1")}, CreateFunction{Spec: fn("f", 1)}} {
		if _, err := r.a.Ask(bg, m); err != nil {
			t.Fatal(err)
		}
	}
	snap, _ := Query[Snapshot](bg, r.a, GetSnapshot{})
	a := snap.Assignments[0]
	_, _ = r.a.Ask(bg, InstanceStarted{Worker: a.Worker, Instance: a.Instance, Gen: a.Gen})
	if _, err := r.a.Ask(bg, Drain{Worker: a.Worker}); err != nil {
		t.Fatal(err)
	}
	r.clock.Advance(time.Minute) // past MoveTimeout: only a Tick can notice
	for len(seen) > 0 {
		<-seen
	}
	c := StartPeriodic(r.a, Periods{Tick: time.Second}, quiet)
	defer func() { <-c.Stop().Done() }()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case typ := <-seen:
			if typ == EvMoveCancelled || typ == EvMoveRetried {
				return // the periodic Tick expired the move
			}
		case <-timeout:
			t.Fatal("no periodic Tick reached the actor within 30 s")
		}
	}
}
