package scheduler

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fworker/fworker/drain"
)

func FuzzParseInstanceID(f *testing.F) {
	for _, s := range []string{"t/ns/f:0", "tenant-1/namespace-1/func-1:12", "a/b/c:-1", "a/b/c:+1", "a/b/c:01",
		"a/b/c", "a/b:c:1", "a//c:1", "a/b/c/d:1", ":", "a/b/c:99999999999999999999", "a/b/c:1:2", "ä/b/c:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseInstanceID(s)
		if err != nil {
			return
		}
		if id.Index < 0 {
			t.Fatalf("%q parsed to negative index %d", s, id.Index)
		}
		if id.String() != s {
			t.Fatalf("%q parsed to %+v, which prints as %q", s, id, id.String())
		}
		back, err := ParseInstanceID(id.String())
		if err != nil || back != id {
			t.Fatalf("round trip of %q: %+v, %v", s, back, err)
		}
		if err := id.Function.Validate(); err != nil {
			t.Fatalf("%q parsed to an invalid key: %v", s, err)
		}
	})
}

func FuzzParseFunctionKey(f *testing.F) {
	for _, s := range []string{"t/ns/f", "public/default/my-func_1.v=2", "a/b", "a/b/c/d", "/b/c", "a/b/c:1",
		"a/b/ c", "a/b/" + strings.Repeat("x", 257), "é/b/c", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseFunctionKey(s)
		if err != nil {
			return
		}
		if k.String() != s {
			t.Fatalf("%q parsed to %+v, which prints as %q", s, k, k.String())
		}
		back, err := ParseFunctionKey(k.String())
		if err != nil || back != k {
			t.Fatalf("round trip of %q: %+v, %v", s, back, err)
		}
		id := InstanceID{Function: k, Index: 7}
		if got, err := ParseInstanceID(id.String()); err != nil || got != id {
			t.Fatalf("instance of %q: %+v, %v", s, got, err)
		}
	})
}

// FuzzCore decodes the input into a sequence of messages and checks the
// simulator's safety rules (checkEffects, checkState) and checkBooks after
// every step, then settles the cluster with ideal workers and checks that
// nothing is left in flight.
func FuzzCore(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 3, 0, 2, 3, 1, 3, 10, 0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0, 14, 9})
	f.Add([]byte{1, 7, 2, 1, 30, 1, 0, 31, 3, 2, 4, 3, 3, 1, 19, 10, 1, 200, 7, 19, 14, 60, 19, 14, 60, 19})
	f.Add([]byte{2, 3, 1, 0, 5, 0, 0, 15, 3, 0, 3, 12, 0, 13, 0, 10, 1, 3, 0, 2, 1, 6, 1, 0, 0, 2, 16, 15, 18, 19})
	f.Add([]byte{3, 1, 3, 1, 2, 0, 0, 7, 3, 0, 3, 3, 1, 2, 19, 10, 0, 0, 2, 8, 0, 0, 0, 19, 11, 0, 17, 3, 19})
	f.Add([]byte("drain-undrain-cordon-rebalance-report-restore"))
	// What the fuzzer found (see TestSetMembershipDepartsTogether): w0's
	// two drain moves go to w1 and w2, then one SetMembership drops both.
	// Config; cordon w1, w2; create f0 p=2; uncordon; ack all; drain w0
	// with maxParallel 2; membership {w0}.
	f.Add([]byte{0, 0, 0, 0, 0, 0, 1, 12, 1, 12, 2, 3, 8, 13, 1, 13, 2, 21, 0, 10, 132, 0, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := newFuzzDriver(t, data)
		for steps := 0; d.pos < len(data) && steps < 300; steps++ {
			d.act()
		}
		d.settle()
	})
}

type fuzzDriver struct {
	s        *sim
	data     []byte
	pos      int
	ids      []string
	capacity bool
	live     map[string]bool
}

func newFuzzDriver(t *testing.T, data []byte) *fuzzDriver {
	d := &fuzzDriver{data: data, ids: []string{"w0", "w1", "w2", "w3", "w4"}, live: map[string]bool{}}
	cfg := Config{
		Seed:                  int64(d.next()),
		RescheduleTimeout:     time.Duration(1+d.next()%60) * time.Second,
		MoveTimeout:           time.Duration(1+d.next()%30) * time.Second,
		DrainMaxParallelMoves: 1 + int(d.next()%4),
		MaxConcurrentDrains:   1 + int(d.next()%2),
		DrainRecordRetention:  time.Duration(1+d.next()%60) * time.Second,
	}
	d.capacity = d.next()%4 == 0
	d.s = newCheckedSim(t, cfg, d.ids...)
	d.membership(0b111)
	return d
}

