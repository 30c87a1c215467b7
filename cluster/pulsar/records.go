package pulsar

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/fworker/fworker/drain"
	"github.com/fworker/fworker/scheduler"
)

// State topic keys. Values are JSON; see the package doc.
const (
	kFunction   = "f/" // + tenant/namespace/name
	kAssignment = "a/" // + tenant/namespace/name:index
	kDrain      = "d/" // + worker id
	kCordon     = "c/" // + worker id
	kHighWater  = "h"  // {"gen":..,"rev":..}, the last message of every batch

	propRemoved = "removed" // message property of a removal marker
	// propTombstone marks an empty payload: pulsar-client-go v0.19.0
	// discards a non-batched empty message without properties as corrupt
	// (fixed upstream by apache/pulsar-client-go#1482).
	propTombstone = "tombstone"
)

// record is one message of the state topic.
type record struct {
	key     string
	value   []byte // nil: a purged tombstone (empty payload)
	removed bool   // a removal marker: the key is gone, value holds {"rev":..}
}

type highWater struct {
	Gen uint64 `json:"gen"`
	Rev uint64 `json:"rev"`
}

type removal struct {
	Rev uint64 `json:"rev,omitempty"`
}

type cordon struct {
	Cordoned bool `json:"cordoned"`
}

// encode turns one effect into a record; Events and unknown effects give
// ok=false.
func encode(e scheduler.Effect) (r record, ok bool, err error) {
	save := func(key string, v any) (record, bool, error) {
		b, err := json.Marshal(v)
		return record{key: key, value: b}, err == nil, err
	}
	remove := func(key string, rev uint64) (record, bool, error) {
		b, _ := json.Marshal(removal{Rev: rev})
		return record{key: key, value: b, removed: true}, true, nil
	}
	switch e := e.(type) {
	case scheduler.SaveAssignment:
		return save(kAssignment+e.Assignment.Instance.String(), e.Assignment)
	case scheduler.RemoveAssignment:
		return remove(kAssignment+e.Instance.String(), e.Rev)
	case scheduler.SaveFunction:
		return save(kFunction+e.Function.Spec.FunctionKey.String(), e.Function)
	case scheduler.RemoveFunction:
		return remove(kFunction+e.Key.String(), 0)
	case scheduler.SaveDrain:
		return save(kDrain+e.Record.Worker, e.Record)
	case scheduler.RemoveDrain:
		return remove(kDrain+e.Worker, 0)
	case scheduler.SaveCordon:
		if e.Cordoned {
			return save(kCordon+e.Worker, cordon{Cordoned: true})
		}
		return remove(kCordon+e.Worker, 0)
	}
	return record{}, false, nil
}

// decode maps a record back to the effect it persisted. The high-water
// record gives none. A purged tombstone gives the removal with Rev 0.
func decode(r record) (scheduler.Effect, error) {
	gone := r.removed || len(r.value) == 0
	var rm removal
	if r.removed {
		if err := json.Unmarshal(r.value, &rm); err != nil {
			return nil, fmt.Errorf("pulsarcluster: record %s: %w", r.key, err)
		}
	}
	k, id, _ := strings.Cut(r.key, "/")
	if id == "" {
		return nil, nil // the high-water record, or a foreign key
	}
	switch k + "/" {
	case kAssignment:
		inst, err := scheduler.ParseInstanceID(id)
		if err != nil {
			return nil, fmt.Errorf("pulsarcluster: record %s: %w", r.key, err)
		}
		if gone {
			return scheduler.RemoveAssignment{Instance: inst, Rev: rm.Rev}, nil
		}
		var a scheduler.Assignment
		err = json.Unmarshal(r.value, &a)
		return scheduler.SaveAssignment{Assignment: a}, wrap(r, err)
	case kFunction:
		key, err := scheduler.ParseFunctionKey(id)
		if err != nil {
			return nil, fmt.Errorf("pulsarcluster: record %s: %w", r.key, err)
		}
		if gone {
			return scheduler.RemoveFunction{Key: key}, nil
		}
		var f scheduler.Function
		err = json.Unmarshal(r.value, &f)
		return scheduler.SaveFunction{Function: f}, wrap(r, err)
	case kDrain:
		if gone {
			return scheduler.RemoveDrain{Worker: id}, nil
		}
		var d drain.Record
		err := json.Unmarshal(r.value, &d)
		return scheduler.SaveDrain{Record: d}, wrap(r, err)
	case kCordon:
		return scheduler.SaveCordon{Worker: id, Cordoned: !gone}, nil
	}
	return nil, nil
}

func wrap(r record, err error) error {
	if err != nil {
		return fmt.Errorf("pulsarcluster: record %s: %w", r.key, err)
	}
	return nil
}

// builder folds records, in topic order, into a State.
type builder struct {
	functions   map[string]scheduler.Function
	assignments map[string]scheduler.Assignment
	drains      map[string]drain.Record
	cordoned    map[string]bool
	gen, rev    uint64
	// markers are the keys whose latest record is a removal marker, with
	// its publish time: the leader purges them after TombstoneDelay.
	markers map[string]time.Time
}

func newBuilder() *builder {
	return &builder{
		functions:   map[string]scheduler.Function{},
		assignments: map[string]scheduler.Assignment{},
		drains:      map[string]drain.Record{},
		cordoned:    map[string]bool{},
		markers:     map[string]time.Time{},
	}
}

func (b *builder) add(r record, published time.Time) error {
	if r.key == kHighWater {
		if len(r.value) == 0 {
			return nil
		}
		var h highWater
		if err := json.Unmarshal(r.value, &h); err != nil {
			return fmt.Errorf("pulsarcluster: high-water record: %w", err)
		}
		b.gen, b.rev = max(b.gen, h.Gen), max(b.rev, h.Rev)
		return nil
	}
	e, err := decode(r)
	if err != nil || e == nil {
		return err
	}
	b.gen, b.rev = scheduler.HighWater(b.gen, b.rev, e)
	delete(b.markers, r.key)
	if r.removed {
		b.markers[r.key] = published
	}
	switch e := e.(type) {
	case scheduler.SaveAssignment:
		b.assignments[r.key] = e.Assignment
	case scheduler.RemoveAssignment:
		delete(b.assignments, r.key)
	case scheduler.SaveFunction:
		b.functions[r.key] = e.Function
	case scheduler.RemoveFunction:
		delete(b.functions, r.key)
	case scheduler.SaveDrain:
		b.drains[r.key] = e.Record
	case scheduler.RemoveDrain:
		delete(b.drains, r.key)
	case scheduler.SaveCordon:
		if e.Cordoned {
			b.cordoned[e.Worker] = true
		} else {
			delete(b.cordoned, e.Worker)
		}
	}
	return nil
}

// state returns the folded state, in key order.
func (b *builder) state() scheduler.State {
	st := scheduler.State{Gen: b.gen, Rev: b.rev}
	for _, k := range sortedKeys(b.functions) {
		st.Functions = append(st.Functions, b.functions[k])
	}
	for _, k := range sortedKeys(b.assignments) {
		st.Assignments = append(st.Assignments, b.assignments[k])
	}
	for _, k := range sortedKeys(b.drains) {
		st.Drains = append(st.Drains, b.drains[k])
	}
	st.Cordoned = sortedKeys(b.cordoned)
	return st
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
