package embedded

import (
	"bytes"
	"context"
	"fmt"
	"io"

	bolt "go.etcd.io/bbolt"

	"github.com/fworker/fworker/cluster"
	"github.com/fworker/fworker/scheduler"
)

type session struct {
	hub     *Hub
	self    scheduler.WorkerInfo
	reports chan scheduler.Message
}

func (s *session) Self() scheduler.WorkerInfo { return s.self }

func (s *session) View() cluster.View {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return s.hub.viewLocked()
}

func (s *session) Store() scheduler.Store { return store{s} }

func (s *session) Reports() <-chan scheduler.Message { return s.reports }

// Report hands m to the leader's inbox. A full inbox drops it: reports are
// best effort by contract and the next WorkerReport repairs the loss.
func (s *session) Report(_ context.Context, m scheduler.Message) error {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return cluster.ErrClosed
	}
	l := h.leaderLocked()
	if l == nil {
		return cluster.ErrNotLeader
	}
	select {
	case l.reports <- m:
	default:
		h.log.Warn("embedded: leader inbox full, observation dropped", "from", s.self.ID)
	}
	return nil
}

func (s *session) Close() error {
	s.hub.leave(s)
	return nil
}

func (s *session) PutPackage(_ context.Context, name string, r io.Reader, limit int64) (int64, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return 0, err
	}
	if int64(len(data)) > limit {
		return 0, fmt.Errorf("package is larger than %d bytes", limit)
	}
	err = s.hub.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bPackages).Put([]byte(name), data) })
	return int64(len(data)), err
}

func (s *session) OpenPackage(_ context.Context, name string) (io.ReadCloser, error) {
	var data []byte
	err := s.hub.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bPackages).Get([]byte(name))
		if v == nil {
			return cluster.ErrNoPackage
		}
		data = bytes.Clone(v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

func (s *session) DeletePackage(_ context.Context, name string) error {
	return s.hub.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bPackages).Delete([]byte(name)) })
}

// Follow delivers the state, then each commit. The snapshot is read and the
// follower registered under the hub mutex, so no commit falls in between.
func (s *session) Follow(ctx context.Context, fn func(cluster.Update)) error {
	h := s.hub
	f := newFollower()
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return cluster.ErrClosed
	}
	st, err := h.load()
	if err != nil {
		h.mu.Unlock()
		return err
	}
	h.subs[f] = struct{}{}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.subs, f)
		h.mu.Unlock()
	}()
	fn(cluster.Update{Reset: &st})
	for {
		batch, ok := f.next(ctx)
		if !ok {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return cluster.ErrClosed
		}
		fn(cluster.Update{Effects: batch})
	}
}
