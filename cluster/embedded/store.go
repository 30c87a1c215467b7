package embedded

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/fworker/fworker/cluster"
	"github.com/fworker/fworker/drain"
	"github.com/fworker/fworker/scheduler"
)

var (
	bFunctions   = []byte("functions")
	bAssignments = []byte("assignments")
	bDrains      = []byte("drains")
	bCordons     = []byte("cordons")
	bMeta        = []byte("meta")
	bPackages    = []byte("packages")
	kGen         = []byte("gen")
	kRev         = []byte("rev")
)

func createBuckets(tx *bolt.Tx) error {
	for _, b := range [][]byte{bFunctions, bAssignments, bDrains, bCordons, bMeta, bPackages} {
		if _, err := tx.CreateBucketIfNotExists(b); err != nil {
			return err
		}
	}
	return nil
}

// store is a session's view of the persisted scheduling state.
type store struct{ s *session }

func (st store) Load(context.Context) (scheduler.State, error) {
	h := st.s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.load()
}

// Apply commits the effects in one transaction if this session leads, then
// hands them to every follower.
func (st store) Apply(_ context.Context, effects []scheduler.Effect) error {
	h := st.s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return cluster.ErrClosed
	}
	if h.leaderLocked() != st.s {
		return cluster.ErrNotLeader
	}
	var records []scheduler.Effect
	err := h.db.Update(func(tx *bolt.Tx) error {
		gen, rev := getU64(tx, kGen), getU64(tx, kRev)
		for _, e := range effects {
			if _, ok := e.(scheduler.Event); ok {
				continue
			}
			if err := applyOne(tx, e); err != nil {
				return err
			}
			gen, rev = scheduler.HighWater(gen, rev, e)
			records = append(records, e)
		}
		if err := putU64(tx, kGen, gen); err != nil {
			return err
		}
		return putU64(tx, kRev, rev)
	})
	if err != nil {
		return fmt.Errorf("embedded: commit: %w", err)
	}
	if len(records) > 0 {
		for f := range h.subs {
			f.push(records)
		}
	}
	return nil
}

func applyOne(tx *bolt.Tx, e scheduler.Effect) error {
	put := func(bucket []byte, key string, v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return tx.Bucket(bucket).Put([]byte(key), data)
	}
	del := func(bucket []byte, key string) error { return tx.Bucket(bucket).Delete([]byte(key)) }
	switch e := e.(type) {
	case scheduler.SaveAssignment:
		return put(bAssignments, e.Assignment.Instance.String(), e.Assignment)
	case scheduler.RemoveAssignment:
		return del(bAssignments, e.Instance.String())
	case scheduler.SaveFunction:
		return put(bFunctions, e.Function.Spec.FunctionKey.String(), e.Function)
	case scheduler.RemoveFunction:
		return del(bFunctions, e.Key.String())
	case scheduler.SaveDrain:
		return put(bDrains, e.Record.Worker, e.Record)
	case scheduler.RemoveDrain:
		return del(bDrains, e.Worker)
	case scheduler.SaveCordon:
		if e.Cordoned {
			return tx.Bucket(bCordons).Put([]byte(e.Worker), []byte{1})
		}
		return del(bCordons, e.Worker)
	}
	return fmt.Errorf("unknown effect %T", e)
}

// load reads the whole state; the caller holds h.mu.
func (h *Hub) load() (scheduler.State, error) {
	var st scheduler.State
	err := h.db.View(func(tx *bolt.Tx) error {
		st.Gen, st.Rev = getU64(tx, kGen), getU64(tx, kRev)
		if err := each(tx, bFunctions, func(f scheduler.Function) { st.Functions = append(st.Functions, f) }); err != nil {
			return err
		}
		if err := each(tx, bAssignments, func(a scheduler.Assignment) { st.Assignments = append(st.Assignments, a) }); err != nil {
			return err
		}
		if err := each(tx, bDrains, func(r drain.Record) { st.Drains = append(st.Drains, r) }); err != nil {
			return err
		}
		return tx.Bucket(bCordons).ForEach(func(k, _ []byte) error {
			st.Cordoned = append(st.Cordoned, string(k))
			return nil
		})
	})
	return st, err
}

func each[T any](tx *bolt.Tx, bucket []byte, fn func(T)) error {
	return tx.Bucket(bucket).ForEach(func(k, v []byte) error {
		var x T
		if err := json.Unmarshal(v, &x); err != nil {
			return fmt.Errorf("embedded: %s/%s: %w", bucket, k, err)
		}
		fn(x)
		return nil
	})
}

func getU64(tx *bolt.Tx, key []byte) uint64 {
	v := tx.Bucket(bMeta).Get(key)
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

func putU64(tx *bolt.Tx, key []byte, x uint64) error {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], x)
	return tx.Bucket(bMeta).Put(key, b[:])
}
