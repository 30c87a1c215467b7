package scheduler

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fworker/fworker/drain"
)

// The drain state machine through Core.Step. Workers ack by hand here, so
// that each test decides what is in flight when.

var unit = Resources{CPU: 1, RAM: 1 << 30, Disk: 1 << 30}

func capInfo(id string, cpu float64) WorkerInfo {
	return WorkerInfo{ID: id, Hostname: "host-" + id, Port: 5000, Capacity: &Resources{CPU: cpu, RAM: 64 << 30, Disk: 1 << 40}}
}

// createOn creates function name with p instances, all placed on worker w:
// every other schedulable worker is cordoned while it is created.
func (k *kit) createOn(w, name string, p int, res Resources) {
	k.t.Helper()
	var others []string
	for _, id := range sortedKeys(k.c.workers) {
		if ws := k.c.workers[id]; id != w && k.c.schedulable(ws) {
			others = append(others, id)
		}
	}
	for _, id := range others {
		k.must(Cordon{Worker: id})
	}
	spec := fn(name, p)
	spec.Resources = res
	k.must(CreateFunction{Spec: spec})
	for _, id := range others {
		k.must(Uncordon{Worker: id})
	}
	if n := len(k.c.workers[w].owned); n < p {
		k.t.Fatalf("%s holds %d instances, want at least %d", w, n, p)
	}
}

// movesOff lists the records of instances moving off worker w, in order.
func (k *kit) movesOff(w string) []Assignment {
	var out []Assignment
	for _, id := range sortedIDs(k.c.moving) {
		if a := k.c.slots[id].a; a.Worker == w {
			out = append(out, a.Clone())
		}
	}
	return out
}

func (k *kit) ackStart(a Assignment) {
	k.must(InstanceStarted{Worker: a.Move.Target, Instance: a.Instance, Gen: a.Move.Gen})
}
func (k *kit) ackStop(a Assignment) {
	k.must(InstanceStopped{Worker: a.Worker, Instance: a.Instance, Gen: a.Gen})
}

func (k *kit) status(w string) drain.Record { return k.must(GetDrainStatus{Worker: w}).(drain.Record) }

func (k *kit) wantStatus(w string, status drain.Status, moved, remaining int) drain.Record {
	k.t.Helper()
	r := k.status(w)
	if r.Status != status || r.Moved != moved || r.Remaining != remaining || r.Total != r.Moved+r.Remaining {
		k.t.Fatalf("drain %s = %+v, want %s moved %d remaining %d", w, r, status, moved, remaining)
	}
	return r
}

