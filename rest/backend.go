package rest

import (
	"context"
	"errors"
	"io"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
	"github.com/fworker/fworker/drain"
	"github.com/fworker/fworker/scheduler"
)

// ErrNotLeader is returned by leader-only Backend calls on a worker that is
// not (or no longer) the leader; the handler then redirects to the leader.
var ErrNotLeader = errors.New("this worker is not the leader")

// ErrNoLeader: the leader cannot be determined (Pulsar answers 500 with
// "Leader cannot be determined").
var ErrNoLeader = errors.New("Leader cannot be determined")

// Package is the code of a function as uploaded: a file (Data) or a URL
// (function://, file:, http(s)://).
type Package struct {
	Data     io.Reader // nil when URL is set
	FileName string
	URL      string
}

// Backend is what the HTTP layer needs from one worker node. The worker
// package implements it; handlers never touch scheduling state directly.
//
// Leader-only methods are called only after IsLeader() said true; if the
// worker lost leadership meanwhile they return ErrNotLeader. Function
// writes (create, update, delete, start, stop, restart) are leader-only too:
// a non-leader proxies them to the leader.
type Backend interface {
	Self() scheduler.WorkerInfo
	// Initialized: the worker has joined and followed the cluster state.
	Initialized() bool
	Members() []scheduler.WorkerInfo
	Leader() (scheduler.WorkerInfo, bool)
	IsLeader() bool
	// Assignments is this worker's view: owner id -> fully qualified ids.
	Assignments() map[string][]string

	// Leader-only.
	Drain(ctx context.Context, worker string, opts drain.Options) error
	DrainStatus(ctx context.Context, worker string) (drain.Record, error)
	Drains(ctx context.Context) ([]drain.Record, error)
	Undrain(ctx context.Context, worker string) error
	Cordon(ctx context.Context, worker string, on bool) error
	Rebalance(ctx context.Context) error
	// Events streams scheduling and drain events until ctx ends; the
	// channel is closed then.
	Events(ctx context.Context) (<-chan scheduler.Event, error)

	// Function writes (leader-only).
	CreateFunction(ctx context.Context, cfg utils.FunctionConfig, pkg Package) error
	UpdateFunction(ctx context.Context, cfg utils.FunctionConfig, pkg *Package) error
	DeleteFunction(ctx context.Context, key scheduler.FunctionKey) error
	// SetInstanceState starts or stops instance index (-1: all).
	SetInstanceState(ctx context.Context, key scheduler.FunctionKey, index int, running bool) error
	RestartInstance(ctx context.Context, key scheduler.FunctionKey, index int) error

	// Function reads (any worker).
	GetFunction(ctx context.Context, key scheduler.FunctionKey) (utils.FunctionConfig, error)
	ListFunctions(ctx context.Context, tenant, namespace string) ([]string, error)
	FunctionStatus(ctx context.Context, key scheduler.FunctionKey) (utils.FunctionStatus, error)
	InstanceStatus(ctx context.Context, key scheduler.FunctionKey, index int) (utils.FunctionInstanceStatusData, error)
	FunctionStats(ctx context.Context, key scheduler.FunctionKey) (utils.FunctionStats, error)
	InstanceStats(ctx context.Context, key scheduler.FunctionKey, index int) (utils.FunctionInstanceStatsData, error)
	// OpenPackage returns the function's stored package for download.
	OpenPackage(ctx context.Context, key scheduler.FunctionKey) (io.ReadCloser, error)

	// Metrics.
	WorkerMetrics(ctx context.Context) ([]utils.Metrics, error)
	FunctionsMetrics(ctx context.Context) ([]utils.WorkerFunctionInstanceStats, error)
	// WritePrometheus writes the /metrics exposition.
	WritePrometheus(w io.Writer) error
}
