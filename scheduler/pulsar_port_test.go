package scheduler

import (
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/fworker/fworker/drain"
)

// Scenarios ported from Pulsar's SchedulerManagerTest and
// RoundRobinSchedulerTest. Like the originals, they assert counts, not
// which worker got which instance.

func TestPulsarDrain(t *testing.T) {
	k := newKit(t, Config{}, workerIDs(4)...)
	k.createN(20, 1)
	k.converge()
	if got := k.counts()["worker-0"]; got != 5 {
		t.Fatalf("worker-0 holds %d, want 5 (least-loaded placement)", got)
	}
	before := k.saves
	k.must(Drain{Worker: "worker-0"})
	k.converge()
	st := k.must(GetDrainStatus{Worker: "worker-0"}).(drain.Record)
	if st.Status != drain.Success || st.LastError != "" || st.Moved != 5 || st.Total != 5 || st.Remaining != 0 {
		t.Fatalf("status = %+v", st)
	}
	c := k.counts()
	if c["worker-0"] != 0 || c["worker-1"]+c["worker-2"]+c["worker-3"] != 20 {
		t.Fatalf("counts after drain = %v", c)
	}
	if k.saves == before {
		t.Fatal("drain published nothing")
	}
	// A drained worker gets nothing new.
	k.must(CreateFunction{Spec: fn("late", 3)})
	k.converge()
	if k.counts()["worker-0"] != 0 {
		t.Fatal("new instance placed on a drained worker")
	}
}

func TestPulsarGetDrainStatus(t *testing.T) {
	k := newKit(t, Config{MaxConcurrentDrains: 3}, workerIDs(5)...)
	k.createN(8, 1)
	k.converge()
	k.must(Drain{Worker: "worker-1"})
	k.converge() // worker-1 SUCCESS
	k.must(Drain{Worker: "worker-2"})
	// worker-2 RUNNING: its moves are not acked yet.
	cases := []struct {
		worker string
		status drain.Status
	}{
		{"worker-0", drain.Error},
		{"worker-1", drain.Success},
		{"worker-2", drain.Running},
		{"", drain.NotRun},
	}
	notFound := regexp.MustCompile(`(.)+(not found)(.)+`)
	for _, tc := range cases {
		st := k.must(GetDrainStatus{Worker: tc.worker}).(drain.Record)
		if st.Status != tc.status {
			t.Errorf("%q: status %s, want %s", tc.worker, st.Status, tc.status)
		}
		if tc.status == drain.Error && !notFound.MatchString(st.LastError) {
			t.Errorf("%q: lastError %q", tc.worker, st.LastError)
		}
		if tc.status != drain.Error && st.LastError != "" {
			t.Errorf("%q: lastError %q, want empty", tc.worker, st.LastError)
		}
	}
}

func TestPulsarDrainExceptions(t *testing.T) {
	k := newKit(t, Config{}, "worker-0")
	if _, err := k.step(Drain{Worker: "worker-0"}); !errors.Is(err, drain.ErrTooFewWorkers) {
		t.Fatalf("one worker: %v", err)
	}
	k.must(SetMembership{Workers: infos(workerIDs(5)...)})
	k.must(Drain{Worker: "worker-0"})
	var prior *drain.PriorDrainError
	if _, err := k.step(Drain{Worker: "worker-0"}); !errors.As(err, &prior) {
		t.Fatalf("second drain: %v", err)
	}
	var unknown *drain.UnknownWorkerError
	if _, err := k.step(Drain{Worker: "UnknownWorker"}); !errors.As(err, &unknown) {
		t.Fatalf("unknown: %v", err)
	}
	if unknown.Error() != "Worker UnknownWorker is not among the current workers in the system" {
		t.Fatalf("reason %q", unknown.Error())
	}
}

func TestDrainValidationOrder(t *testing.T) {
	// Pulsar's order: in progress (409) before too few (400) before prior
	// drain (412) before unknown worker (400).
	k := newKit(t, Config{}, workerIDs(3)...)
	k.createN(3, 1)
	k.converge()
	k.must(Drain{Worker: "worker-0"}) // RUNNING: acks withheld
	if _, err := k.step(Drain{Worker: "nobody"}); !errors.Is(err, drain.ErrDrainInProgress) {
		t.Fatalf("want in-progress first, got %v", err)
	}
	k.converge()
	k.must(Drain{Worker: "worker-1"})
	k.converge()
	// Only worker-2 is available now: too few beats prior-drain and unknown.
	for _, w := range []string{"worker-0", "nobody", "worker-2"} {
		if _, err := k.step(Drain{Worker: w}); !errors.Is(err, drain.ErrTooFewWorkers) {
			t.Fatalf("%s: want too few, got %v", w, err)
		}
	}
}

