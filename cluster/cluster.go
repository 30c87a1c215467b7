// Package cluster defines the cluster-state service that a worker node runs
// on: membership, leadership, the persisted scheduling state (functions,
// assignments, drain records, cordons), the feed of that state to every
// worker, worker-to-leader observations, and function packages.
//
// Two implementations: cluster/embedded (one process, bbolt file; the
// standalone) and cluster/pulsar (a real Pulsar cluster). The worker package
// uses only this interface.
//
// Concurrency: every method is safe for concurrent use unless it says
// otherwise. Callbacks run on one goroutine per subscription, in order.
package cluster

import (
	"context"
	"errors"
	"io"

	"github.com/fworker/fworker/scheduler"
)

// ErrNotLeader is returned by leader-only writes from a session that is not
// (or no longer) the leader: a deposed leader cannot write.
var ErrNotLeader = errors.New("cluster: not the leader")

// ErrClosed is returned after the session or backend was closed.
var ErrClosed = errors.New("cluster: closed")

// ErrNoPackage: no package is stored under that name.
var ErrNoPackage = errors.New("cluster: package not found")

// Backend lets a worker join a cluster.
type Backend interface {
	Join(ctx context.Context, self scheduler.WorkerInfo) (Session, error)
}

// View is membership and leadership at one moment. Changed is closed at the
// next change.
type View struct {
	Members []scheduler.WorkerInfo
	Leader  scheduler.WorkerInfo // zero ID: no leader known
	Changed <-chan struct{}
}

// Update is one step of the state feed: either a full state (Reset, always
// first) or effects committed since, in commit order.
type Update struct {
	Reset   *scheduler.State
	Effects []scheduler.Effect
}

// Session is one worker's membership in the cluster.
type Session interface {
	Self() scheduler.WorkerInfo
	View() View

	// Store is the leader's fenced store for the scheduler actor: Apply
	// fails with ErrNotLeader once this session is not the leader.
	Store() scheduler.Store

	// Follow calls fn with the full persisted state, then with every
	// committed change, until ctx ends or the session closes. fn runs on
	// one goroutine and must not block for long.
	Follow(ctx context.Context, fn func(Update)) error

	// Report sends a worker observation (InstanceStarted, InstanceStopped,
	// InstanceFailed, WorkerReport) to the current leader. Observations
	// can be lost; WorkerReport repairs that.
	Report(ctx context.Context, m scheduler.Message) error
	// Reports delivers observations to this session while it leads.
	Reports() <-chan scheduler.Message

	// Packages store function code by name, for every worker to fetch.
	PutPackage(ctx context.Context, name string, r io.Reader, limit int64) (int64, error)
	OpenPackage(ctx context.Context, name string) (io.ReadCloser, error)
	DeletePackage(ctx context.Context, name string) error

	// Close leaves the cluster.
	Close() error
}
