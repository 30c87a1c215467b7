// Package embedded is the one-process cluster backend of the standalone:
// membership and leadership among the workers of one process, and the
// scheduling state and packages persisted in a bbolt file.
//
// Ownership: a Hub owns the bbolt database and the list of sessions; its
// mutex guards both and orders every commit with its fan-out to followers,
// so each follower sees commits in order. The leader is the earliest joined
// session still present (like the first consumer of Pulsar's failover
// subscription). Only the leader's Store may write; a deposed leader gets
// cluster.ErrNotLeader.
package embedded

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/fworker/fworker/cluster"
	"github.com/fworker/fworker/scheduler"
)

// Hub is the shared state of one standalone process.
type Hub struct {
	db  *bolt.DB
	log *slog.Logger

	mu       sync.Mutex
	sessions []*session // join order; sessions[0] leads
	changed  chan struct{}
	subs     map[*follower]struct{}
	closed   bool
}

// Open opens (or creates) the state file at path.
func Open(path string, log *slog.Logger) (*Hub, error) {
	if log == nil {
		log = slog.Default()
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("embedded: open %s: %w", path, err)
	}
	if err := db.Update(createBuckets); err != nil {
		db.Close()
		return nil, fmt.Errorf("embedded: init %s: %w", path, err)
	}
	return &Hub{db: db, log: log, changed: make(chan struct{}), subs: map[*follower]struct{}{}}, nil
}

// Close closes the database; sessions fail with cluster.ErrClosed after.
func (h *Hub) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	for f := range h.subs {
		f.stop()
	}
	h.notifyLocked()
	h.mu.Unlock()
	return h.db.Close()
}

// Join adds a worker. Ids must be unique among present sessions.
func (h *Hub) Join(_ context.Context, self scheduler.WorkerInfo) (cluster.Session, error) {
	if self.ID == "" {
		return nil, fmt.Errorf("embedded: empty worker id")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, cluster.ErrClosed
	}
	for _, s := range h.sessions {
		if s.self.ID == self.ID {
			return nil, fmt.Errorf("embedded: worker %s already joined", self.ID)
		}
	}
	s := &session{hub: h, self: self, reports: make(chan scheduler.Message, 4096)}
	h.sessions = append(h.sessions, s)
	h.notifyLocked()
	return s, nil
}

func (h *Hub) notifyLocked() {
	close(h.changed)
	h.changed = make(chan struct{})
}

func (h *Hub) viewLocked() cluster.View {
	v := cluster.View{Changed: h.changed}
	for _, s := range h.sessions {
		v.Members = append(v.Members, s.self)
	}
	if len(h.sessions) > 0 {
		v.Leader = h.sessions[0].self
	}
	return v
}

func (h *Hub) leaderLocked() *session {
	if len(h.sessions) == 0 {
		return nil
	}
	return h.sessions[0]
}

func (h *Hub) leave(s *session) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, x := range h.sessions {
		if x == s {
			h.sessions = append(h.sessions[:i:i], h.sessions[i+1:]...)
			h.notifyLocked()
			return
		}
	}
}
