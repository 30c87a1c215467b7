package pulsar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	pulsarclient "github.com/apache/pulsar-client-go/pulsar"

	"github.com/fworker/fworker/cluster"
	"github.com/fworker/fworker/scheduler"
)

// writer is the leader's fenced access to the state topic: at most one
// exclusive producer, created in one leadership term. Its mutex serializes
// Apply, a leader's Load, the marker purge and the producer's life, so the
// state it remembers (gen, rev, markers) is what the topic holds.
type writer struct {
	s *session

	mu     sync.Mutex
	p      pulsarclient.Producer // nil: none
	term   uint64                // the term p was created in
	seeded bool                  // gen, rev and markers were read since p was created
	gen    uint64
	rev    uint64
	// markers: keys whose latest record is a removal marker, and when it
	// was written; purge turns the old ones into real tombstones.
	markers map[string]time.Time
}

// acquire gets the exclusive producer for the current term, retrying while
// this session leads. It never waits inside the broker (no
// WaitForExclusive): each attempt fails at once if another producer holds
// the topic.
func (w *writer) acquire(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.acquireLocked(ctx)
}

func (w *writer) acquireLocked(ctx context.Context) error {
	wait := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		term, leads, changed := w.s.leadership()
		if !leads {
			w.closeLocked()
			return cluster.ErrNotLeader
		}
		if w.p != nil && w.term == term {
			return nil
		}
		w.closeLocked()
		p, err := w.s.client.CreateProducer(pulsarclient.ProducerOptions{
			Topic:              w.s.b.topics.state.name,
			Name:               w.s.self.ID + "-leader",
			ProducerAccessMode: pulsarclient.ProducerAccessModeExclusive,
		})
		if err == nil {
			if t, ok, _ := w.s.leadership(); ok && t == term {
				w.p, w.term = p, term
				w.s.log.Info("pulsarcluster: exclusive producer acquired", "term", term, "attempts", attempt)
				return nil
			}
			p.Close()
			continue
		}
		w.s.log.Debug("pulsarcluster: exclusive producer busy; retrying", "term", term, "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-changed: // recheck leadership at once
		case <-t.C:
		}
		t.Stop()
		wait = min(2*wait, time.Second)
	}
}

// release closes the producer unless it belongs to the current term of a
// session that still leads.
func (w *writer) release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if term, leads, _ := w.s.leadership(); !leads || term != w.term {
		w.closeLocked()
	}
}

func (w *writer) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closeLocked()
}

func (w *writer) closeLocked() {
	if w.p == nil {
		return
	}
	w.p.Close()
	w.p, w.seeded, w.markers = nil, false, nil
	w.s.log.Info("pulsarcluster: exclusive producer closed", "term", w.term)
}

// load reads the state while holding the producer, so no other session
// can write until this leader has it all.
func (w *writer) load(ctx context.Context) (*builder, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.acquireLocked(ctx); err != nil {
		return nil, err
	}
	return w.seedLocked(ctx)
}

func (w *writer) seedLocked(ctx context.Context) (*builder, error) {
	b, err := w.s.loadState(ctx)
	if err != nil {
		return nil, err
	}
	w.gen, w.rev, w.markers, w.seeded = b.gen, b.rev, b.markers, true
	return b, nil
}

// apply writes the records of effects, then the high-water record, and
// waits until the broker has persisted all of them.
func (w *writer) apply(ctx context.Context, effects []scheduler.Effect, recs []record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.acquireLocked(ctx); err != nil {
		return err
	}
	if !w.seeded {
		if _, err := w.seedLocked(ctx); err != nil {
			return err
		}
	}
	gen, rev := w.gen, w.rev
	for _, e := range effects {
		gen, rev = scheduler.HighWater(gen, rev, e)
	}
	recs = append(recs, highWaterRecord(gen, rev))
	if err := w.sendLocked(ctx, recs); err != nil {
		return err
	}
	w.gen, w.rev = gen, rev
	now := time.Now()
	for _, r := range recs {
		if r.removed {
			w.markers[r.key] = now
		} else {
			delete(w.markers, r.key)
		}
	}
	return nil
}