func TestDrainDeadline(t *testing.T) {
	cases := []struct {
		name     string
		workers  []WorkerInfo
		opts     drain.Options // Deadline is relative to t0
		before   func(k *kit)  // what happens before the deadline
		atDL     func(t *testing.T, k *kit)
		status   drain.Status
		moved    int
		left     int // instances still on w0 at the end
		unplaced int
		lastErr  string
	}{{
		name: "no force: ERROR, the rest stays, the move in flight is cancelled",
		opts: drain.Options{Deadline: t0.Add(30 * time.Second), MaxParallel: 1},
		before: func(k *kit) {
			a := k.movesOff("w0")[0]
			k.ackStart(a)
			k.ackStop(a) // one done; the next one starts and hangs
		},
		atDL: func(t *testing.T, k *kit) {
			if got := len(k.c.workers["w0"].owned); got != 1 || len(k.movesOff("w0")) != 0 {
				t.Fatalf("w0 holds %d with %d moves, want 1 and none", got, len(k.movesOff("w0")))
			}
			for id := range k.c.workers["w0"].owned {
				if r := runners(k.c.slots[id].a); len(r) != 1 || r[0] != "w0" {
					t.Fatalf("%s desired on %v after the cancel", id, r)
				}
			}
		},
		status: drain.Error, moved: 1, left: 1, lastErr: "deadline passed with 1 of 2 instance(s) still on worker w0",
	}, {
		name: "force: what is left moves FORCED, SUCCESS once the targets confirm",
		opts: drain.Options{Deadline: t0.Add(30 * time.Second), Force: true, MaxParallel: 1},
		atDL: func(t *testing.T, k *kit) {
			ms := k.movesOff("w0")
			if len(ms) != 2 {
				t.Fatalf("%d moves off w0 after the deadline, want 2", len(ms))
			}
			for _, a := range ms {
				if _, on := a.DesiredOn("w0"); a.Move.Phase != Forced || on {
					t.Fatalf("%s: phase %s, still desired on the source: %v", a.Instance, a.Move.Phase, on)
				}
			}
			k.wantStatus("w0", drain.Running, 0, 2)
		},
		status: drain.Success, moved: 2,
	}, {
		name:    "force, one fits nowhere: stopped, unassigned, ERROR with Unplaced",
		workers: []WorkerInfo{capInfo("w0", 8), capInfo("w1", 1)},
		opts:    drain.Options{Deadline: t0.Add(30 * time.Second), Force: true},
		atDL: func(t *testing.T, k *kit) {
			if len(k.c.unassigned) != 1 || len(k.c.workers["w0"].owned) != 1 {
				t.Fatalf("unassigned %d, w0 holds %d; want 1 and 1", len(k.c.unassigned), len(k.c.workers["w0"].owned))
			}
		},
		status: drain.Error, moved: 1, unplaced: 1, lastErr: "1 instance(s) were stopped with no other worker to take them",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := newKit(t, Config{})
			if tc.workers == nil {
				tc.workers = infos("w0", "w1", "w2")
			}
			k.must(SetMembership{Workers: tc.workers})
			k.createOn("w0", "f", 2, unit)
			k.converge()
			k.must(Drain{Worker: "w0", Options: tc.opts})
			if tc.before != nil {
				tc.before(k)
			}
			k.advance(29 * time.Second)
			k.must(Tick{})
			if r := k.status("w0"); r.Status != drain.Running {
				t.Fatalf("before the deadline: %+v", r)
			}
			k.advance(time.Second)
			k.must(Tick{})
			k.checkBooks()
			tc.atDL(t, k)
			for _, a := range k.movesOff("w0") {
				k.ackStart(a)
			}
			k.checkBooks()
			r := k.wantStatus("w0", tc.status, tc.moved, tc.left)
			if got := len(k.c.workers["w0"].owned); got != tc.left {
				t.Fatalf("w0 still holds %d, want %d", got, tc.left)
			}
			if r.Unplaced != tc.unplaced || !strings.Contains(r.LastError, tc.lastErr) || (tc.lastErr == "") != (r.LastError == "") {
				t.Fatalf("record %+v, want unplaced %d and lastError containing %q", r, tc.unplaced, tc.lastErr)
			}
		})
	}
}

func TestDrainCapacityDryRun(t *testing.T) {
	cases := []struct {
		name   string
		caps   []float64 // CPU of w1, w2 (w0 has 8 and holds two 1-CPU instances)
		used   int       // 1-CPU instances already on w1
		reject string    // expected refusal without force, "" if it fits
		forced drain.Status
	}{
		{name: "fits", caps: []float64{2, 2}, forced: drain.Running},
		{name: "one does not fit", caps: []float64{2}, used: 1,
			reject: "Cannot drain worker w0: 1 of 2 instances do not fit on the other workers (cpu 2.000 needed, 1.000 free; ram 2147483648 needed, 67645734912 free; disk 2147483648 needed, 1098437885952 free); retry with force to drain anyway",
			forced: drain.Running},
		{name: "nothing fits, no deadline: forced drain is stuck and ends in ERROR", caps: []float64{0.5},
			reject: "2 of 2 instances do not fit", forced: drain.Error},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := []WorkerInfo{capInfo("w0", 8)}
			for i, c := range tc.caps {
				ws = append(ws, capInfo(fmt.Sprintf("w%d", i+1), c))
			}
			k := newKit(t, Config{})
			k.must(SetMembership{Workers: ws})
			if tc.used > 0 {
				k.createOn("w1", "busy", tc.used, unit)
			}
			k.createOn("w0", "f", 2, unit)
			k.converge()
			_, err := k.step(Drain{Worker: "w0"})
			var capErr *drain.CapacityError
			switch {
			case tc.reject == "" && err != nil:
				t.Fatalf("drain refused: %v", err)
			case tc.reject != "" && !errors.As(err, &capErr):
				t.Fatalf("want a *drain.CapacityError, got %v", err)
			case tc.reject != "" && !strings.Contains(err.Error(), tc.reject):
				t.Fatalf("refusal %q\nwant it to contain %q", err, tc.reject)
			}
			if tc.reject == "" {
				return
			}
			if len(k.c.drains) != 0 || len(k.c.moving) != 0 {
				t.Fatal("a refused drain left a record or moves behind")
			}
			rec := k.must(Drain{Worker: "w0", Options: drain.Options{Force: true}}).(drain.Record)
			if !rec.Force || rec.Status != drain.Running {
				t.Fatalf("forced drain admitted as %+v", rec)
			}
			k.converge()
			r := k.status("w0")
			if tc.forced == drain.Error {
				if r.Status != drain.Error || !strings.Contains(r.LastError, "no other worker can take the 2 remaining instance(s) of worker w0") {
					t.Fatalf("stuck drain = %+v", r)
				}
				if len(k.c.workers["w0"].owned) != 2 {
					t.Fatal("a stuck drain must leave the instances where they run")
				}
				return
			}
			// One moved, one has nowhere to go: ERROR once the move is done.
			if r.Status != drain.Error || r.Moved != 1 || !strings.Contains(r.LastError, "1 remaining instance(s)") {
				t.Fatalf("partly stuck drain = %+v", r)
			}
		})
	}
}

