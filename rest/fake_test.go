package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"

	"github.com/fworker/fworker/drain"
	"github.com/fworker/fworker/scheduler"
)

// fakeBackend is a Backend made of function fields, one per method. A nil
// field answers errUnexpected (a 500), so a test sees any call it did not
// plan for. newFake fills the read-only membership methods.
type fakeBackend struct {
	SelfFn        func() scheduler.WorkerInfo
	InitializedFn func() bool
	MembersFn     func() []scheduler.WorkerInfo
	LeaderFn      func() (scheduler.WorkerInfo, bool)
	IsLeaderFn    func() bool
	AssignmentsFn func() map[string][]string

	DrainFn       func(ctx context.Context, worker string, opts drain.Options) error
	DrainStatusFn func(ctx context.Context, worker string) (drain.Record, error)
	DrainsFn      func(ctx context.Context) ([]drain.Record, error)
	UndrainFn     func(ctx context.Context, worker string) error
	CordonFn      func(ctx context.Context, worker string, on bool) error
	RebalanceFn   func(ctx context.Context) error
	EventsFn      func(ctx context.Context) (<-chan scheduler.Event, error)

	CreateFunctionFn   func(ctx context.Context, cfg utils.FunctionConfig, pkg Package) error
	UpdateFunctionFn   func(ctx context.Context, cfg utils.FunctionConfig, pkg *Package) error
	DeleteFunctionFn   func(ctx context.Context, key scheduler.FunctionKey) error
	SetInstanceStateFn func(ctx context.Context, key scheduler.FunctionKey, index int, running bool) error
	RestartInstanceFn  func(ctx context.Context, key scheduler.FunctionKey, index int) error

	GetFunctionFn    func(ctx context.Context, key scheduler.FunctionKey) (utils.FunctionConfig, error)
	ListFunctionsFn  func(ctx context.Context, tenant, namespace string) ([]string, error)
	FunctionStatusFn func(ctx context.Context, key scheduler.FunctionKey) (utils.FunctionStatus, error)
	InstanceStatusFn func(ctx context.Context, key scheduler.FunctionKey, index int) (utils.FunctionInstanceStatusData, error)
	FunctionStatsFn  func(ctx context.Context, key scheduler.FunctionKey) (utils.FunctionStats, error)
	InstanceStatsFn  func(ctx context.Context, key scheduler.FunctionKey, index int) (utils.FunctionInstanceStatsData, error)
	OpenPackageFn    func(ctx context.Context, key scheduler.FunctionKey) (io.ReadCloser, error)

	WorkerMetricsFn    func(ctx context.Context) ([]utils.Metrics, error)
	FunctionsMetricsFn func(ctx context.Context) ([]utils.WorkerFunctionInstanceStats, error)
	WritePrometheusFn  func(w io.Writer) error

	// calls is where setups record what they were asked.
	calls calls
}

var _ Backend = (*fakeBackend)(nil)

var errUnexpected = fmt.Errorf("fake: unexpected call")

var (
	w1 = scheduler.WorkerInfo{ID: "w1", Hostname: "host-1", Port: 6750}
	w2 = scheduler.WorkerInfo{ID: "w2", Hostname: "host-2", Port: 6751, Capacity: &scheduler.Resources{CPU: 4}}
)

// newFake is worker w1, initialized and leader of {w1, w2}.
func newFake() *fakeBackend {
	return &fakeBackend{
		SelfFn:        func() scheduler.WorkerInfo { return w1 },
		InitializedFn: func() bool { return true },
		MembersFn:     func() []scheduler.WorkerInfo { return []scheduler.WorkerInfo{w1, w2} },
		LeaderFn:      func() (scheduler.WorkerInfo, bool) { return w1, true },
		IsLeaderFn:    func() bool { return true },
	}
}

// follower makes f worker w2's view: w2 is self and w1 leads.
func (f *fakeBackend) follower() *fakeBackend {
	f.SelfFn = func() scheduler.WorkerInfo { return w2 }
	f.IsLeaderFn = func() bool { return false }
	return f
}

func (f *fakeBackend) Self() scheduler.WorkerInfo { return f.SelfFn() }
func (f *fakeBackend) Initialized() bool          { return f.InitializedFn() }
func (f *fakeBackend) Members() []scheduler.WorkerInfo {
	return f.MembersFn()
}
func (f *fakeBackend) Leader() (scheduler.WorkerInfo, bool) { return f.LeaderFn() }
func (f *fakeBackend) IsLeader() bool                       { return f.IsLeaderFn() }
func (f *fakeBackend) Assignments() map[string][]string {
	if f.AssignmentsFn == nil {
		return nil
	}
	return f.AssignmentsFn()
}

func (f *fakeBackend) Drain(ctx context.Context, worker string, opts drain.Options) error {
	if f.DrainFn == nil {
		return errUnexpected
	}
	return f.DrainFn(ctx, worker, opts)
}

func (f *fakeBackend) DrainStatus(ctx context.Context, worker string) (drain.Record, error) {
	if f.DrainStatusFn == nil {
		return drain.Record{}, errUnexpected
	}
	return f.DrainStatusFn(ctx, worker)
}

func (f *fakeBackend) Drains(ctx context.Context) ([]drain.Record, error) {
	if f.DrainsFn == nil {
		return nil, errUnexpected
	}
	return f.DrainsFn(ctx)
}

func (f *fakeBackend) Undrain(ctx context.Context, worker string) error {
	if f.UndrainFn == nil {
		return errUnexpected
	}
	return f.UndrainFn(ctx, worker)
}

