package scheduler

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// kit drives a core the way the actor does (step, then persist the effects)
// and plays ideal workers that run exactly what the records say and ack at
// once. Tests that need misbehaving workers use the simulator instead.
type kit struct {
	t     testing.TB
	c     *Core
	now   time.Time
	store *MemStore
	saves int // SaveAssignment + RemoveAssignment effects seen
	last  []Effect
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newKit(t testing.TB, cfg Config, workers ...string) *kit {
	k := &kit{t: t, c: New(cfg), now: t0, store: NewMemStore()}
	if workers != nil {
		k.step(SetMembership{Workers: infos(workers...)})
	}
	return k
}

func infos(ids ...string) []WorkerInfo {
	out := make([]WorkerInfo, len(ids))
	for i, id := range ids {
		out[i] = WorkerInfo{ID: id, Hostname: "host-" + id, Port: 5000}
	}
	return out
}

func workerIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("worker-%d", i)
	}
	return out
}

func (k *kit) step(m Message) (any, error) {
	k.t.Helper()
	res, err := k.c.Step(k.now, m)
	k.last = k.c.Ready()
	for _, e := range k.last {
		switch e.(type) {
		case SaveAssignment, RemoveAssignment:
			k.saves++
		}
	}
	if aerr := k.store.Apply(context.Background(), k.last); aerr != nil {
		k.t.Fatal(aerr)
	}
	return res, err
}

func (k *kit) must(m Message) any {
	k.t.Helper()
	res, err := k.step(m)
	if err != nil {
		k.t.Fatalf("%T: %v", m, err)
	}
	return res
}

func (k *kit) advance(d time.Duration) { k.now = k.now.Add(d) }

func (k *kit) snap() Snapshot { return k.must(GetSnapshot{}).(Snapshot) }

// converge plays ideal workers until nothing changes: every desired run is
// started and acked, every source in Stopping stops and acks.
func (k *kit) converge() {
	k.t.Helper()
	for range 10000 {
		var acks []Message
		for _, a := range k.snap().Assignments {
			if a.Move != nil {
				m := a.Move
				if m.Phase == Stopping {
					acks = append(acks, InstanceStopped{Worker: a.Worker, Instance: a.Instance, Gen: a.Gen})
				} else {
					acks = append(acks, InstanceStarted{Worker: m.Target, Instance: a.Instance, Gen: m.Gen})
				}
			}
			if !a.Running && (a.Move == nil || a.Move.Phase == Starting) {
				acks = append(acks, InstanceStarted{Worker: a.Worker, Instance: a.Instance, Gen: a.Gen})
			}
		}
		if len(acks) == 0 {
			return
		}
		for _, m := range acks {
			k.must(m)
		}
	}
	k.t.Fatal("did not converge")
}

func (k *kit) counts() map[string]int {
	out := map[string]int{}
	for w, ids := range byWorker(k.snap()) {
		out[w] = len(ids)
	}
	return out
}

func fn(name string, parallelism int) FunctionSpec {
	return FunctionSpec{FunctionKey: FunctionKey{"tenant-1", "namespace-1", name}, Parallelism: parallelism}
}

func (k *kit) createN(n, parallelism int) {
	for i := range n {
		k.must(CreateFunction{Spec: fn(fmt.Sprintf("func-%d", i), parallelism)})
	}
}

// runners lists the workers a record says should run the instance now.
func runners(a Assignment) []string {
	if a.Stopped {
		return nil
	}
	if a.Move == nil {
		return []string{a.Worker}
	}
	if a.Move.Phase == Starting {
		return []string{a.Worker, a.Move.Target}
	}
	return []string{a.Move.Target}
}

// byWorker is Pulsar's assignments view of a snapshot: owner -> ids.
func byWorker(s Snapshot) map[string][]string {
	out := map[string][]string{}
	for _, a := range s.Assignments {
		out[a.Worker] = append(out[a.Worker], a.Instance.String())
	}
	return out
}