func (d *fuzzDriver) next() byte {
	if d.pos >= len(d.data) {
		return 0
	}
	b := d.data[d.pos]
	d.pos++
	return b
}

func (d *fuzzDriver) send(m Message) (any, error) { return d.s.sendChecked(m) }

func (d *fuzzDriver) info(id string) WorkerInfo {
	info := WorkerInfo{ID: id, Hostname: "h-" + id, Port: 6750}
	if d.capacity {
		info.Capacity = &Resources{CPU: float64(1 + id[1]%3), RAM: 64 << 30, Disk: 1 << 40}
	}
	return info
}

func (d *fuzzDriver) membership(mask byte) {
	var ws []WorkerInfo
	for i, id := range d.ids {
		d.live[id] = mask&(1<<i) != 0
		if d.live[id] {
			ws = append(ws, d.info(id))
		}
	}
	d.send(SetMembership{Workers: ws})
}

func (d *fuzzDriver) worker() string { return d.ids[int(d.next())%len(d.ids)] }

func (d *fuzzDriver) spec() FunctionSpec {
	b := d.next()
	sp := FunctionSpec{FunctionKey: FunctionKey{"t", "ns", fmt.Sprintf("f%d", b%4)}, Parallelism: int(b>>2) % 5,
		Package: fmt.Sprintf("p%d", b>>5)}
	if d.capacity {
		sp.Resources = Resources{CPU: 1, RAM: 1 << 30, Disk: 1 << 30}
	}
	return sp
}

func (d *fuzzDriver) instance() InstanceID {
	b := d.next()
	return InstanceID{Function: FunctionKey{"t", "ns", fmt.Sprintf("f%d", b%4)}, Index: int(b>>2) % 5}
}

// gen is mostly a generation the core really issued for (worker, id), and
// otherwise an arbitrary small one.
func (d *fuzzDriver) gen(worker string, id InstanceID) uint64 {
	b := d.next()
	s := d.s.core.slots[id]
	switch {
	case b < 96 && s != nil:
		if g, ok := s.a.DesiredOn(worker); ok {
			return g
		}
		return s.a.Gen
	case b < 128 && s != nil && s.a.Move != nil:
		return s.a.Move.Gen
	}
	return uint64(b % 32)
}

func (d *fuzzDriver) act() {
	advance := func(limit byte) { d.s.now = d.s.now.Add(time.Duration(d.next()%limit) * time.Second) }
	switch op := d.next() % 22; op {
	case 0:
		d.membership(d.next())
	case 1:
		w := d.worker()
		d.live[w] = true
		d.send(WorkerJoined{Worker: d.info(w)})
	case 2:
		w := d.worker()
		d.live[w] = false
		d.send(WorkerLeft{ID: w})
	case 3:
		d.send(CreateFunction{Spec: d.spec()})
	case 4:
		d.send(UpdateFunction{Spec: d.spec()})
	case 5:
		d.send(DeleteFunction{Key: d.spec().FunctionKey})
	case 6, 7, 8:
		w, id := d.worker(), d.instance()
		g := d.gen(w, id)
		switch op {
		case 6:
			d.send(InstanceStarted{Worker: w, Instance: id, Gen: g})
		case 7:
			d.send(InstanceStopped{Worker: w, Instance: id, Gen: g})
		default:
			d.send(InstanceFailed{Worker: w, Instance: id, Gen: g, Error: "fuzz"})
		}
	case 9:
		w := d.worker()
		r := WorkerReport{Worker: w, Rev: d.s.core.rev - min(d.s.core.rev, uint64(d.next()%3))}
		for range d.next() % 4 {
			id := d.instance()
			r.Running = append(r.Running, Run{Instance: id, Gen: d.gen(w, id)})
		}
		d.send(r)
	case 10:
		b := d.next()
		o := drain.Options{Force: b&1 != 0, MaxParallel: int(b>>1)%4 - 1 + int(b>>7)}
		if b&2 != 0 {
			o.Deadline = d.s.now.Add(time.Duration(int(d.next()%120)-5) * time.Second)
		}
		d.send(Drain{Worker: d.worker(), Options: o})
	case 11:
		d.send(Undrain{Worker: d.worker()})
	case 12:
		d.send(Cordon{Worker: d.worker()})
	case 13:
		d.send(Uncordon{Worker: d.worker()})
	case 14:
		d.send(Rebalance{Periodic: d.next()&1 == 0})
	case 15:
		advance(30)
		d.send(Tick{})
	case 16:
		advance(90)
		d.send(CheckFailures{})
		d.send(CleanupDrains{})
	case 17:
		d.rebuild()
	case 18:
		d.send(GetDrainStatus{Worker: d.worker()})
		d.send(GetSnapshot{})
	case 19:
		b := d.next()
		d.send(SetInstanceState{Key: d.spec().FunctionKey, Index: int(b%6) - 1, Running: b&0x80 != 0})
	case 20:
		d.send(RestartInstance{Key: d.spec().FunctionKey, Index: int(d.next()%6) - 1})
	default:
		d.idealAcks(int(d.next() % 8))
	}
}

