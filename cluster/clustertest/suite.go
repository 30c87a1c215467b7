// Package clustertest is the conformance suite every cluster.Backend must
// pass: the embedded one in its tests, the Pulsar one against a real broker.
package clustertest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/fworker/fworker/cluster"
	"github.com/fworker/fworker/drain"
	"github.com/fworker/fworker/scheduler"
)

// Factory returns a fresh, empty backend; reopen returns a backend on the
// same persisted state (after closing the first one), or nil if the
// implementation cannot do that in a test.
type Factory func(t *testing.T) (b cluster.Backend, reopen func() cluster.Backend)

const wait = 60 * time.Second

func info(id string) scheduler.WorkerInfo {
	return scheduler.WorkerInfo{ID: id, Hostname: "127.0.0.1", Port: 6750}
}

// waitFor polls cond until it holds or the deadline passes, waking on view
// changes where possible.
func waitFor(t *testing.T, what string, s cluster.Session, cond func(cluster.View) bool) cluster.View {
	t.Helper()
	deadline := time.After(wait)
	for {
		v := s.View()
		if cond(v) {
			return v
		}
		select {
		case <-v.Changed:
		case <-time.After(200 * time.Millisecond): // backends that poll membership
		case <-deadline:
			t.Fatalf("timed out waiting for %s; view %+v", what, v)
		}
	}
}

// Run runs the suite.
func Run(t *testing.T, factory Factory) {
	t.Run("LeadershipAndMembership", func(t *testing.T) { leadership(t, factory) })
	t.Run("FencedStoreAndFollow", func(t *testing.T) { fencedStore(t, factory) })
	t.Run("ReportsReachTheLeader", func(t *testing.T) { reports(t, factory) })
	t.Run("Packages", func(t *testing.T) { packages(t, factory) })
}

