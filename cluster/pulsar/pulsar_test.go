package pulsar

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"os"
	"strconv"
	"testing"
	"time"

	pulsarclient "github.com/apache/pulsar-client-go/pulsar"

	"github.com/fworker/fworker/cluster"
	"github.com/fworker/fworker/cluster/clustertest"
	"github.com/fworker/fworker/drain"
	"github.com/fworker/fworker/scheduler"
)

const howToRun = "needs a Pulsar broker: scripts/pulsar/pulsar.sh up, then " +
	"FWTEST_PULSAR_URL=pulsar://127.0.0.1:6650 FWTEST_PULSAR_ADMIN_URL=http://127.0.0.1:8080 go test ./cluster/pulsar"

// testOptions returns options on fresh topics in public/functions, or
// skips when no broker is configured.
func testOptions(tb testing.TB) Options {
	tb.Helper()
	url, adminURL := os.Getenv("FWTEST_PULSAR_URL"), os.Getenv("FWTEST_PULSAR_ADMIN_URL")
	if url == "" || adminURL == "" {
		tb.Skip(howToRun)
	}
	var b [6]byte
	rand.Read(b[:])
	suffix := "-" + hex.EncodeToString(b[:])
	return Options{
		ServiceURL:        url,
		AdminURL:          adminURL,
		Namespace:         "public/functions",
		CoordinationTopic: "test-coordinate" + suffix,
		StateTopic:        "test-state" + suffix,
		ReportsTopic:      "test-reports" + suffix,
		PackagesTopic:     "test-packages" + suffix,
		Log:               testLogger(),
	}
}

// testLogger logs warnings, or what FWTEST_PULSAR_LOG (debug, info)
// asks for.
func testLogger() *slog.Logger {
	level := slog.LevelWarn
	level.UnmarshalText([]byte(os.Getenv("FWTEST_PULSAR_LOG")))
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// open opens a backend and deletes its topics when the test ends.
func open(tb testing.TB, opts Options) *Backend {
	tb.Helper()
	b, err := Open(context.Background(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		b.Close()
		deleteTopics(tb, b)
	})
	return b
}

func deleteTopics(tb testing.TB, b *Backend) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.admin.Topics().DeleteWithContext(ctx, b.topics.coord.tn, true, false); err != nil {
		tb.Logf("delete %s: %v", b.topics.coord.name, err)
	}
	for _, t := range []topic{b.topics.state, b.topics.reports, b.topics.packages} {
		if err := b.admin.Topics().DeleteWithContext(ctx, t.tn, true, true); err != nil {
			tb.Logf("delete %s: %v", t.name, err)
		}
	}
}

func TestConformance(t *testing.T) {
	clustertest.Run(t, func(t *testing.T) (cluster.Backend, func() cluster.Backend) {
		opts := testOptions(t)
		b := open(t, opts)
		reopen := func() cluster.Backend {
			b.Close()
			b2, err := Open(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b2.Close() }) // before b's cleanup deletes the topics
			return b2
		}
		return b, reopen
	})
}

func info(id string) scheduler.WorkerInfo {
	return scheduler.WorkerInfo{ID: id, Hostname: "127.0.0.1", Port: 6750}
}

func join(tb testing.TB, b *Backend, id string) *session {
	tb.Helper()
	s, err := b.Join(context.Background(), info(id))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s.(*session)
}

// await waits until cond holds for s's view, waking on view changes.
func await(tb testing.TB, what string, s cluster.Session, d time.Duration, cond func(cluster.View) bool) time.Duration {
	tb.Helper()
	start := time.Now()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		v := s.View()
		if cond(v) {
			return time.Since(start)
		}
		select {
		case <-v.Changed:
		case <-deadline.C:
			tb.Fatalf("timed out after %v waiting for %s; view %+v", d, what, v)
		}
	}
}

func leads(id string) func(cluster.View) bool {
	return func(v cluster.View) bool { return v.Leader.ID == id }
}

func drainOf(worker string) scheduler.Effect {
	return scheduler.SaveDrain{Record: drain.Record{Worker: worker, Status: drain.Running}}
}

