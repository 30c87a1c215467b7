package scheduler

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fworker/fworker/drain"
)

// Undrain, cordon, record retention, failover and admission of drains.

func TestUndrain(t *testing.T) {
	cases := []struct {
		name    string
		running bool // undrain while the drain runs
	}{{"running drain", true}, {"finished drain", false}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := newKit(t, Config{}, "w0", "w1", "w2")
			k.createOn("w0", "f", 4, Resources{})
			k.converge()
			k.must(Drain{Worker: "w0", Options: drain.Options{MaxParallel: 2}})
			var confirmed, starting Assignment
			if tc.running {
				ms := k.movesOff("w0")
				k.ackStart(ms[0])
				confirmed, starting = k.movesOff("w0")[0], ms[1]
			} else {
				k.converge()
				k.wantStatus("w0", drain.Success, 4, 0)
			}
			k.must(Undrain{Worker: "w0"})
			if !hasEffect(k.last, func(e Effect) bool { r, ok := e.(RemoveDrain); return ok && r.Worker == "w0" }) {
				t.Fatal("undrain did not remove the persisted record")
			}
			if r := k.status("w0"); r.Status != drain.Error || r.LastError != "Worker w0 not found in drain records" {
				t.Fatalf("status after undrain %+v", r)
			}
			if tc.running {
				// The unconfirmed move is cancelled; the confirmed one completes.
				if a := k.c.slots[starting.Instance].a; a.Move != nil || a.Worker != "w0" {
					t.Fatalf("starting move not cancelled: %+v", a)
				}
				if a := k.c.slots[confirmed.Instance].a; a.Move == nil || a.Move.Phase != Stopping {
					t.Fatalf("confirmed move disturbed: %+v", a)
				}
				k.ackStop(confirmed)
				if a := k.c.slots[confirmed.Instance].a; a.Worker != confirmed.Move.Target {
					t.Fatalf("confirmed move did not complete: %+v", a)
				}
			}
			if len(k.movesOff("w0")) != 0 || !k.c.schedulable(k.c.workers["w0"]) {
				t.Fatal("w0 not schedulable again, or still moving instances off")
			}
			before := len(k.c.workers["w0"].owned)
			k.must(CreateFunction{Spec: fn("after", 9)})
			if len(k.c.workers["w0"].owned) <= before {
				t.Fatal("an undrained worker got nothing new")
			}
			k.must(Drain{Worker: "w0"}) // no prior-drain refusal
			k.checkBooks()
		})
	}
	t.Run("unknown", func(t *testing.T) {
		k := newKit(t, Config{}, "w0", "w1")
		for _, w := range []string{"nobody", "w0"} {
			var nr *drain.NoRecordError
			if _, err := k.step(Undrain{Worker: w}); !errors.As(err, &nr) || err.Error() != "Worker "+w+" not found in drain records" {
				t.Fatalf("undrain %s: %v", w, err)
			}
		}
	})
}

func hasEffect(effects []Effect, match func(Effect) bool) bool {
	for _, e := range effects {
		if match(e) {
			return true
		}
	}
	return false
}

func TestCordon(t *testing.T) {
	k := newKit(t, Config{}, "w0", "w1", "w2")
	k.createOn("w0", "f", 2, Resources{})
	k.converge()
	held := sortedIDs(k.c.workers["w0"].owned)
	k.must(Cordon{Worker: "w0"})
	k.must(Cordon{Worker: "w0"})
	if hasEffect(k.last, func(e Effect) bool { _, ok := e.(SaveCordon); return ok }) {
		t.Fatal("a second cordon wrote again")
	}
	k.must(CreateFunction{Spec: fn("g", 6)})
	k.must(Rebalance{})
	k.converge()
	if got := sortedIDs(k.c.workers["w0"].owned); len(got) != len(held) || got[0] != held[0] || got[1] != held[1] {
		t.Fatalf("cordoned w0 holds %v, want exactly %v", got, held)
	}
	for _, m := range []Message{Cordon{Worker: "nobody"}, Uncordon{Worker: "nobody"}} {
		var unknown *drain.UnknownWorkerError
		if _, err := k.step(m); !errors.As(err, &unknown) {
			t.Fatalf("%T of an unknown worker: %v", m, err)
		}
	}
	// Draining a cordoned worker is allowed (cordon first, then drain).
	k.must(Drain{Worker: "w0"})
	k.converge()
	k.wantStatus("w0", drain.Success, 2, 0)
	// With w0 drained and w1 cordoned, only w2 is available: too few.
	k.must(Cordon{Worker: "w1"})
	if _, err := k.step(Drain{Worker: "w2"}); !errors.Is(err, drain.ErrTooFewWorkers) {
		t.Fatalf("drain with one available worker: %v", err)
	}
	k.must(Uncordon{Worker: "w1"})
	k.must(CreateFunction{Spec: fn("h", 4)})
	if k.counts()["w1"] == 0 || k.counts()["w0"] != 0 {
		t.Fatalf("after uncordon: %v", k.counts())
	}
	k.checkBooks()
}