func leadership(t *testing.T, factory Factory) {
	b, _ := factory(t)
	ctx := context.Background()
	a, err := b.Join(ctx, info("w-a"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	waitFor(t, "w-a leads", a, func(v cluster.View) bool { return v.Leader.ID == "w-a" })
	c, err := b.Join(ctx, info("w-b"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	waitFor(t, "two members, w-a leads", c, func(v cluster.View) bool { return len(v.Members) == 2 && v.Leader.ID == "w-a" })
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "w-b leads alone", c, func(v cluster.View) bool { return len(v.Members) == 1 && v.Leader.ID == "w-b" })
}

func sampleEffects() []scheduler.Effect {
	k := scheduler.FunctionKey{Tenant: "public", Namespace: "default", Name: "f"}
	return []scheduler.Effect{
		scheduler.SaveFunction{Function: scheduler.Function{Spec: scheduler.FunctionSpec{FunctionKey: k, Parallelism: 2}, Version: 1}},
		scheduler.SaveAssignment{Assignment: scheduler.Assignment{Instance: scheduler.InstanceID{Function: k, Index: 0}, Worker: "w-a", Version: 1, Gen: 4, Rev: 1}},
		scheduler.SaveAssignment{Assignment: scheduler.Assignment{Instance: scheduler.InstanceID{Function: k, Index: 1}, Worker: "w-a", Version: 1, Gen: 5, Rev: 2,
			Move: &scheduler.Move{Target: "w-b", Gen: 9, Phase: scheduler.Stopping, Reason: scheduler.ForDrain}}},
		scheduler.SaveDrain{Record: drain.Record{Worker: "w-a", Status: drain.Running, Total: 2, Remaining: 2, MaxParallel: 1}},
		scheduler.SaveCordon{Worker: "w-c", Cordoned: true},
		scheduler.Event{Type: "ignored"},
	}
}

func fencedStore(t *testing.T, factory Factory) {
	b, reopen := factory(t)
	ctx := context.Background()
	a, _ := b.Join(ctx, info("w-a"))
	waitFor(t, "w-a leads", a, func(v cluster.View) bool { return v.Leader.ID == "w-a" })
	c, _ := b.Join(ctx, info("w-b"))
	defer c.Close()
	waitFor(t, "w-b sees w-a lead", c, func(v cluster.View) bool { return v.Leader.ID == "w-a" && len(v.Members) == 2 })

	got := make(chan cluster.Update, 16)
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go c.Follow(fctx, func(u cluster.Update) { got <- u })
	first := recv(t, got)
	if first.Reset == nil {
		t.Fatal("first update is not a Reset")
	}
	if err := a.Store().Apply(ctx, sampleEffects()); err != nil {
		t.Fatal(err)
	}
	var seen []scheduler.Effect
	for len(seen) < 5 {
		u := recv(t, got)
		seen = append(seen, u.Effects...)
	}
	if _, ok := seen[1].(scheduler.SaveAssignment); !ok {
		t.Fatalf("effects out of order: %#v", seen)
	}
	if err := c.Store().Apply(ctx, sampleEffects()[:1]); !errors.Is(err, cluster.ErrNotLeader) {
		t.Fatalf("non-leader write: %v, want ErrNotLeader", err)
	}
	st, err := c.Store().Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkState(t, st)
	a.Close()
	waitFor(t, "w-b leads", c, func(v cluster.View) bool { return v.Leader.ID == "w-b" })
	if err := a.Store().Apply(ctx, sampleEffects()[:1]); err == nil {
		t.Fatal("a deposed leader could write")
	}
	k := scheduler.FunctionKey{Tenant: "public", Namespace: "default", Name: "f"}
	if err := c.Store().Apply(ctx, []scheduler.Effect{scheduler.RemoveAssignment{Instance: scheduler.InstanceID{Function: k, Index: 0}, Rev: 3}}); err != nil {
		t.Fatalf("new leader write: %v", err)
	}
	if reopen == nil {
		return
	}
	c.Close()
	b2 := reopen()
	d, err := b2.Join(ctx, info("w-d"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st, err = d.Store().Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Assignments) != 1 || st.Rev != 3 || st.Gen != 9 || len(st.Drains) != 1 {
		t.Fatalf("after reopen: %+v", st)
	}
}

func checkState(t *testing.T, st scheduler.State) {
	t.Helper()
	if len(st.Functions) != 1 || len(st.Assignments) != 2 || len(st.Drains) != 1 || len(st.Cordoned) != 1 {
		t.Fatalf("loaded state %+v", st)
	}
	if st.Gen != 9 || st.Rev != 2 {
		t.Fatalf("high-water gen %d rev %d, want 9 2", st.Gen, st.Rev)
	}
	for _, a := range st.Assignments {
		if a.Instance.Index == 1 && (a.Move == nil || a.Move.Target != "w-b" || a.Move.Phase != scheduler.Stopping) {
			t.Fatalf("move lost: %+v", a)
		}
	}
}

func recv(t *testing.T, c <-chan cluster.Update) cluster.Update {
	t.Helper()
	select {
	case u := <-c:
		return u
	case <-time.After(wait):
		t.Fatal("no update")
	}
	return cluster.Update{}
}

func reports(t *testing.T, factory Factory) {
	b, _ := factory(t)
	ctx := context.Background()
	a, _ := b.Join(ctx, info("w-a"))
	defer a.Close()
	waitFor(t, "w-a leads", a, func(v cluster.View) bool { return v.Leader.ID == "w-a" })
	c, _ := b.Join(ctx, info("w-b"))
	defer c.Close()
	waitFor(t, "w-b sees w-a", c, func(v cluster.View) bool { return v.Leader.ID == "w-a" })
	m := scheduler.WorkerReport{Worker: "w-b", Rev: 7, Running: []scheduler.Run{{Gen: 3}}}
	if err := c.Report(ctx, m); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-a.Reports():
		r, ok := got.(scheduler.WorkerReport)
		if !ok || r.Worker != "w-b" || r.Rev != 7 || len(r.Running) != 1 {
			t.Fatalf("got %#v", got)
		}
	case <-time.After(wait):
		t.Fatal("report did not reach the leader")
	}
}

func packages(t *testing.T, factory Factory) {
	b, _ := factory(t)
	ctx := context.Background()
	a, _ := b.Join(ctx, info("w-a"))
	defer a.Close()
	data := bytes.Repeat([]byte("0123456789"), 300_000) // 3 MB: more than one chunk anywhere
	n, err := a.PutPackage(ctx, "function://public/default/f@1", bytes.NewReader(data), 64<<20)
	if err != nil || n != int64(len(data)) {
		t.Fatalf("put: %d %v", n, err)
	}
	r, err := a.OpenPackage(ctx, "function://public/default/f@1")
	if err != nil {
		t.Fatal(err)
	}
	back, _ := io.ReadAll(r)
	r.Close()
	if !bytes.Equal(back, data) {
		t.Fatalf("package changed: %d bytes back", len(back))
	}
	if _, err := a.PutPackage(ctx, "big", strings.NewReader("12345"), 4); err == nil {
		t.Fatal("limit not enforced")
	}
	if err := a.DeletePackage(ctx, "function://public/default/f@1"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.OpenPackage(ctx, "function://public/default/f@1"); !errors.Is(err, cluster.ErrNoPackage) {
		t.Fatalf("after delete: %v", err)
	}
}