func (f *fakeBackend) Cordon(ctx context.Context, worker string, on bool) error {
	if f.CordonFn == nil {
		return errUnexpected
	}
	return f.CordonFn(ctx, worker, on)
}

func (f *fakeBackend) Rebalance(ctx context.Context) error {
	if f.RebalanceFn == nil {
		return errUnexpected
	}
	return f.RebalanceFn(ctx)
}

func (f *fakeBackend) Events(ctx context.Context) (<-chan scheduler.Event, error) {
	if f.EventsFn == nil {
		return nil, errUnexpected
	}
	return f.EventsFn(ctx)
}

func (f *fakeBackend) CreateFunction(ctx context.Context, cfg utils.FunctionConfig, pkg Package) error {
	if f.CreateFunctionFn == nil {
		return errUnexpected
	}
	return f.CreateFunctionFn(ctx, cfg, pkg)
}

func (f *fakeBackend) UpdateFunction(ctx context.Context, cfg utils.FunctionConfig, pkg *Package) error {
	if f.UpdateFunctionFn == nil {
		return errUnexpected
	}
	return f.UpdateFunctionFn(ctx, cfg, pkg)
}

func (f *fakeBackend) DeleteFunction(ctx context.Context, key scheduler.FunctionKey) error {
	if f.DeleteFunctionFn == nil {
		return errUnexpected
	}
	return f.DeleteFunctionFn(ctx, key)
}

func (f *fakeBackend) SetInstanceState(ctx context.Context, key scheduler.FunctionKey, index int, running bool) error {
	if f.SetInstanceStateFn == nil {
		return errUnexpected
	}
	return f.SetInstanceStateFn(ctx, key, index, running)
}

func (f *fakeBackend) RestartInstance(ctx context.Context, key scheduler.FunctionKey, index int) error {
	if f.RestartInstanceFn == nil {
		return errUnexpected
	}
	return f.RestartInstanceFn(ctx, key, index)
}

func (f *fakeBackend) GetFunction(ctx context.Context, key scheduler.FunctionKey) (utils.FunctionConfig, error) {
	if f.GetFunctionFn == nil {
		return utils.FunctionConfig{}, errUnexpected
	}
	return f.GetFunctionFn(ctx, key)
}

func (f *fakeBackend) ListFunctions(ctx context.Context, tenant, namespace string) ([]string, error) {
	if f.ListFunctionsFn == nil {
		return nil, errUnexpected
	}
	return f.ListFunctionsFn(ctx, tenant, namespace)
}

func (f *fakeBackend) FunctionStatus(ctx context.Context, key scheduler.FunctionKey) (utils.FunctionStatus, error) {
	if f.FunctionStatusFn == nil {
		return utils.FunctionStatus{}, errUnexpected
	}
	return f.FunctionStatusFn(ctx, key)
}

func (f *fakeBackend) InstanceStatus(ctx context.Context, key scheduler.FunctionKey, index int) (utils.FunctionInstanceStatusData, error) {
	if f.InstanceStatusFn == nil {
		return utils.FunctionInstanceStatusData{}, errUnexpected
	}
	return f.InstanceStatusFn(ctx, key, index)
}

func (f *fakeBackend) FunctionStats(ctx context.Context, key scheduler.FunctionKey) (utils.FunctionStats, error) {
	if f.FunctionStatsFn == nil {
		return utils.FunctionStats{}, errUnexpected
	}
	return f.FunctionStatsFn(ctx, key)
}

func (f *fakeBackend) InstanceStats(ctx context.Context, key scheduler.FunctionKey, index int) (utils.FunctionInstanceStatsData, error) {
	if f.InstanceStatsFn == nil {
		return utils.FunctionInstanceStatsData{}, errUnexpected
	}
	return f.InstanceStatsFn(ctx, key, index)
}

func (f *fakeBackend) OpenPackage(ctx context.Context, key scheduler.FunctionKey) (io.ReadCloser, error) {
	if f.OpenPackageFn == nil {
		return nil, errUnexpected
	}
	return f.OpenPackageFn(ctx, key)
}

func (f *fakeBackend) WorkerMetrics(ctx context.Context) ([]utils.Metrics, error) {
	if f.WorkerMetricsFn == nil {
		return nil, errUnexpected
	}
	return f.WorkerMetricsFn(ctx)
}

func (f *fakeBackend) FunctionsMetrics(ctx context.Context) ([]utils.WorkerFunctionInstanceStats, error) {
	if f.FunctionsMetricsFn == nil {
		return nil, errUnexpected
	}
	return f.FunctionsMetricsFn(ctx)
}

func (f *fakeBackend) WritePrometheus(w io.Writer) error {
	if f.WritePrometheusFn == nil {
		return errUnexpected
	}
	return f.WritePrometheusFn(w)
}

// calls records what a fake was asked, safe across handler goroutines.
type calls struct {
	mu  sync.Mutex
	log []string
}

func (c *calls) add(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log = append(c.log, fmt.Sprintf(format, args...))
}

func (c *calls) get() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.log...)
}

// serve sends one request to New(f) without a socket.
func serve(t *testing.T, h http.Handler, method, target string, body io.Reader, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, target, body)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// reasonOf decodes Pulsar's ErrorData, failing if the body is not one.
func reasonOf(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("error content type %q, want application/json; body %q", ct, w.Body.String())
	}
	var e struct {
		Reason *string `json:"reason"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Reason == nil {
		t.Fatalf("body %q is not {\"reason\":...}: %v", w.Body.String(), err)
	}
	return *e.Reason
}

// mounts are Pulsar's two homes of the v2 resources.
var mounts = []string{"/admin", "/admin/v2"}