func TestPulsarUpdateWorkerDrainMap(t *testing.T) {
	k := newKit(t, Config{MaxConcurrentDrains: 5, DrainRecordRetention: time.Minute}, workerIDs(6)...)
	for i := range 5 {
		k.must(Drain{Worker: workerIDs(5)[i]})
	}
	k.must(SetMembership{Workers: infos("worker-0", "worker-1", "worker-2")})
	k.advance(time.Minute)
	k.must(CleanupDrains{})
	var left []string
	for _, r := range k.must(ListDrains{}).([]drain.Record) {
		left = append(left, r.Worker)
	}
	if len(left) != 3 || left[0] != "worker-0" || left[2] != "worker-2" {
		t.Fatalf("records left %v, want worker-0..2", left)
	}
	st := k.must(GetDrainStatus{Worker: "worker-4"}).(drain.Record)
	if st.Status != drain.Error || st.LastError != "Worker worker-4 not found in drain records" {
		t.Fatalf("purged status = %+v", st)
	}
}

func TestPulsarScheduling(t *testing.T) {
	k := newKit(t, Config{}, "worker-1")
	k.must(CreateFunction{Spec: fn("func-1", 1)})
	if k.saves != 1 {
		t.Fatalf("adding: %d sends", k.saves)
	}
	k.must(Tick{})
	if k.saves != 1 {
		t.Fatalf("nothing new: %d sends", k.saves)
	}
	k.must(CreateFunction{Spec: fn("func-2", 1)})
	if k.saves != 2 || k.counts()["worker-1"] != 2 {
		t.Fatalf("adding second: %d sends, %v", k.saves, k.counts())
	}
	// Scaling up re-sends instance 0 (its version changed) and adds 1, 2.
	k.must(UpdateFunction{Spec: fn("func-2", 3)})
	if k.saves != 5 {
		t.Fatalf("scaling up: %d sends, want 5", k.saves)
	}
	// Scaling down tombstones 1 and 2 and re-sends 0.
	k.must(UpdateFunction{Spec: fn("func-2", 1)})
	if k.saves != 8 || k.counts()["worker-1"] != 2 {
		t.Fatalf("scaling down: %d sends, %v", k.saves, k.counts())
	}
	// A package change re-sends every instance on the same worker.
	up := fn("func-2", 1)
	up.Package = "function://new"
	k.must(UpdateFunction{Spec: up})
	if k.saves != 9 {
		t.Fatalf("update: %d sends", k.saves)
	}
	if _, err := k.step(UpdateFunction{Spec: up}); !errors.Is(err, ErrNoChange) {
		t.Fatalf("no-change update: %v", err)
	}
	k.must(DeleteFunction{Key: up.FunctionKey})
	if k.saves != 10 || k.counts()["worker-1"] != 1 {
		t.Fatalf("deleting: %d sends, %v", k.saves, k.counts())
	}
}

func TestPulsarAssignmentWorkerDoesNotExist(t *testing.T) {
	spec := fn("func-2", 1)
	_ = spec.Normalize()
	st := State{
		Functions:   []Function{{Spec: spec, Version: 1}},
		Assignments: []Assignment{{Instance: InstanceID{spec.FunctionKey, 0}, Worker: "worker-2", Version: 1, Gen: 7, Rev: 3}},
	}
	k := &kit{t: t, c: Restore(Config{RescheduleTimeout: time.Minute}, st), now: t0, store: NewMemStore()}
	k.must(SetMembership{Workers: infos("worker-1")})
	if k.saves != 0 {
		t.Fatalf("%d sends before the failure checker ran", k.saves)
	}
	k.advance(59 * time.Second)
	k.must(CheckFailures{})
	if k.saves != 0 {
		t.Fatal("rescheduled before rescheduleTimeout")
	}
	k.advance(time.Second)
	k.must(CheckFailures{})
	if c := k.counts(); c["worker-1"] != 1 || c["worker-2"] != 0 {
		t.Fatalf("after timeout %v", c)
	}
}

func TestPulsarRebalance(t *testing.T) {
	k := newKit(t, Config{}, "worker-1")
	k.createN(10, 1)
	k.converge()
	k.must(SetMembership{Workers: infos(workerIDs(3)...)})
	before := k.saves
	k.must(Rebalance{})
	if moves := k.saves - before; moves != 6 {
		t.Fatalf("rebalance started %d moves, want 6", moves)
	}
	if _, err := k.step(Rebalance{}); !errors.Is(err, ErrRebalanceInProgress) {
		t.Fatalf("second rebalance: %v", err)
	}
	k.converge()
	c := k.counts()
	if c["worker-0"] != 3 || c["worker-2"] != 3 || c["worker-1"] != 4 {
		t.Fatalf("after rebalance %v", c)
	}
	k.must(Rebalance{}) // no longer in progress
	k.must(SetMembership{Workers: infos("worker-1")})
	if _, err := k.step(Rebalance{}); !errors.Is(err, drain.ErrTooFewWorkers) {
		t.Fatalf("one worker: %v", err)
	}
}