// Pulsar lets the leader drain itself (PulsarWorkerRebalanceDrainTest drains
// the leader on purpose): it stays a member and takes no work. The core has
// no notion of leader, so nothing is special.
func TestDrainLeader(t *testing.T) {
	k := newKit(t, Config{}, "leader", "w1", "w2")
	k.createN(9, 1)
	k.converge()
	k.must(Drain{Worker: "leader"})
	k.converge()
	k.wantStatus("leader", drain.Success, 3, 0)
	k.must(CreateFunction{Spec: fn("late", 5)})
	k.converge()
	if c := k.counts(); c["leader"] != 0 || c["w1"]+c["w2"] != 14 {
		t.Fatalf("counts %v", c)
	}
	found := false
	for _, w := range k.snap().Workers {
		found = found || (w.Info.ID == "leader" && w.Live)
	}
	if !found {
		t.Fatal("a drained leader must stay a member")
	}
}

func TestDrainRecordRetention(t *testing.T) {
	k := newKit(t, Config{DrainRecordRetention: 5 * time.Minute}, "w0", "w1", "w2")
	k.createN(6, 1)
	k.converge()
	k.must(Drain{Worker: "w0"})
	k.converge()
	k.must(SetMembership{Workers: infos("w1", "w2")}) // the drained worker is shut down
	left := k.now
	for _, tc := range []struct {
		after time.Duration
		want  drain.Status
	}{{0, drain.Success}, {time.Minute, drain.Success}, {5*time.Minute - time.Second, drain.Success}, {5 * time.Minute, drain.Error}} {
		k.now = left.Add(tc.after)
		k.must(CleanupDrains{})
		r := k.status("w0")
		if r.Status != tc.want {
			t.Fatalf("%s after leaving: %+v, want %s", tc.after, r, tc.want)
		}
		if tc.want == drain.Error && r.LastError != "Worker w0 not found in drain records" {
			t.Fatalf("lastError %q", r.LastError)
		}
	}
	k.checkBooks()
}

// A new leader restores from the store in the middle of a drain and
// finishes it with the right counts.
func TestDrainRestoreMidway(t *testing.T) {
	cfg := Config{}
	k := newKit(t, cfg, "w0", "w1", "w2")
	k.createOn("w0", "f", 6, Resources{})
	k.converge()
	k.must(Drain{Worker: "w0", Options: drain.Options{MaxParallel: 2}})
	ms := k.movesOff("w0")
	k.ackStart(ms[0])
	k.ackStop(ms[0]) // moved 1
	k.ackStart(k.movesOff("w0")[0])
	k.wantStatus("w0", drain.Running, 1, 5)

	st, err := k.store.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	k.c = Restore(cfg, st)
	k.advance(time.Second)
	if _, err := k.step(Drain{Worker: "w1"}); !errors.Is(err, ErrNotReady) {
		t.Fatalf("drain before the first membership: %v", err)
	}
	k.wantStatus("w0", drain.Running, 1, 5) // readable from the persisted record
	k.must(SetMembership{Workers: infos("w0", "w1", "w2")})
	k.checkBooks()
	k.converge()
	k.wantStatus("w0", drain.Success, 6, 0)
	if c := k.counts(); c["w0"] != 0 || c["w1"]+c["w2"] != 6 {
		t.Fatalf("counts %v", c)
	}
	k.checkBooks()
}

func TestDrainOptionsValidation(t *testing.T) {
	cases := []struct {
		name   string
		opts   drain.Options
		option string // "" when valid
	}{
		{"negative maxParallel", drain.Options{MaxParallel: -1}, "maxParallel"},
		{"deadline in the past", drain.Options{Deadline: t0.Add(-time.Second)}, "deadline"},
		{"deadline now", drain.Options{Deadline: t0}, "deadline"},
		{"deadline ahead", drain.Options{Deadline: t0.Add(time.Nanosecond)}, ""},
		{"force alone", drain.Options{Force: true}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := newKit(t, Config{}, "w0", "w1")
			_, err := k.step(Drain{Worker: "w0", Options: tc.opts})
			var inv *drain.InvalidOptionError
			switch {
			case tc.option == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.option != "" && (!errors.As(err, &inv) || inv.Option != tc.option):
				t.Fatalf("want *drain.InvalidOptionError for %s, got %v", tc.option, err)
			case tc.option != "" && len(k.c.drains) != 0:
				t.Fatal("an invalid drain left a record")
			}
		})
	}
}

func TestNotReadyBeforeMembership(t *testing.T) {
	cases := []struct {
		msg  Message
		want error
	}{
		{Drain{Worker: "w0"}, ErrNotReady},
		{Rebalance{}, ErrNotReady},
		{Rebalance{Periodic: true}, nil},
		{Tick{}, nil},
		{CheckFailures{}, nil},
		{CleanupDrains{}, nil},
		{CreateFunction{Spec: fn("early", 2)}, nil},
	}
	k := newKit(t, Config{})
	for _, tc := range cases {
		if _, err := k.step(tc.msg); !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
			t.Fatalf("%T before membership: %v, want %v", tc.msg, err, tc.want)
		}
	}
	if s := k.c.snapshot(); s.Ready || len(s.Assignments) != 0 || len(s.Unassigned) != 2 {
		t.Fatalf("not-ready snapshot %+v", s)
	}
	k.must(SetMembership{Workers: infos("w0", "w1")})
	if s := k.c.snapshot(); !s.Ready || len(s.Assignments) != 2 {
		t.Fatalf("after membership: %+v", s)
	}
}
