package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
	"github.com/gin-gonic/gin"

	"github.com/fworker/fworker/drain"
	"github.com/fworker/fworker/scheduler"
)

// routeCase is one request against a fake; path is relative to the mount,
// and %s in location stands for the mount.
type routeCase struct {
	name     string
	setup    func(f *fakeBackend)
	method   string
	path     string
	status   int
	body     string   // exact body when set
	reason   string   // exact {"reason"} when set
	location string   // exact Location when set
	calls    []string // the fake's recorded calls, when set
}

func runRouteCases(t *testing.T, prefixes []string, cases []routeCase) {
	t.Helper()
	for _, prefix := range prefixes {
		for _, tc := range cases {
			t.Run(prefix+" "+tc.name, func(t *testing.T) {
				f := newFake()
				if tc.setup != nil {
					tc.setup(f)
				}
				w := serve(t, New(f, Options{}), tc.method, prefix+tc.path, nil)
				checkResponse(t, w.Code, w.Body.String(), w.Header(), tc, prefix)
				if tc.reason != "" {
					if got := reasonOf(t, w); got != tc.reason {
						t.Errorf("reason %q, want %q", got, tc.reason)
					}
				}
				if tc.calls != nil {
					if got := f.calls.get(); !slices.Equal(got, tc.calls) {
						t.Errorf("calls %q, want %q", got, tc.calls)
					}
				}
			})
		}
	}
}

func checkResponse(t *testing.T, code int, body string, h http.Header, tc routeCase, prefix string) {
	t.Helper()
	if code != tc.status {
		t.Fatalf("status %d, want %d; body %s", code, tc.status, body)
	}
	if tc.body != "" && body != tc.body {
		t.Errorf("body\n got %s\nwant %s", body, tc.body)
	}
	if tc.location != "" {
		want := tc.location
		if strings.Contains(want, "%s") {
			want = fmt.Sprintf(want, prefix)
		}
		if got := h.Get("Location"); got != want {
			t.Errorf("Location %q, want %q", got, want)
		}
	}
}

const notInit = "Function worker service is not done initializing. Please try again in a little while."