// TestLeaderIsSmallestName: on the one-partition coordination topic the
// broker makes the smallest consumer name active, whatever the join order;
// members carry their WorkerInfo, capacity included.
func TestLeaderIsSmallestName(t *testing.T) {
	b := open(t, testOptions(t))
	c := join(t, b, "w-b")
	await(t, "w-b leads", c, time.Minute, leads("w-b"))
	w := info("w-a")
	w.Capacity = &scheduler.Resources{CPU: 4, RAM: 8 << 30, Disk: 100 << 30}
	s, err := b.Join(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	v := s.View()
	await(t, "w-a leads", c, time.Minute, leads("w-a"))
	if len(v.Members) != 2 || v.Members[0].Capacity == nil || *v.Members[0].Capacity != *w.Capacity {
		t.Fatalf("members %+v", v.Members)
	}
	if _, err := b.Join(context.Background(), info("w:c")); err == nil {
		t.Fatal("a worker id with ':' joined")
	}
}

// TestLeaderFailover: the leader's client dies; the other session leads
// and writes within a bounded time, and the old one cannot write.
func TestLeaderFailover(t *testing.T) {
	b := open(t, testOptions(t))
	ctx := context.Background()
	a := join(t, b, "w-a")
	await(t, "w-a leads", a, time.Minute, leads("w-a"))
	c := join(t, b, "w-b")
	await(t, "w-b sees w-a lead", c, time.Minute, leads("w-a"))
	if err := a.Store().Apply(ctx, []scheduler.Effect{drainOf("before")}); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	a.client.Close() // abrupt: consumer and producer go with the connection
	elected := await(t, "w-b leads", c, time.Minute, leads("w-b"))
	for {
		err := c.Store().Apply(ctx, []scheduler.Effect{drainOf("after")})
		if err == nil {
			break
		}
		if time.Since(start) > time.Minute {
			t.Fatalf("new leader cannot write: %v", err)
		}
	}
	writable := time.Since(start)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := a.Store().Apply(wctx, []scheduler.Effect{drainOf("zombie")}); err == nil {
		t.Fatal("the old leader could write")
	}
	st, err := c.Store().Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Drains) != 2 {
		t.Fatalf("drains %+v, want before and after", st.Drains)
	}
	t.Logf("failover: w-b saw itself leader after %v, wrote after %v", elected, writable)
}

