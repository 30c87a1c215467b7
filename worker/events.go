package worker

import (
	"sync"

	"github.com/fworker/fworker/scheduler"
)

// broadcaster fans events out to subscribers. A subscriber that does not
// keep up loses events rather than slowing the actor.
type broadcaster struct {
	mu   sync.Mutex
	subs map[chan scheduler.Event]struct{}
}

func newBroadcaster() *broadcaster {
	return &broadcaster{subs: map[chan scheduler.Event]struct{}{}}
}

func (b *broadcaster) subscribe() chan scheduler.Event {
	c := make(chan scheduler.Event, 256)
	b.mu.Lock()
	b.subs[c] = struct{}{}
	b.mu.Unlock()
	return c
}

func (b *broadcaster) unsubscribe(c chan scheduler.Event) {
	b.mu.Lock()
	delete(b.subs, c)
	b.mu.Unlock()
	close(c)
}

func (b *broadcaster) publish(e scheduler.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for c := range b.subs {
		select {
		case c <- e:
		default:
		}
	}
}