func TestWorkerRoutes(t *testing.T) {
	noLeader := func(f *fakeBackend) {
		f.follower()
		f.LeaderFn = func() (scheduler.WorkerInfo, bool) { return scheduler.WorkerInfo{}, false }
	}
	cases := []routeCase{
		{name: "cluster", method: "GET", path: "/worker/cluster", status: 200,
			body: `[{"workerId":"w1","workerHostname":"host-1","port":6750},{"workerId":"w2","workerHostname":"host-2","port":6751}]`},
		{name: "cluster empty", method: "GET", path: "/worker/cluster", status: 200, body: `[]`,
			setup: func(f *fakeBackend) { f.MembersFn = func() []scheduler.WorkerInfo { return nil } }},
		{name: "leader", method: "GET", path: "/worker/cluster/leader", status: 200,
			body: `{"workerId":"w1","workerHostname":"host-1","port":6750}`},
		{name: "leader from follower", method: "GET", path: "/worker/cluster/leader", status: 200,
			setup: func(f *fakeBackend) { f.follower() },
			body:  `{"workerId":"w1","workerHostname":"host-1","port":6750}`},
		{name: "leader unknown", method: "GET", path: "/worker/cluster/leader", status: 500,
			setup: noLeader, reason: "Leader cannot be determined"},
		{name: "ready on leader", method: "GET", path: "/worker/cluster/leader/ready", status: 200, body: `true`},
		{name: "ready on follower", method: "GET", path: "/worker/cluster/leader/ready", status: 503,
			setup: func(f *fakeBackend) { f.follower() }, reason: notInit},
		{name: "assignments", method: "GET", path: "/worker/assignments", status: 200,
			setup: func(f *fakeBackend) {
				f.AssignmentsFn = func() map[string][]string {
					return map[string][]string{"w1": {"public/default/f1:0"}, "w2": {"public/default/f1:1"}}
				}
			},
			body: `{"w1":["public/default/f1:0"],"w2":["public/default/f1:1"]}`},
		{name: "assignments empty", method: "GET", path: "/worker/assignments", status: 200, body: `{}`},
		{name: "connectors", method: "GET", path: "/worker/connectors", status: 200, body: `[]`},

		{name: "rebalance", method: "PUT", path: "/worker/rebalance", status: 204, body: "",
			setup: func(f *fakeBackend) { f.RebalanceFn = func(context.Context) error { return nil } }},
		{name: "rebalance in progress", method: "PUT", path: "/worker/rebalance", status: 400,
			setup: func(f *fakeBackend) {
				f.RebalanceFn = func(context.Context) error { return scheduler.ErrRebalanceInProgress }
			},
			reason: "Rebalance already in progress"},
		{name: "rebalance too few", method: "PUT", path: "/worker/rebalance", status: 400,
			setup: func(f *fakeBackend) {
				f.RebalanceFn = func(context.Context) error { return fmt.Errorf("wrapped: %w", drain.ErrTooFewWorkers) }
			},
			reason: "Too few workers (need at least 2)"},
		{name: "rebalance on follower", method: "PUT", path: "/worker/rebalance", status: 307,
			setup: func(f *fakeBackend) { f.follower() }, location: "http://host-1:6750%s/worker/rebalance"},
		{name: "rebalance lost leadership", method: "PUT", path: "/worker/rebalance", status: 307,
			setup: func(f *fakeBackend) {
				f.LeaderFn = func() (scheduler.WorkerInfo, bool) { return w2, true }
				f.RebalanceFn = func(context.Context) error { return ErrNotLeader }
			},
			location: "http://host-2:6751%s/worker/rebalance"},
		{name: "rebalance no leader", method: "PUT", path: "/worker/rebalance", status: 500,
			setup: noLeader, reason: "Leader cannot be determined"},
		{name: "rebalance follower believes it leads", method: "PUT", path: "/worker/rebalance", status: 500,
			setup:  func(f *fakeBackend) { f.IsLeaderFn = func() bool { return false } },
			reason: "Leader cannot be determined"},
		{name: "rebalance wrong method", method: "GET", path: "/worker/rebalance", status: 405, reason: "Method Not Allowed"},

		{name: "metrics", method: "GET", path: "/worker-stats/metrics", status: 200,
			setup: func(f *fakeBackend) {
				f.WorkerMetricsFn = func(context.Context) ([]utils.Metrics, error) {
					return []utils.Metrics{{Metrics: map[string]any{"n": 1}, Dimensions: map[string]string{"metric": "worker"}}}, nil
				}
			},
			body: `[{"metrics":{"n":1},"dimensions":{"metric":"worker"}}]`},
		{name: "metrics empty", method: "GET", path: "/worker-stats/metrics", status: 200, body: `[]`,
			setup: func(f *fakeBackend) {
				f.WorkerMetricsFn = func(context.Context) ([]utils.Metrics, error) { return nil, nil }
			}},
		{name: "metrics failing", method: "GET", path: "/worker-stats/metrics", status: 500, reason: "boom",
			setup: func(f *fakeBackend) {
				f.WorkerMetricsFn = func(context.Context) ([]utils.Metrics, error) { return nil, errors.New("boom") }
			}},
		{name: "functionsmetrics", method: "GET", path: "/worker-stats/functionsmetrics", status: 200,
			setup: func(f *fakeBackend) {
				f.FunctionsMetricsFn = func(context.Context) ([]utils.WorkerFunctionInstanceStats, error) {
					return []utils.WorkerFunctionInstanceStats{{Name: "public/default/f1:0"}}, nil
				}
			},
			body: `[{"name":"public/default/f1:0","metrics":{"oneMin":{"receivedTotal":0,"processedSuccessfullyTotal":0,"systemExceptionsTotal":0,"userExceptionsTotal":0,"avgProcessLatency":0},"lastInvocation":0,"userMetrics":null,"receivedTotal":0,"processedSuccessfullyTotal":0,"systemExceptionsTotal":0,"userExceptionsTotal":0,"avgProcessLatency":0}}]`},
		{name: "functionsmetrics empty", method: "GET", path: "/worker-stats/functionsmetrics", status: 200, body: `[]`,
			setup: func(f *fakeBackend) {
				f.FunctionsMetricsFn = func(context.Context) ([]utils.WorkerFunctionInstanceStats, error) { return nil, nil }
			}},
		{name: "functionsmetrics not ready", method: "GET", path: "/worker-stats/functionsmetrics", status: 503, reason: notInit,
			setup: func(f *fakeBackend) {
				f.FunctionsMetricsFn = func(context.Context) ([]utils.WorkerFunctionInstanceStats, error) {
					return nil, scheduler.ErrNotReady
				}
			}},
	}
	runRouteCases(t, mounts, cases)
}

func TestRootRoutes(t *testing.T) {
	cases := []routeCase{
		{name: "initialized", method: "GET", path: "/initialized", status: 200, body: "true"},
		{name: "not initialized", method: "GET", path: "/initialized", status: 503, reason: notInit,
			setup: func(f *fakeBackend) { f.InitializedFn = func() bool { return false } }},
		{name: "config", method: "GET", path: "/config", status: 200,
			body: `{"workerHostname":"host-1","workerId":"w1","workerPort":6750}`},
		{name: "metrics failing", method: "GET", path: "/metrics", status: 500, reason: "no registry",
			setup: func(f *fakeBackend) {
				f.WritePrometheusFn = func(w io.Writer) error { io.WriteString(w, "partial"); return errors.New("no registry") }
			}},
		{name: "unknown route", method: "GET", path: "/nope", status: 404, reason: "Not Found"},
		{name: "v3 worker is not served", method: "GET", path: "/admin/v3/worker/cluster", status: 404},
	}
	runRouteCases(t, []string{""}, cases)
}