func TestDrainMaxParallel(t *testing.T) {
	for _, tc := range []struct{ opt, want int }{{1, 1}, {2, 2}, {3, 3}, {0, 2 /* Config default */}, {20, 7}} {
		t.Run(fmt.Sprintf("maxParallel=%d", tc.opt), func(t *testing.T) {
			k := newKit(t, Config{DrainMaxParallelMoves: 2}, "w0", "w1", "w2", "w3")
			k.createOn("w0", "f", 7, Resources{})
			k.converge()
			k.must(Drain{Worker: "w0", Options: drain.Options{MaxParallel: tc.opt}})
			peak := 0
			for step := 0; ; step++ {
				ms := k.movesOff("w0")
				rec := k.status("w0")
				owned := len(k.c.workers["w0"].owned)
				if want := min(tc.want, owned); len(ms) != want || rec.InFlight != len(ms) {
					t.Fatalf("step %d: %d in flight (record says %d), want %d", step, len(ms), rec.InFlight, want)
				}
				peak = max(peak, len(ms))
				if len(ms) == 0 {
					break
				}
				// Alternate: confirm a start, then confirm a stop.
				if a := ms[0]; a.Move.Phase == Starting {
					k.ackStart(a)
				} else {
					k.ackStop(a)
				}
				k.checkBooks()
			}
			if peak != tc.want {
				t.Fatalf("peak %d moves in flight, want %d", peak, tc.want)
			}
			k.wantStatus("w0", drain.Success, 7, 0)
		})
	}
}

func TestDrainMoveRetry(t *testing.T) {
	cases := []struct {
		name string
		fail func(k *kit, a Assignment) // makes the first target give up
	}{
		{"move timeout", func(k *kit, a Assignment) {
			k.advance(9 * time.Second)
			k.must(Tick{})
			if got := k.c.slots[a.Instance].a.Move; got.Target != a.Move.Target || got.Gen != a.Move.Gen {
				k.t.Fatalf("retried before the timeout: %+v", got)
			}
			k.advance(time.Second)
			k.must(Tick{})
		}},
		{"target failed", func(k *kit, a Assignment) {
			k.must(InstanceFailed{Worker: a.Move.Target, Instance: a.Instance, Gen: a.Move.Gen - 1, Error: "stale"})
			if got := k.c.slots[a.Instance].a.Move; got.Target != a.Move.Target {
				k.t.Fatalf("a failure with another generation retried the move: %+v", got)
			}
			k.must(InstanceFailed{Worker: a.Move.Target, Instance: a.Instance, Gen: a.Move.Gen, Error: "boom"})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := newKit(t, Config{MoveTimeout: 10 * time.Second}, "w0", "w1", "w2")
			k.createOn("w0", "f", 1, Resources{})
			k.converge()
			k.must(Drain{Worker: "w0"})
			first := k.movesOff("w0")[0]
			tc.fail(k, first)
			retried := k.movesOff("w0")
			if len(retried) != 1 {
				t.Fatalf("%d moves after the retry", len(retried))
			}
			m := retried[0].Move
			if m.Target == first.Move.Target || m.Target == "w0" || m.Phase != Starting || m.Gen == first.Move.Gen ||
				len(m.Tried) != 1 || m.Tried[0] != first.Move.Target || !m.Expires.Equal(k.now.Add(10*time.Second)) {
				t.Fatalf("retried move %+v; first target %s", m, first.Move.Target)
			}
			k.ackStart(first) // the first target's late ack is stale now
			if k.c.slots[first.Instance].a.Move.Phase != Starting {
				t.Fatal("a stale ack from the abandoned target advanced the move")
			}
			k.ackStart(retried[0])
			k.ackStop(retried[0])
			k.wantStatus("w0", drain.Success, 1, 0)
			if a := k.c.slots[first.Instance].a; a.Worker != m.Target {
				t.Fatalf("instance ended on %s, want %s", a.Worker, m.Target)
			}
			k.checkBooks()
		})
	}
}
