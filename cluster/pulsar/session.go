package pulsar

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	pulsarclient "github.com/apache/pulsar-client-go/pulsar"

	"github.com/fworker/fworker/cluster"
	"github.com/fworker/fworker/scheduler"
)

// Consumer properties of a participant.
const (
	propID     = "id"         // "<workerId>:<host>:<port>", as the Java worker
	propWorker = "workerInfo" // the WorkerInfo JSON, capacity included
)

// reportsBuffer is the capacity of Reports().
const reportsBuffer = 4096

// session is one worker's membership. See the package doc for which
// goroutine owns what.
type session struct {
	b      *Backend
	self   scheduler.WorkerInfo
	log    *slog.Logger
	client pulsarclient.Client
	member pulsarclient.Consumer // on the "participants" failover subscription
	w      *writer
	ctx    context.Context // ends at Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// The failover listener's hand-off to the loop.
	events    chan struct{} // capacity 1
	lastEvent atomic.Int32  // eventActive or eventInactive

	reports chan scheduler.Message

	mu      sync.Mutex // guards view, changed, term
	view    cluster.View
	changed chan struct{}
	term    uint64 // counts leadership terms; the current one while leading

	// Owned by the loop goroutine (and by Join before the loop starts).
	lead *leaderTerm

	// Owned by the maintenance goroutine, one at a time.
	maintaining   atomic.Bool
	lastCompacted map[string]string // topic -> last message id at the last compaction

	pmu      sync.Mutex // guards the shared producers
	reporter pulsarclient.Producer
	packager pulsarclient.Producer

	closeOnce sync.Once
}

var _ cluster.Session = (*session)(nil)

const (
	eventActive = iota + 1
	eventInactive
)

func (b *Backend) newSession(ctx context.Context, self scheduler.WorkerInfo) (*session, error) {
	client, err := pulsarclient.NewClient(b.opts.clientOptions())
	if err != nil {
		return nil, fmt.Errorf("pulsarcluster: client: %w", err)
	}
	sctx, cancel := context.WithCancel(context.Background())
	s := &session{
		b: b, self: self, log: b.log.With("worker", self.ID), client: client,
		ctx: sctx, cancel: cancel,
		events:        make(chan struct{}, 1),
		reports:       make(chan scheduler.Message, reportsBuffer),
		changed:       make(chan struct{}),
		lastCompacted: map[string]string{},
	}
	s.w = &writer{s: s}
	info, err := json.Marshal(self)
	if err != nil {
		s.abort()
		return nil, err
	}
	name := consumerName(self)
	s.member, err = client.Subscribe(pulsarclient.ConsumerOptions{
		Topic:                       b.topics.coord.name,
		SubscriptionName:            participants,
		Type:                        pulsarclient.Failover,
		Name:                        name,
		Properties:                  map[string]string{propID: name, propWorker: string(info)},
		SubscriptionInitialPosition: pulsarclient.SubscriptionPositionEarliest,
		EventListener:               listener{s},
	})
	if err != nil {
		s.abort()
		return nil, fmt.Errorf("pulsarcluster: join %s: %w", b.topics.coord.name, err)
	}
	pctx, pcancel := b.withTimeout(ctx)
	o, err := s.observe(pctx)
	pcancel()
	if err != nil {
		s.abort()
		return nil, err
	}
	s.publish(o)
	s.wg.Add(1)
	go s.loop()
	s.log.Info("pulsarcluster: joined", "members", len(o.members), "leader", o.leader.ID)
	return s, nil
}

func consumerName(w scheduler.WorkerInfo) string {
	return w.ID + ":" + w.Hostname + ":" + strconv.Itoa(w.Port)
}

// abort undoes a failed Join.
func (s *session) abort() {
	s.cancel()
	if s.member != nil {
		s.member.Close()
	}
	s.client.Close()
}

func (s *session) Self() scheduler.WorkerInfo { return s.self }

func (s *session) View() cluster.View {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.view
	v.Members = slices.Clone(v.Members)
	v.Changed = s.changed
	return v
}

// leadership says whether this session leads, in which term, and returns
// the channel that closes at the next view change.
func (s *session) leadership() (term uint64, leads bool, changed <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.term, s.view.Leader.ID == s.self.ID && s.ctx.Err() == nil, s.changed
}

func (s *session) Store() scheduler.Store { return store{s} }

func (s *session) Reports() <-chan scheduler.Message { return s.reports }

// Close leaves the cluster: it gives up the exclusive producer first, so
// that the next leader gets it at its first try, then the subscription.
func (s *session) Close() error {
	s.closeOnce.Do(func() {
		s.b.forget(s)
		s.cancel()
		s.w.close()
		s.member.Close()
		s.wg.Wait()
		s.pmu.Lock()
		for _, p := range []pulsarclient.Producer{s.reporter, s.packager} {
			if p != nil {
				p.Close()
			}
		}
		s.pmu.Unlock()
		s.client.Close()
		s.mu.Lock()
		s.view = cluster.View{}
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
		s.log.Info("pulsarcluster: left")
	})
	return nil
}

// producer returns the shared producer *p, creating it with opts once.
func (s *session) producer(p *pulsarclient.Producer, opts pulsarclient.ProducerOptions) (pulsarclient.Producer, error) {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	if s.ctx.Err() != nil {
		return nil, cluster.ErrClosed
	}
	if *p != nil {
		return *p, nil
	}
	var err error
	*p, err = s.client.CreateProducer(opts)
	if err != nil {
		*p = nil
		return nil, fmt.Errorf("pulsarcluster: producer on %s: %w", opts.Topic, err)
	}
	return *p, nil
}

// listener hands the failover callbacks, which run on the client's
// connection goroutine, to the loop without blocking.
type listener struct{ s *session }

func (l listener) BecameActive(pulsarclient.Consumer, string, int32) { l.s.event(eventActive) }

func (l listener) BecameInactive(pulsarclient.Consumer, string, int32) { l.s.event(eventInactive) }

func (s *session) event(kind int32) {
	s.lastEvent.Store(kind)
	select {
	case s.events <- struct{}{}:
	default:
	}
}
