package runtime

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fworker/fworker/scheduler"
)

// feed collects values from other goroutines; wait consumes the first
// unconsumed value that matches, blocking until one arrives.
type feed[T any] struct {
	mu      sync.Mutex
	items   []T
	used    []bool
	changed chan struct{}
}

func newFeed[T any]() *feed[T] { return &feed[T]{changed: make(chan struct{})} }

func (f *feed[T]) add(v T) {
	f.mu.Lock()
	f.items = append(f.items, v)
	f.used = append(f.used, false)
	close(f.changed)
	f.changed = make(chan struct{})
	f.mu.Unlock()
}

func (f *feed[T]) all() []T {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.items)
}

func (f *feed[T]) wait(t *testing.T, desc string, match func(T) bool) T {
	t.Helper()
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	for {
		f.mu.Lock()
		for i, v := range f.items {
			if !f.used[i] && match(v) {
				f.used[i] = true
				f.mu.Unlock()
				return v
			}
		}
		ch := f.changed
		f.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("timed out after %s waiting for %s; have %v", waitFor, desc, f.all())
		}
	}
}

// events records a Runtime's events.
type events struct{ *feed[Event] }

func (e events) wait(t *testing.T, kind EventKind, id scheduler.InstanceID, gen uint64) Event {
	t.Helper()
	return e.feed.wait(t, fmt.Sprintf("%s %s gen %d", kind, id, gen), func(ev Event) bool {
		return ev.Kind == kind && ev.ID == id && ev.Gen == gen
	})
}

// count returns how many events of kind for id have been seen.
func (e events) count(kind EventKind, id scheduler.InstanceID) int {
	n := 0
	for _, ev := range e.all() {
		if ev.Kind == kind && ev.ID == id {
			n++
		}
	}
	return n
}

// history renders each instance's events in order, e.g. "Started/1".
func (e events) history() map[string][]string {
	h := map[string][]string{}
	for _, ev := range e.all() {
		h[ev.ID.String()] = append(h[ev.ID.String()], ev.Kind.String()+"/"+strconv.FormatUint(ev.Gen, 10))
	}
	return h
}

// note is a line an fn instance wrote to the FN_NOTIFY FIFO.
type note struct {
	what, instance string
	gen            uint64
	pid            int
}

type notes struct{ *feed[note] }

func (n notes) wait(t *testing.T, what string, id scheduler.InstanceID) note {
	t.Helper()
	return n.feed.wait(t, fmt.Sprintf("note %q from %s", what, id), func(x note) bool {
		return x.what == what && x.instance == id.String()
	})
}

// newNotes makes a FIFO for instances to write notes to and returns the
// environment entry that points them at it.
func newNotes(t *testing.T) (notes, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notify")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	// O_RDWR: opening does not block, and the read side never sees EOF
	// when an instance closes its end.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := notes{newFeed[note]()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var x note
			if _, err := fmt.Sscanf(sc.Text(), "%s %s %d %d", &x.what, &x.instance, &x.gen, &x.pid); err == nil {
				n.add(x)
			}
		}
	}()
	t.Cleanup(func() { f.Close(); <-done })
	return n, "FN_NOTIFY=" + path
}