// purge replaces removal markers written before older by empty payloads,
// which compaction then drops. It does nothing unless the producer of term
// is held and seeded.
func (w *writer) purge(ctx context.Context, term uint64, older time.Time) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if t, leads, _ := w.s.leadership(); !leads || t != term || w.p == nil || w.term != term || !w.seeded {
		return 0, nil
	}
	var recs []record
	for k, at := range w.markers {
		if at.Before(older) {
			recs = append(recs, record{key: k})
		}
	}
	if len(recs) == 0 {
		return 0, nil
	}
	n := len(recs)
	recs = append(recs, highWaterRecord(w.gen, w.rev))
	if err := w.sendLocked(ctx, recs); err != nil {
		return 0, err
	}
	for _, r := range recs[:n] {
		delete(w.markers, r.key)
	}
	return n, nil
}

func highWaterRecord(gen, rev uint64) record {
	b, _ := json.Marshal(highWater{Gen: gen, Rev: rev})
	return record{key: kHighWater, value: b}
}

// sendLocked sends recs in order and waits for every one. On any failure
// the producer is closed: the batch may be partly written, and the next
// write starts from a fresh producer and a fresh read.
func (w *writer) sendLocked(ctx context.Context, recs []record) error {
	g := &sendGroup{}
	for _, r := range recs {
		m := &pulsarclient.ProducerMessage{Key: r.key, Payload: r.value}
		switch {
		case r.removed:
			m.Properties = map[string]string{propRemoved: "true"}
		case len(r.value) == 0:
			m = tombstone(r.key)
		}
		g.send(ctx, w.p, m)
	}
	err := w.p.FlushWithCtx(ctx)
	if werr := g.wait(ctx); err == nil {
		err = werr
	}
	if err == nil {
		return nil
	}
	w.closeLocked()
	if fenced(err) {
		return fmt.Errorf("%w: %w", cluster.ErrNotLeader, err)
	}
	if _, leads, _ := w.s.leadership(); !leads {
		return fmt.Errorf("%w: %w", cluster.ErrNotLeader, err)
	}
	return fmt.Errorf("pulsarcluster: writing %s: %w", w.s.b.topics.state.name, err)
}

// fenced reports whether err says another producer took the topic.
func fenced(err error) bool {
	if errors.Is(err, pulsarclient.ErrProducerFenced) || errors.Is(err, pulsarclient.ErrProducerClosed) {
		return true
	}
	var pe *pulsarclient.Error
	return errors.As(err, &pe) && (pe.Result() == pulsarclient.ProducerFenced || pe.Result() == pulsarclient.ProducerClosed)
}

// store is a session's scheduler.Store.
type store struct{ s *session }

// Load reads the whole state. A leader first takes the exclusive producer,
// so that it reads everything the previous leader wrote.
func (st store) Load(ctx context.Context) (scheduler.State, error) {
	s := st.s
	ctx, cancel := s.merge(ctx)
	defer cancel()
	if s.ctx.Err() != nil {
		return scheduler.State{}, cluster.ErrClosed
	}
	var b *builder
	var err error
	if _, leads, _ := s.leadership(); leads {
		b, err = s.w.load(ctx)
	}
	if b == nil && (err == nil || errors.Is(err, cluster.ErrNotLeader)) {
		b, err = s.loadState(ctx)
	}
	if err != nil {
		return scheduler.State{}, s.closedOr(err)
	}
	return b.state(), nil
}

// Apply persists effects through the exclusive producer, in order, and
// returns when all are durable. Events are not persisted.
func (st store) Apply(ctx context.Context, effects []scheduler.Effect) error {
	s := st.s
	if s.ctx.Err() != nil {
		return cluster.ErrClosed
	}
	if _, leads, _ := s.leadership(); !leads {
		return cluster.ErrNotLeader
	}
	recs := make([]record, 0, len(effects)+1)
	for _, e := range effects {
		r, ok, err := encode(e)
		if err != nil {
			return fmt.Errorf("pulsarcluster: encode %T: %w", e, err)
		}
		if ok {
			recs = append(recs, r)
		}
	}
	if len(recs) == 0 {
		return nil
	}
	ctx, cancel := s.merge(ctx)
	defer cancel()
	if err := s.w.apply(ctx, effects, recs); err != nil {
		return s.closedOr(err)
	}
	return nil
}
