package embedded

import (
	"context"
	"sync"

	"github.com/fworker/fworker/scheduler"
)

// follower is an unbounded, ordered queue of committed batches for one
// Follow call: the committer never blocks on a slow follower.
type follower struct {
	mu      sync.Mutex
	batches [][]scheduler.Effect
	signal  chan struct{} // capacity 1: "there is something"
	done    chan struct{}
	once    sync.Once
}

func newFollower() *follower {
	return &follower{signal: make(chan struct{}, 1), done: make(chan struct{})}
}

func (f *follower) push(b []scheduler.Effect) {
	f.mu.Lock()
	f.batches = append(f.batches, b)
	f.mu.Unlock()
	select {
	case f.signal <- struct{}{}:
	default:
	}
}

func (f *follower) stop() { f.once.Do(func() { close(f.done) }) }

// next returns all queued effects as one batch, waiting for some.
func (f *follower) next(ctx context.Context) ([]scheduler.Effect, bool) {
	for {
		f.mu.Lock()
		if len(f.batches) > 0 {
			var out []scheduler.Effect
			for _, b := range f.batches {
				out = append(out, b...)
			}
			f.batches = nil
			f.mu.Unlock()
			return out, true
		}
		f.mu.Unlock()
		select {
		case <-f.signal:
		case <-ctx.Done():
			return nil, false
		case <-f.done:
			return nil, false
		}
	}
}
