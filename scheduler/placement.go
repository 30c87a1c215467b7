package scheduler

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"slices"
)

// Placement rules, the same outcome as Pulsar's RoundRobinScheduler (the
// least-loaded worker takes the next instance; rebalance until
// max - min <= 1), but O(N log M) with a reproducible tie-break: among
// equally loaded workers the one with the smaller seeded rank wins.

// demand is a resource vector in integer units (milli-CPU, bytes, bytes), so
// that sums never drift.
type demand struct{ cpu, ram, disk int64 }

func demandOf(r Resources) demand {
	return demand{cpu: int64(math.Round(r.CPU * 1000)), ram: r.RAM, disk: r.Disk}
}

func (d demand) add(o demand) demand { return demand{d.cpu + o.cpu, d.ram + o.ram, d.disk + o.disk} }
func (d demand) sub(o demand) demand { return demand{d.cpu - o.cpu, d.ram - o.ram, d.disk - o.disk} }
func (d demand) fits(free demand) bool {
	return d.cpu <= free.cpu && d.ram <= free.ram && d.disk <= free.disk
}

// rankOf is a worker's seeded tie-break rank.
func rankOf(seed int64, id string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(seed))
	h.Write(b[:])
	h.Write([]byte(id))
	x := h.Sum64()
	// splitmix64 finalizer, so that similar ids spread well.
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// Candidate is a worker that may take instances.
type Candidate struct {
	Load    int // instances it owns or is receiving
	Rank    uint64
	Limited bool   // false: unlimited resources
	Free    demand // meaningful when Limited
}

func less(a, b *Candidate) bool {
	if a.Load != b.Load {
		return a.Load < b.Load
	}
	return a.Rank < b.Rank
}

// candHeap is a binary min-heap of candidate indexes ordered by less.
type candHeap struct {
	c   []Candidate
	idx []int32
}

func newCandHeap(c []Candidate) *candHeap {
	h := &candHeap{c: c, idx: make([]int32, len(c))}
	for i := range c {
		h.idx[i] = int32(i)
	}
	for i := len(h.idx)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	return h
}

func (h *candHeap) lessAt(i, j int) bool { return less(&h.c[h.idx[i]], &h.c[h.idx[j]]) }

func (h *candHeap) down(i int) {
	n := len(h.idx)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.lessAt(r, l) {
			m = r
		}
		if !h.lessAt(m, i) {
			return
		}
		h.idx[i], h.idx[m] = h.idx[m], h.idx[i]
		i = m
	}
}

func (h *candHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.lessAt(i, p) {
			return
		}
		h.idx[i], h.idx[p] = h.idx[p], h.idx[i]
		i = p
	}
}

func (h *candHeap) push(ci int32) {
	h.idx = append(h.idx, ci)
	h.up(len(h.idx) - 1)
}

func (h *candHeap) pop() int32 {
	top := h.idx[0]
	last := len(h.idx) - 1
	h.idx[0] = h.idx[last]
	h.idx = h.idx[:last]
	if last > 0 {
		h.down(0)
	}
	return top
}

// PlaceLeastLoaded assigns n unit instances, in order, each to the least
// loaded candidate at that moment, and returns the candidate index of each.
// Candidates' loads are updated. Resource limits are ignored.
// It runs in O(M + N log M).
func PlaceLeastLoaded(cands []Candidate, n int, out []int32) []int32 {
	out = out[:0]
	if len(cands) == 0 {
		return out
	}
	h := newCandHeap(cands)
	for range n {
		top := h.idx[0]
		out = append(out, top)
		cands[top].Load++
		h.down(0)
	}
	return out
}

// PlaceFit assigns each demand, in order, to the least loaded candidate that
// still has room for it, or -1 when none has. Candidates' loads and free
// resources are updated.
func PlaceFit(cands []Candidate, demands []demand, out []int32) []int32 {
	out = out[:0]
	if len(cands) == 0 || len(demands) == 0 {
		for range demands {
			out = append(out, -1)
		}
		return out
	}
	// A candidate that cannot hold even the smallest demand never will
	// again (free space only shrinks here): it leaves the heap for good,
	// so full workers are not popped and pushed back for every instance.
	smallest := demands[0]
	for _, d := range demands[1:] {
		smallest = demand{min(smallest.cpu, d.cpu), min(smallest.ram, d.ram), min(smallest.disk, d.disk)}
	}
	h := newCandHeap(cands)
	var skipped []int32
	for _, d := range demands {
		chosen := int32(-1)
		for len(h.idx) > 0 {
			top := h.pop()
			c := &cands[top]
			if !c.Limited || d.fits(c.Free) {
				chosen = top
				c.Load++
				if c.Limited {
					c.Free = c.Free.sub(d)
				}
				h.push(top)
				break
			}
			if smallest.fits(c.Free) {
				skipped = append(skipped, top)
			}
		}
		for _, s := range skipped {
			h.push(s)
		}
		skipped = skipped[:0]
		out = append(out, chosen)
	}
	return out
}

// pickOne returns the index of the least loaded candidate that fits d and
// is allowed, or -1. O(M).
func pickOne(cands []Candidate, d demand, allowed func(int) bool) int {
	best := -1
	for i := range cands {
		c := &cands[i]
		if c.Limited && !d.fits(c.Free) {
			continue
		}
		if allowed != nil && !allowed(i) {
			continue
		}
		if best < 0 || less(c, &cands[best]) {
			best = i
		}
	}
	return best
}

// Transfer is "move Count instances from worker From to worker To" in a
// rebalance plan (indexes into the loads given to PlanRebalance).
type Transfer struct{ From, To, Count int }

// PlanRebalance computes the fewest unit moves that leave max - min <= 1.
// Workers that keep one instance more than the floor are the most loaded
// ones (fewer moves); ties go by rank. O(M log M).
func PlanRebalance(loads []int, ranks []uint64) []Transfer {
	m := len(loads)
	if m < 2 {
		return nil
	}
	total := 0
	for _, l := range loads {
		total += l
	}
	base, extra := total/m, total%m
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if loads[a] != loads[b] {
			return loads[b] - loads[a]
		}
		switch {
		case ranks[a] < ranks[b]:
			return -1
		case ranks[a] > ranks[b]:
			return 1
		}
		return a - b
	})
	target := make([]int, m)
	for pos, w := range order {
		target[w] = base
		if pos < extra {
			target[w]++
		}
	}
	var plan []Transfer
	give, take := 0, m-1 // order is by load descending: donors first
	have := make([]int, m)
	copy(have, loads)
	for give < m && take >= 0 {
		for give < m && have[order[give]] <= target[order[give]] {
			give++
		}
		for take >= 0 && have[order[take]] >= target[order[take]] {
			take--
		}
		if give >= m || take < 0 {
			break
		}
		from, to := order[give], order[take]
		n := min(have[from]-target[from], target[to]-have[to])
		plan = append(plan, Transfer{From: from, To: to, Count: n})
		have[from] -= n
		have[to] += n
	}
	return plan
}