// TestDeposedLeaderFenced: the leader loses its subscription but keeps its
// producer and keeps writing; once the new leader has written, nothing of
// the old one follows in the topic.
func TestDeposedLeaderFenced(t *testing.T) {
	b := open(t, testOptions(t))
	ctx := context.Background()
	a := join(t, b, "w-a")
	await(t, "w-a leads", a, time.Minute, leads("w-a"))
	c := join(t, b, "w-b")
	await(t, "w-b sees w-a lead", c, time.Minute, leads("w-a"))

	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() { // the old leader writes as fast as it can
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := a.Store().Apply(wctx, []scheduler.Effect{drainOf("a")})
			cancel()
			if errors.Is(err, cluster.ErrNotLeader) {
				done <- nil
				return
			}
		}
	}()
	start := time.Now()
	a.member.Close() // w-a is no longer a participant, but its producer lives
	await(t, "w-b leads", c, time.Minute, leads("w-b"))
	for i := 0; i < 20; i++ {
		for {
			err := c.Store().Apply(ctx, []scheduler.Effect{drainOf("c")})
			if err == nil {
				break
			}
			if time.Since(start) > time.Minute {
				t.Fatalf("new leader cannot write: %v", err)
			}
		}
	}
	t.Logf("new leader wrote 20 batches %v after the old one left", time.Since(start))
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the old leader never got ErrNotLeader")
	}
	close(stop)

	// In the topic, every write of w-a precedes every write of w-b.
	r, err := c.client.CreateReader(pulsarclient.ReaderOptions{Topic: b.topics.state.name, StartMessageID: pulsarclient.EarliestMessageID()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var sawC bool
	var na, nc int
	err = readToEnd(ctx, r, func(m pulsarclient.Message) error {
		switch m.Key() {
		case kDrain + "a":
			na++
			if sawC {
				t.Errorf("a write of the deposed leader follows the new leader's at %v", m.ID())
			}
		case kDrain + "c":
			nc++
			sawC = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("topic: %d writes of the old leader, then %d of the new one", na, nc)
}

// TestFollowRemovals: removals reach a follower as effects, through the
// marker and then through the purged tombstone.
func TestFollowRemovals(t *testing.T) {
	opts := testOptions(t)
	opts.TombstoneDelay = time.Nanosecond
	b := open(t, opts)
	ctx := context.Background()
	a := join(t, b, "w-a")
	await(t, "w-a leads", a, time.Minute, leads("w-a"))
	k := scheduler.FunctionKey{Tenant: "t", Namespace: "n", Name: "f"}
	inst := scheduler.InstanceID{Function: k, Index: 0}
	got := make(chan cluster.Update, 16)
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go a.Follow(fctx, func(u cluster.Update) { got <- u })
	next := func() cluster.Update {
		select {
		case u := <-got:
			return u
		case <-time.After(time.Minute):
			t.Fatal("no update")
		}
		return cluster.Update{}
	}
	if u := next(); u.Reset == nil {
		t.Fatal("no reset first")
	}
	err := a.Store().Apply(ctx, []scheduler.Effect{
		scheduler.SaveAssignment{Assignment: scheduler.Assignment{Instance: inst, Worker: "w-a", Gen: 1, Rev: 1}},
		scheduler.RemoveAssignment{Instance: inst, Rev: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	next()
	if e, ok := next().Effects[0].(scheduler.RemoveAssignment); !ok || e.Rev != 2 || e.Instance != inst {
		t.Fatalf("marker: %#v", e)
	}
	term, _, _ := a.leadership()
	n, err := a.w.purge(ctx, term, time.Now())
	if err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	if e, ok := next().Effects[0].(scheduler.RemoveAssignment); !ok || e.Instance != inst {
		t.Fatalf("tombstone: %#v", e)
	}
	st, err := a.Store().Load(ctx)
	if err != nil || len(st.Assignments) != 0 || st.Rev != 2 || st.Gen != 1 {
		t.Fatalf("after purge: %+v %v", st, err)
	}
}

func assignment(i int, rev uint64) scheduler.Effect {
	k := scheduler.FunctionKey{Tenant: "bench", Namespace: "ns", Name: "f" + strconv.Itoa(i/100)}
	return scheduler.SaveAssignment{Assignment: scheduler.Assignment{
		Instance: scheduler.InstanceID{Function: k, Index: i % 100},
		Worker:   "w-" + strconv.Itoa(i%7), Version: 1, Gen: rev, Rev: rev,
	}}
}

// leader joins a session to b and waits until it leads.
func leader(tb testing.TB, b *Backend) *session {
	s := join(tb, b, "w-bench")
	await(tb, "w-bench leads", s, time.Minute, leads("w-bench"))
	return s
}

// BenchmarkApply measures the assignment publish rate through
// Store().Apply, with one or 100 effects per call.
func BenchmarkApply(b *testing.B) {
	for _, batch := range []int{1, 100} {
		b.Run("batch="+strconv.Itoa(batch), func(b *testing.B) {
			s := leader(b, open(b, testOptions(b)))
			ctx := context.Background()
			if err := s.Store().Apply(ctx, []scheduler.Effect{assignment(0, 1)}); err != nil {
				b.Fatal(err) // acquires and seeds outside the timing
			}
			rev := uint64(1)
			effects := make([]scheduler.Effect, batch)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j := range effects {
					rev++
					effects[j] = assignment(int(rev)%10000, rev)
				}
				if err := s.Store().Apply(ctx, effects); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "effects/s")
		})
	}
}

// BenchmarkLoad100k measures Load of 100,000 assignments. The topics are
// built once and kept (fworker-bench-* in public/functions); a later run
// reuses them.
func BenchmarkLoad100k(b *testing.B) {
	const n = 100_000
	opts := testOptions(b)
	opts.CoordinationTopic, opts.StateTopic = "fworker-bench-coordinate", "fworker-bench-state-100k"
	opts.ReportsTopic, opts.PackagesTopic = "fworker-bench-reports", "fworker-bench-packages"
	be, err := Open(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	s := leader(b, be)
	ctx := context.Background()
	st, err := s.Store().Load(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if len(st.Assignments) != n {
		start := time.Now()
		batch := make([]scheduler.Effect, 0, 1000)
		for i := range n {
			batch = append(batch, assignment(i, st.Rev+uint64(i)+1))
			if len(batch) == cap(batch) {
				if err := s.Store().Apply(ctx, batch); err != nil {
					b.Fatal(err)
				}
				batch = batch[:0]
				if time.Since(start) > 5*time.Minute {
					b.Skipf("setting up %d assignments is too slow: %d in %v", n, i+1, time.Since(start))
				}
			}
		}
		if err := be.compact(ctx, be.topics.state); err != nil {
			b.Fatal(err)
		}
		b.Logf("wrote %d assignments in %v", n, time.Since(start))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st, err := s.Store().Load(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(st.Assignments) != n {
			b.Fatalf("loaded %d assignments, want %d", len(st.Assignments), n)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
}