func TestPrometheus(t *testing.T) {
	f := newFake()
	f.WritePrometheusFn = func(w io.Writer) error {
		_, err := io.WriteString(w, "# TYPE fworker_up gauge\nfworker_up 1\n")
		return err
	}
	w := serve(t, New(f, Options{}), "GET", "/metrics", nil)
	if w.Code != 200 || w.Body.String() != "# TYPE fworker_up gauge\nfworker_up 1\n" {
		t.Fatalf("%d %q", w.Code, w.Body.String())
	}
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("content type %q", ct)
	}
}

func TestConfigExtras(t *testing.T) {
	w := serve(t, New(newFake(), Options{Config: map[string]any{"numFunctionPackageReplicas": 1, "workerId": "spoofed"}}),
		"GET", "/config", nil)
	want := `{"numFunctionPackageReplicas":1,"workerHostname":"host-1","workerId":"w1","workerPort":6750}`
	if w.Code != 200 || w.Body.String() != want {
		t.Fatalf("%d %s", w.Code, w.Body.String())
	}
}

// TestNotInitialized sends every registered route to a worker that is not
// initialized: each answers Pulsar's 503 before touching anything else of
// the Backend (the fake's other methods are nil and would panic).
func TestNotInitialized(t *testing.T) {
	f := &fakeBackend{InitializedFn: func() bool { return false }}
	h := New(f, Options{})
	routes := h.(*gin.Engine).Routes()
	// 2 mounts x 18 worker routes, 16 function routes, 3 root routes.
	if len(routes) != 55 {
		t.Fatalf("%d routes registered, want 55 (update docs/api.md too)", len(routes))
	}
	fill := strings.NewReplacer(":tenant", "public", ":namespace", "default", ":name", "f1", ":instanceId", "0")
	for _, r := range routes {
		path := fill.Replace(r.Path)
		w := serve(t, h, r.Method, path, nil)
		if w.Code != 503 {
			t.Errorf("%s %s: status %d, want 503", r.Method, path, w.Code)
			continue
		}
		if got := reasonOf(t, w); got != notInit {
			t.Errorf("%s %s: reason %q", r.Method, path, got)
		}
	}
}

func TestPanicIsA500(t *testing.T) {
	f := newFake()
	f.MembersFn = func() []scheduler.WorkerInfo { panic("bug") }
	h := New(f, Options{})
	w := serve(t, h, "GET", "/admin/v2/worker/cluster", nil)
	if w.Code != 500 || reasonOf(t, w) != "Internal server error" {
		t.Fatalf("%d %s", w.Code, w.Body.String())
	}
	// The handler survives.
	f.MembersFn = func() []scheduler.WorkerInfo { return nil }
	if w := serve(t, h, "GET", "/admin/v2/worker/cluster", nil); w.Code != 200 {
		t.Fatalf("after panic: %d", w.Code)
	}
}

func TestRedirectScheme(t *testing.T) {
	for _, tc := range []struct {
		scheme string
		tls    bool
		want   string
	}{
		{"", false, "http://host-1:6750/admin/v2/worker/rebalance"},
		{"", true, "https://host-1:6750/admin/v2/worker/rebalance"},
		{"https", false, "https://host-1:6750/admin/v2/worker/rebalance"},
	} {
		f := newFake().follower()
		h := New(f, Options{Scheme: tc.scheme})
		r := newRequest("PUT", "/admin/v2/worker/rebalance", tc.tls)
		w := record(h, r)
		if w.Code != 307 || w.Header().Get("Location") != tc.want {
			t.Errorf("scheme %q tls %v: %d %q", tc.scheme, tc.tls, w.Code, w.Header().Get("Location"))
		}
	}
}

func TestRedirectIPv6Leader(t *testing.T) {
	f := newFake().follower()
	f.LeaderFn = func() (scheduler.WorkerInfo, bool) {
		return scheduler.WorkerInfo{ID: "w1", Hostname: "::1", Port: 6750}, true
	}
	w := serve(t, New(f, Options{}), "PUT", "/admin/v2/worker/rebalance", nil)
	if got := w.Header().Get("Location"); got != "http://[::1]:6750/admin/v2/worker/rebalance" {
		t.Fatalf("Location %q", got)
	}
}
