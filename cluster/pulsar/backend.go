package pulsar

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/admin"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/rest"

	"github.com/fworker/fworker/cluster"
	"github.com/fworker/fworker/scheduler"
)

// Backend is a cluster.Backend on a Pulsar cluster. It holds the admin
// client and the topic names; every Session has a Pulsar client of its own.
type Backend struct {
	opts   Options
	topics topics
	// members is where the participants are seen: partition 0 of the
	// coordination topic (or the topic itself if it is not partitioned).
	members topic
	admin   admin.Client
	log     *slog.Logger

	mu       sync.Mutex
	sessions map[string]*session // by worker id
	closed   bool
}

var _ cluster.Backend = (*Backend)(nil)

// Open checks the options, creates the four topics if they are missing and
// makes sure the state and packages topics have the broker's compaction
// cursor, which keeps their data until compacted (see the package doc).
func Open(ctx context.Context, opts Options) (*Backend, error) {
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	ts, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	adm, err := admin.New(opts.adminConfig())
	if err != nil {
		return nil, fmt.Errorf("pulsarcluster: admin client: %w", err)
	}
	b := &Backend{opts: opts, topics: ts, admin: adm, log: opts.Log, sessions: map[string]*session{}}
	if b.members, err = b.ensureCoordination(ctx); err != nil {
		return nil, err
	}
	for _, t := range []topic{ts.state, ts.reports, ts.packages} {
		if err := b.ensureTopic(ctx, t, 0); err != nil {
			return nil, err
		}
	}
	for _, t := range []topic{ts.state, ts.packages} {
		if err := b.ensureCompactionCursor(ctx, t); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// Close closes every session of this backend.
func (b *Backend) Close() error {
	b.mu.Lock()
	b.closed = true
	ss := make([]*session, 0, len(b.sessions))
	for _, s := range b.sessions {
		if s != nil { // nil: a Join in progress, which sees closed
			ss = append(ss, s)
		}
	}
	b.mu.Unlock()
	var errs []error
	for _, s := range ss {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

// Join subscribes self to the coordination topic and returns once the
// first membership poll has seen it. Worker ids must not contain ':'.
func (b *Backend) Join(ctx context.Context, self scheduler.WorkerInfo) (cluster.Session, error) {
	if self.ID == "" || strings.Contains(self.ID, ":") {
		return nil, fmt.Errorf("pulsarcluster: worker id %q must be non-empty and without ':'", self.ID)
	}
	b.mu.Lock()
	switch {
	case b.closed:
		b.mu.Unlock()
		return nil, cluster.ErrClosed
	case b.sessions[self.ID] != nil:
		b.mu.Unlock()
		return nil, fmt.Errorf("pulsarcluster: worker %s already joined", self.ID)
	}
	b.sessions[self.ID] = nil // reserved
	b.mu.Unlock()

	s, err := b.newSession(ctx, self)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil || b.closed {
		delete(b.sessions, self.ID)
		if err == nil {
			s.Close()
			err = cluster.ErrClosed
		}
		return nil, err
	}
	b.sessions[self.ID] = s
	return s, nil
}

func (b *Backend) forget(s *session) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sessions[s.self.ID] == s {
		delete(b.sessions, s.self.ID)
	}
}

func (b *Backend) ensureTopic(ctx context.Context, t topic, partitions int) error {
	ctx, cancel := b.withTimeout(ctx)
	defer cancel()
	err := b.admin.Topics().CreateWithContext(ctx, t.tn, partitions)
	if err == nil || isStatus(err, http.StatusConflict) {
		return nil
	}
	return fmt.Errorf("pulsarcluster: create topic %s: %w", t.name, err)
}

// ensureCoordination creates the coordination topic with one partition:
// on a partition the broker makes the participant with the smallest
// consumer name active, while on a non-partitioned topic it picks one by a
// hash of the topic name (AbstractDispatcherSingleActiveConsumer), so the
// leader could move whenever a worker joins. It returns where the
// participants' stats are.
func (b *Backend) ensureCoordination(ctx context.Context) (topic, error) {
	t := b.topics.coord
	if err := b.ensureTopic(ctx, t, 1); err != nil {
		return topic{}, err
	}
	mctx, cancel := b.withTimeout(ctx)
	defer cancel()
	md, err := b.admin.Topics().GetMetadataWithContext(mctx, t.tn)
	if err != nil {
		return topic{}, fmt.Errorf("pulsarcluster: metadata of %s: %w", t.name, err)
	}
	switch md.Partitions {
	case 0:
		b.log.Warn("pulsarcluster: the coordination topic is not partitioned; the broker picks the leader by hash and may move it when a worker joins", "topic", t.name)
		return t, nil
	case 1:
	default:
		return topic{}, fmt.Errorf("pulsarcluster: coordination topic %s has %d partitions, want 1", t.name, md.Partitions)
	}
	p, err := t.tn.GetPartition(0)
	if err != nil {
		return topic{}, err
	}
	return topic{name: p.String(), tn: *p}, nil
}

// ensureCompactionCursor runs compaction once on a topic that never had
// it: the cursor it leaves behind holds the topic's data, which a topic
// without subscriptions and without retention would otherwise lose.
func (b *Backend) ensureCompactionCursor(ctx context.Context, t topic) error {
	ctx, cancel := b.withTimeout(ctx)
	defer cancel()
	st, err := b.admin.Topics().GetStatsWithContext(ctx, t.tn)
	if err != nil {
		return fmt.Errorf("pulsarcluster: stats of %s: %w", t.name, err)
	}
	if _, ok := st.Subscriptions[compactionSubscription]; ok {
		return nil
	}
	if err := b.compact(ctx, t); err != nil {
		return err
	}
	b.log.Info("pulsarcluster: first compaction started", "topic", t.name)
	return nil
}

// compact triggers compaction; one already running is fine.
func (b *Backend) compact(ctx context.Context, t topic) error {
	err := b.admin.Topics().CompactWithContext(ctx, t.tn)
	if err == nil || isStatus(err, http.StatusConflict) {
		return nil
	}
	return fmt.Errorf("pulsarcluster: compact %s: %w", t.name, err)
}

func isStatus(err error, code int) bool {
	var re rest.Error
	return errors.As(err, &re) && re.Code == code
}

// withTimeout bounds an admin call.
func (b *Backend) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, b.opts.OperationTimeout)
}
