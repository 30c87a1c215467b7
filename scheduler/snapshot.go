package scheduler

import (
	"slices"
	"time"

	"github.com/fworker/fworker/drain"
)

// WorkerView is one worker as the scheduler sees it.
type WorkerView struct {
	Info       WorkerInfo `json:"info"`
	Live       bool       `json:"live"`
	DepartedAt time.Time  `json:"departedAt,omitzero"`
	Cordoned   bool       `json:"cordoned"`
	Drained    bool       `json:"drained"` // has a drain record
	Instances  int        `json:"instances"`
	Incoming   int        `json:"incoming"`
}

// AssignmentView is an assignment with what the owner last confirmed.
type AssignmentView struct {
	Assignment
	Running bool `json:"running"`
}

// Snapshot is a consistent copy of the scheduling state, taken between two
// messages. Lists are sorted. Nothing in it is shared with the core.
type Snapshot struct {
	Ready       bool             `json:"ready"`
	Time        time.Time        `json:"time"`
	Workers     []WorkerView     `json:"workers"`
	Functions   []Function       `json:"functions"`
	Assignments []AssignmentView `json:"assignments"`
	Unassigned  []InstanceID     `json:"unassigned"`
	Drains      []drain.Record   `json:"drains"`
}

func (c *Core) snapshot() Snapshot {
	s := Snapshot{Ready: c.ready, Time: c.now, Drains: c.listDrains(), Unassigned: sortedIDs(c.unassigned)}
	for _, id := range sortedKeys(c.workers) {
		w := c.workers[id]
		info := w.info
		if info.Capacity != nil {
			capa := *info.Capacity
			info.Capacity = &capa
		}
		s.Workers = append(s.Workers, WorkerView{
			Info: info, Live: w.live, DepartedAt: w.departedAt, Cordoned: w.cordoned,
			Drained: c.drains[id] != nil, Instances: len(w.owned), Incoming: w.incoming,
		})
	}
	keys := make([]FunctionKey, 0, len(c.functions))
	for k := range c.functions {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, FunctionKey.Compare)
	for _, k := range keys {
		f := *c.functions[k]
		f.Spec.Details = slices.Clone(f.Spec.Details)
		s.Functions = append(s.Functions, f)
	}
	ids := make(map[InstanceID]struct{}, len(c.slots))
	for id := range c.slots {
		ids[id] = struct{}{}
	}
	for _, id := range sortedIDs(ids) {
		sl := c.slots[id]
		s.Assignments = append(s.Assignments, AssignmentView{Assignment: sl.a.Clone(), Running: sl.running})
	}
	return s
}
