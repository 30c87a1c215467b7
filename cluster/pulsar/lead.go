package pulsar

import (
	"context"
	"time"

	pulsarclient "github.com/apache/pulsar-client-go/pulsar"
)

// leaderTerm is the leader's work in one term: the reports reader and the
// eager acquisition of the exclusive producer. The loop owns it.
type leaderTerm struct {
	term   uint64
	ctx    context.Context
	cancel context.CancelFunc
}

// startLeading runs on the loop before the view says this session leads:
// the reports reader is reading when the view changes. warmUp follows the
// view change.
func (s *session) startLeading() {
	s.mu.Lock()
	s.term++
	term := s.term
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(s.ctx)
	s.lead = &leaderTerm{term: term, ctx: ctx, cancel: cancel}
	r, err := s.reportsReader()
	if err != nil {
		s.log.Warn("pulsarcluster: reports reader; retrying", "err", err)
	}
	s.wg.Add(1)
	go s.readReports(ctx, r)
	s.log.Info("pulsarcluster: leading", "term", term)
}

// warmUp takes the exclusive producer now rather than at the first write:
// it fences the previous leader as early as possible.
func (s *session) warmUp() {
	lt := s.lead
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := s.w.acquire(lt.ctx); err != nil && lt.ctx.Err() == nil {
			s.log.Warn("pulsarcluster: exclusive producer not acquired", "term", lt.term, "err", err)
		}
	}()
}

// stopLeading runs on the loop after the view says this session does not
// lead. The producer is closed off the loop: an Apply may hold it.
func (s *session) stopLeading() {
	s.lead.cancel()
	s.log.Info("pulsarcluster: stopped leading", "term", s.lead.term)
	s.lead = nil
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.w.release()
	}()
}

func (s *session) reportsReader() (pulsarclient.Reader, error) {
	return s.client.CreateReader(pulsarclient.ReaderOptions{
		Topic:          s.b.topics.reports.name,
		StartMessageID: pulsarclient.LatestMessageID(),
	})
}

// readReports delivers observations to Reports() until ctx ends. A full
// channel drops them: the next WorkerReport repairs the loss.
func (s *session) readReports(ctx context.Context, r pulsarclient.Reader) {
	defer s.wg.Done()
	defer func() {
		if r != nil {
			r.Close()
		}
	}()
	for ctx.Err() == nil {
		if r == nil {
			var err error
			if r, err = s.reportsReader(); err != nil {
				s.log.Warn("pulsarcluster: reports reader", "err", err)
				pause(ctx, time.Second)
				continue
			}
		}
		m, err := r.Next(ctx)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Warn("pulsarcluster: reading reports; reopening", "err", err)
				r.Close()
				r = nil
				pause(ctx, time.Second)
			}
			continue
		}
		msg, err := decodeReport(m.Payload())
		if err != nil {
			s.log.Warn("pulsarcluster: undecodable report skipped", "err", err)
			continue
		}
		select {
		case s.reports <- msg:
		default:
			s.log.Warn("pulsarcluster: reports channel full, observation dropped")
		}
	}
}

// maintain runs on the loop's compaction tick while leading, in a
// goroutine of its own, one at a time: it purges old removal markers and
// compacts the state and packages topics if they changed.
func (s *session) maintain() {
	if s.lead == nil || !s.maintaining.CompareAndSwap(false, true) {
		return
	}
	lt := s.lead
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.maintaining.Store(false)
		n, err := s.w.purge(lt.ctx, lt.term, time.Now().Add(-s.b.opts.TombstoneDelay))
		if err != nil {
			s.log.Warn("pulsarcluster: purging removal markers", "err", err)
		} else if n > 0 {
			s.log.Info("pulsarcluster: removal markers purged", "count", n)
		}
		for _, t := range []topic{s.b.topics.state, s.b.topics.packages} {
			if err := s.compactIfChanged(lt.ctx, t); err != nil && lt.ctx.Err() == nil {
				s.log.Warn("pulsarcluster: compaction", "topic", t.name, "err", err)
			}
		}
	}()
}

func (s *session) compactIfChanged(ctx context.Context, t topic) error {
	ctx, cancel := s.b.withTimeout(ctx)
	defer cancel()
	last, err := s.b.admin.Topics().GetLastMessageIDWithContext(ctx, t.tn)
	if err != nil {
		return err
	}
	id := last.String()
	if s.lastCompacted[t.name] == id {
		return nil
	}
	if err := s.b.compact(ctx, t); err != nil {
		return err
	}
	s.lastCompacted[t.name] = id
	return nil
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
