package scheduler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fworker/fworker/drain"
)

// Benchmarks of placement and of the core's heavy messages. Results and
// the command are in docs/benchmarks.md. Setup that is not the measured
// operation runs with the timer stopped.

func si(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1_000 && n%1_000 == 0:
		return fmt.Sprintf("%dk", n/1_000)
	}
	return fmt.Sprint(n)
}

// benchCands returns m candidates with loads 0..99 and seeded ranks; with
// limited set, each offers 64 CPU and 256 GiB.
func benchCands(m int, limited bool) []Candidate {
	rng := rand.New(rand.NewPCG(1, 2))
	cs := make([]Candidate, m)
	for i := range cs {
		cs[i] = Candidate{Load: rng.IntN(100), Rank: rankOf(1, fmt.Sprintf("worker-%d", i))}
		if limited {
			cs[i].Limited = true
			cs[i].Free = demand{cpu: 64_000, ram: 256 << 30, disk: 1 << 40}
		}
	}
	return cs
}

func BenchmarkPlaceLeastLoaded(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		for _, m := range []int{1_000, 10_000} {
			b.Run(fmt.Sprintf("N=%s/M=%s", si(n), si(m)), func(b *testing.B) {
				base := benchCands(m, false)
				cands := make([]Candidate, m)
				out := make([]int32, 0, n)
				b.ReportAllocs()
				for b.Loop() {
					copy(cands, base) // 0.1% of the work at M=10k
					out = PlaceLeastLoaded(cands, n, out)
				}
				if len(out) != n {
					b.Fatalf("placed %d", len(out))
				}
			})
		}
	}
}

func BenchmarkPlaceFit(b *testing.B) {
	cases := []struct {
		name string
		n, m int
		full int // workers (of the least loaded) without room
	}{
		{"N=100k/M=1k/roomy", 100_000, 1_000, 0},
		{"N=10k/M=1k/half-full", 10_000, 1_000, 500},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			base := benchCands(tc.m, true)
			for i := range tc.full {
				base[i].Load, base[i].Free = 0, demand{} // least loaded, but full
			}
			rng := rand.New(rand.NewPCG(3, 4))
			demands := make([]demand, tc.n)
			for i := range demands {
				demands[i] = demand{cpu: int64(100 + rng.IntN(400)), ram: int64(1+rng.IntN(4)) << 28, disk: 1 << 30}
			}
			cands := make([]Candidate, tc.m)
			out := make([]int32, 0, tc.n)
			b.ReportAllocs()
			for b.Loop() {
				copy(cands, base)
				out = PlaceFit(cands, demands, out)
			}
			for _, w := range out {
				if w < 0 {
					b.Fatal("an instance did not fit")
				}
			}
		})
	}
}

// benchState builds, once, the persisted state of a cluster of m workers
// where worker-0 holds onFirst instances and every other worker perEach,
// in functions of at most MaxParallelism instances each.
func benchState(b *testing.B, m, onFirst, perEach int, capacity bool) (State, []WorkerInfo) {
	b.Helper()
	ws := make([]WorkerInfo, m)
	for i := range ws {
		ws[i] = WorkerInfo{ID: fmt.Sprintf("worker-%d", i), Hostname: "h", Port: 6750}
		if capacity {
			ws[i].Capacity = &Resources{CPU: 20_000, RAM: 1 << 50, Disk: 1 << 50}
		}
	}
	k := newKit(b, Config{Seed: 1})
	k.must(SetMembership{Workers: ws})
	create := func(prefix string, n int) {
		for i := 0; n > 0; i++ {
			p := min(n, MaxParallelism)
			spec := fn(fmt.Sprintf("%s-%d", prefix, i), p)
			spec.Resources = Resources{CPU: 0.5, RAM: 256 << 20, Disk: 1 << 30}
			k.must(CreateFunction{Spec: spec})
			n -= p
		}
	}
	k.must(Cordon{Worker: ws[0].ID})
	create("spread", perEach*(m-1))
	k.must(Uncordon{Worker: ws[0].ID})
	if onFirst > 0 {
		for _, w := range ws[1:] {
			k.must(Cordon{Worker: w.ID})
		}
		create("heavy", onFirst)
		for _, w := range ws[1:] {
			k.must(Uncordon{Worker: w.ID})
		}
	}
	if got := len(k.c.workers["worker-0"].owned); got < onFirst {
		b.Fatalf("worker-0 holds %d, want %d", got, onFirst)
	}
	st, err := k.store.Load(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return st, ws
}

func restoreBench(b *testing.B, st State, ws []WorkerInfo) *Core {
	c := Restore(Config{Seed: 1}, st)
	if _, err := c.Step(t0, SetMembership{Workers: ws}); err != nil {
		b.Fatal(err)
	}
	c.Ready()
	return c
}

// BenchmarkDrainPlanning measures one Drain message: admission, the
// capacity dry run (PlaceFit over the other workers) and the first moves.
// Undrain, untimed, puts the core back between iterations.
func BenchmarkDrainPlanning(b *testing.B) {
	st, ws := benchState(b, 100, 10_000, 100, true)
	c := restoreBench(b, st, ws)
	now := t0.Add(time.Second)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		rec, err := c.Step(now, Drain{Worker: "worker-0"})
		if err != nil || rec.(drain.Record).Total != 10_000 {
			b.Fatalf("drain: %+v, %v", rec, err)
		}
		c.Ready()
		b.StopTimer()
		if _, err := c.Step(now, Undrain{Worker: "worker-0"}); err != nil {
			b.Fatal(err)
		}
		c.Ready()
		b.StartTimer()
	}
}

func BenchmarkRebalanceSkewed(b *testing.B) {
	const n, m = 100_000, 1_000
	b.Run("PlanRebalance", func(b *testing.B) {
		loads := make([]int, m)
		ranks := make([]uint64, m)
		loads[0] = n
		for i := range ranks {
			ranks[i] = rankOf(1, fmt.Sprintf("worker-%d", i))
		}
		b.ReportAllocs()
		for b.Loop() {
			if plan := PlanRebalance(loads, ranks); len(plan) != m-1 {
				b.Fatalf("%d transfers", len(plan))
			}
		}
	})
	b.Run("Core", func(b *testing.B) {
		st, ws := benchState(b, m, n, 0, false)
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			b.StopTimer()
			c := restoreBench(b, st, ws) // rebalance moves cannot be undone
			b.StartTimer()
			if _, err := c.Step(t0, Rebalance{}); err != nil {
				b.Fatal(err)
			}
			c.Ready()
			if len(c.moving) != n-n/m {
				b.Fatalf("%d moves", len(c.moving))
			}
		}
	})
}

// BenchmarkCoreSchedule places 100k instances on 1000 workers through
// Core.Step: ten CreateFunction messages of 10k instances each.
func BenchmarkCoreSchedule(b *testing.B) {
	ws := make([]WorkerInfo, 1_000)
	for i := range ws {
		ws[i] = WorkerInfo{ID: fmt.Sprintf("worker-%d", i), Hostname: "h", Port: 6750}
	}
	b.ReportAllocs()
	for range b.N {
		b.StopTimer()
		c := New(Config{Seed: 1})
		c.Step(t0, SetMembership{Workers: ws})
		c.Ready()
		b.StartTimer()
		for f := range 10 {
			if _, err := c.Step(t0, CreateFunction{Spec: fn(fmt.Sprintf("f-%d", f), MaxParallelism)}); err != nil {
				b.Fatal(err)
			}
			c.Ready()
		}
		if len(c.slots) != 100_000 {
			b.Fatalf("%d placed", len(c.slots))
		}
	}
}
