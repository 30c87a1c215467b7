package pulsar

import (
	"context"
	"errors"
	"fmt"
	"time"

	pulsarclient "github.com/apache/pulsar-client-go/pulsar"

	"github.com/fworker/fworker/cluster"
	"github.com/fworker/fworker/scheduler"
)

// readerQueue is the receiver queue of the readers that scan a whole topic.
const readerQueue = 5000

// compactedReader reads a topic's compacted view from the earliest message.
func (s *session) compactedReader(t topic) (pulsarclient.Reader, error) {
	r, err := s.client.CreateReader(pulsarclient.ReaderOptions{
		Topic:             t.name,
		StartMessageID:    pulsarclient.EarliestMessageID(),
		ReadCompacted:     true,
		ReceiverQueueSize: readerQueue,
	})
	if err != nil {
		return nil, fmt.Errorf("pulsarcluster: reader on %s: %w", t.name, err)
	}
	return r, nil
}

// stallCheck is how long readToEnd waits for a message before it asks the
// broker again for the last one.
const stallCheck = 2 * time.Second

// readToEnd calls fn for every message up to the last one the topic had
// when it was called. Unlike Reader.HasNext, it reports errors instead of
// taking them for the end. If nothing comes for a while it asks again for
// the last message id: the one it waits for may have been a tombstone that
// compaction removed meanwhile.
func readToEnd(ctx context.Context, r pulsarclient.Reader, fn func(pulsarclient.Message) error) error {
	var read pulsarclient.MessageID // the last message read
	last, err := r.GetLastMessageID()
	for {
		if err != nil {
			return fmt.Errorf("pulsarcluster: last message id of %s: %w", r.Topic(), err)
		}
		if last.EntryID() < 0 || last.LedgerID() < 0 || (read != nil && reached(read, last)) {
			return nil // empty topic, or read to the end
		}
		nctx, cancel := context.WithTimeout(ctx, stallCheck)
		m, nerr := r.Next(nctx)
		cancel()
		switch {
		case nerr == nil:
			if err := fn(m); err != nil {
				return err
			}
			read = m.ID()
		case ctx.Err() == nil && errors.Is(nerr, context.DeadlineExceeded):
			last, err = r.GetLastMessageID()
		default:
			return fmt.Errorf("pulsarcluster: reading %s: %w", r.Topic(), nerr)
		}
	}
}

// reached reports whether id is at or past last. A last id without a batch
// index stands for its whole entry.
func reached(id, last pulsarclient.MessageID) bool {
	if id.LedgerID() != last.LedgerID() {
		return id.LedgerID() > last.LedgerID()
	}
	if id.EntryID() != last.EntryID() {
		return id.EntryID() > last.EntryID()
	}
	if last.BatchIdx() >= 0 {
		return id.BatchIdx() >= last.BatchIdx()
	}
	return id.BatchIdx() < 0 || id.BatchSize() <= 0 || id.BatchIdx() >= id.BatchSize()-1
}

func stateRecord(m pulsarclient.Message) record {
	return record{key: m.Key(), value: m.Payload(), removed: m.Properties()[propRemoved] == "true"}
}

// readState reads the whole state topic with r.
func readState(ctx context.Context, r pulsarclient.Reader) (*builder, error) {
	b := newBuilder()
	err := readToEnd(ctx, r, func(m pulsarclient.Message) error {
		return b.add(stateRecord(m), m.PublishTime())
	})
	return b, err
}

// loadState reads the state with a reader of its own.
func (s *session) loadState(ctx context.Context) (*builder, error) {
	r, err := s.compactedReader(s.b.topics.state)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readState(ctx, r)
}

// Follow reads the state with one reader to the end, hands it over as a
// Reset, then keeps reading and hands over every later record as an effect.
func (s *session) Follow(ctx context.Context, fn func(cluster.Update)) error {
	ctx, cancel := s.merge(ctx)
	defer cancel()
	if s.ctx.Err() != nil {
		return cluster.ErrClosed
	}
	r, err := s.compactedReader(s.b.topics.state)
	if err != nil {
		return s.closedOr(err)
	}
	defer r.Close()
	b, err := readState(ctx, r)
	if err != nil {
		return s.closedOr(err)
	}
	st := b.state()
	fn(cluster.Update{Reset: &st})
	for {
		m, err := r.Next(ctx)
		if err != nil {
			return s.closedOr(fmt.Errorf("pulsarcluster: following %s: %w", r.Topic(), err))
		}
		e, err := decode(stateRecord(m))
		if err != nil {
			s.log.Error("pulsarcluster: undecodable state record skipped", "key", m.Key(), "err", err)
			continue
		}
		if e != nil {
			fn(cluster.Update{Effects: []scheduler.Effect{e}})
		}
	}
}

// closedOr returns ErrClosed if the session closed, else err.
func (s *session) closedOr(err error) error {
	if s.ctx.Err() != nil {
		return cluster.ErrClosed
	}
	return err
}

// merge returns a context that also ends when the session closes.
func (s *session) merge(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}