// rebuild replaces the leader by one restored from the store.
func (d *fuzzDriver) rebuild() {
	st, err := d.s.store.Load(context.Background())
	if err != nil {
		d.s.fail("load: %v", err)
	}
	d.s.core = Restore(d.s.cfg, st)
	d.s.logf("rebuild")
	var mask byte
	for i, id := range d.ids {
		if d.live[id] {
			mask |= 1 << i
		}
	}
	d.membership(mask)
}

// idealAcks sends what well-behaved live workers would report next, for up
// to n instances (all when n is 0), as kit.converge does.
func (d *fuzzDriver) idealAcks(n int) int {
	var acks []Message
	for _, id := range sortedIDs(mapKeys(d.s.core.slots)) {
		a := d.s.core.slots[id].a
		if m := a.Move; m != nil {
			if m.Phase == Stopping {
				acks = append(acks, InstanceStopped{Worker: a.Worker, Instance: id, Gen: a.Gen})
			} else if d.live[m.Target] {
				acks = append(acks, InstanceStarted{Worker: m.Target, Instance: id, Gen: m.Gen})
			}
		}
		if !d.s.core.slots[id].running && !a.Stopped && d.live[a.Worker] && (a.Move == nil || a.Move.Phase == Starting) {
			acks = append(acks, InstanceStarted{Worker: a.Worker, Instance: id, Gen: a.Gen})
		}
	}
	if n > 0 && len(acks) > n {
		acks = acks[:n]
	}
	for _, m := range acks {
		d.send(m)
	}
	return len(acks)
}

func mapKeys[V any](m map[InstanceID]V) map[InstanceID]struct{} {
	out := make(map[InstanceID]struct{}, len(m))
	for k := range m {
		out[k] = struct{}{}
	}
	return out
}

// settle brings every worker back, lifts the cordons and plays ideal
// workers with the clock running, then checks that every move ended, every
// drain finished, and every instance runs on a live owner or cannot be
// placed anywhere.
func (d *fuzzDriver) settle() {
	d.s.logf("--- settle ---")
	d.membership(0xff)
	for _, id := range d.ids {
		d.send(Uncordon{Worker: id})
	}
	for _, k := range []string{"f0", "f1", "f2", "f3"} {
		d.send(SetInstanceState{Key: FunctionKey{"t", "ns", k}, Index: -1, Running: d.next()&1 == 0})
	}
	for range 80 {
		d.idealAcks(0)
		d.s.now = d.s.now.Add(10 * time.Second)
		d.send(Tick{})
		d.send(CheckFailures{})
		d.send(CleanupDrains{})
	}
	if n := d.idealAcks(0); n > 0 {
		d.s.fail("still %d acks to send after settling", n)
	}
	c := d.s.core
	if len(c.moving) > 0 {
		d.s.fail("%d move(s) in flight after settling", len(c.moving))
	}
	for id, dr := range c.drains {
		if dr.rec.Status == drain.Running {
			d.s.fail("drain %s still RUNNING after settling: %+v", id, dr.rec)
		}
	}
	_, cands := c.candidates(false)
	for id := range c.unassigned {
		if pickOne(cands, c.demandOf(id), nil) >= 0 {
			d.s.fail("%s unassigned although a worker can take it", id)
		}
	}
	for id, sl := range c.slots {
		if (!sl.running && !sl.a.Stopped) || !d.live[sl.a.Worker] {
			d.s.fail("%s on %s not running after settling", id, sl.a.Worker)
		}
	}
}
