package rest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/pulsar-client-go/pulsaradmin"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/admin/config"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/rest"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"

	"github.com/fworker/fworker/drain"
	"github.com/fworker/fworker/scheduler"
)

// seen is what reached the leader's handler.
type seen struct {
	calls
}

func (s *seen) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.add("%s %s by=%q ct=%v", r.Method, r.URL.RequestURI(), r.Header.Get(ForwardedHeader), r.Header.Get("Content-Type") != "")
		h.ServeHTTP(w, r)
	})
}

func infoOf(t *testing.T, id, rawURL string) scheduler.WorkerInfo {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(u.Host)
	p, _ := strconv.Atoi(port)
	return scheduler.WorkerInfo{ID: id, Hostname: host, Port: p}
}

// cluster is a leader server (w1) and a follower server (w2) that knows it.
type cluster struct {
	leader, follower       *fakeBackend
	leaderSrv, followerSrv *httptest.Server
	atLeader               seen
}

func newCluster(t *testing.T) *cluster {
	c := &cluster{leader: newFake(), follower: newFake().follower()}
	c.leaderSrv = httptest.NewServer(c.atLeader.wrap(New(c.leader, Options{})))
	t.Cleanup(c.leaderSrv.Close)
	c.followerSrv = httptest.NewServer(New(c.follower, Options{}))
	t.Cleanup(c.followerSrv.Close)
	li := infoOf(t, "w1", c.leaderSrv.URL)
	c.leader.SelfFn = func() scheduler.WorkerInfo { return li }
	c.leader.LeaderFn = func() (scheduler.WorkerInfo, bool) { return li, true }
	c.follower.LeaderFn = func() (scheduler.WorkerInfo, bool) { return li, true }
	return c
}

// TestProxyFunctionWrites: a v3 client pointed at a follower creates,
// stops and deletes a function; the writes land on the leader's Backend,
// the reads are the follower's own.
func TestProxyFunctionWrites(t *testing.T) {
	c := newCluster(t)
	var mem memFunctions
	mem.install(c.leader)
	c.leader.SetInstanceStateFn = func(_ context.Context, k scheduler.FunctionKey, i int, running bool) error {
		c.leader.calls.add("state %s %d %v", k, i, running)
		return nil
	}
	c.follower.GetFunctionFn = func(_ context.Context, k scheduler.FunctionKey) (utils.FunctionConfig, error) {
		c.follower.calls.add("get %s", k)
		return utils.FunctionConfig{Tenant: k.Tenant, Namespace: k.Namespace, Name: k.Name, ClassName: "local"}, nil
	}

	admin, err := pulsaradmin.NewClient(&config.Config{WebServiceURL: c.followerSrv.URL, PulsarAPIVersion: config.V3})
	if err != nil {
		t.Fatal(err)
	}
	fns := admin.Functions()
	jar := filepath.Join(t.TempDir(), "fn.jar")
	os.WriteFile(jar, []byte("code"), 0o600)
	cfg := &utils.FunctionConfig{Tenant: "public", Namespace: "default", Name: "f1", ClassName: "org.example.Fn", Parallelism: 1}
	if err := fns.CreateFunc(cfg, jar); err != nil {
		t.Fatalf("CreateFunc via follower: %v", err)
	}
	if got := mem.pkgs[f1]; got != "fn.jar:code" {
		t.Fatalf("leader stored %q", got)
	}
	// An error from the leader comes back through the proxy unchanged.
	var re rest.Error
	if err := fns.CreateFunc(cfg, jar); !errors.As(err, &re) || re.Code != 400 || re.Reason != "Function f1 already exists" {
		t.Fatalf("second CreateFunc via follower: %v", err)
	}
	if err := fns.StopFunctionWithID("public", "default", "f1", 0); err != nil {
		t.Fatalf("StopFunctionWithID: %v", err)
	}
	got, err := fns.GetFunction("public", "default", "f1")
	if err != nil || got.ClassName != "local" {
		t.Fatalf("GetFunction on follower: %+v %v", got, err)
	}
	if err := fns.DeleteFunction("public", "default", "f1"); err != nil {
		t.Fatalf("DeleteFunction via follower: %v", err)
	}

	want := []string{
		`POST /admin/v3/functions/public/default/f1 by="w2" ct=true`,
		`POST /admin/v3/functions/public/default/f1 by="w2" ct=true`,
		`POST /admin/v3/functions/public/default/f1/0/stop by="w2" ct=false`,
		`DELETE /admin/v3/functions/public/default/f1 by="w2" ct=false`,
	}
	if got := c.atLeader.get(); !equalStrings(got, want) {
		t.Errorf("at leader:\n got %q\nwant %q", got, want)
	}
	if got := c.leader.calls.get(); !equalStrings(got, []string{"state public/default/f1 0 false"}) {
		t.Errorf("leader calls %q", got)
	}
	if got := c.follower.calls.get(); !equalStrings(got, []string{"get public/default/f1"}) {
		t.Errorf("follower calls %q", got)
	}
}

func TestProxyKeepsQuery(t *testing.T) {
	c := newCluster(t)
	c.leader.RestartInstanceFn = func(context.Context, scheduler.FunctionKey, int) error { return nil }
	req, _ := http.NewRequest("POST", c.followerSrv.URL+fnBase+"/restart?x=1&y=a+b", nil)
	req.Header.Set("X-Custom", "kept")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if got := c.atLeader.get(); len(got) != 1 || got[0] != `POST `+fnBase+`/restart?x=1&y=a+b by="w2" ct=false` {
		t.Fatalf("at leader %q", got)
	}
}

// TestProxyNoLoop: a forwarded write that lands on another non-leader is
// refused, not forwarded again.
func TestProxyNoLoop(t *testing.T) {
	c := newCluster(t)
	c.leader.IsLeaderFn = func() bool { return false } // it lost leadership
	c.leader.LeaderFn = func() (scheduler.WorkerInfo, bool) { return w2, true }
	req, _ := http.NewRequest("DELETE", c.followerSrv.URL+fnBase, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	w := httptest.NewRecorder()
	w.Code = resp.StatusCode
	w.HeaderMap = resp.Header
	w.Body.ReadFrom(resp.Body)
	if resp.StatusCode != 503 {
		t.Fatalf("status %d: %s", resp.StatusCode, w.Body.String())
	}
	if got := reasonOf(t, w); got != "Worker w1 received a forwarded request but is not the leader either; leadership is changing, please try again" {
		t.Fatalf("reason %q", got)
	}
}

func TestProxyLeaderDown(t *testing.T) {
	f := newFake().follower()
	dead := httptest.NewServer(http.NotFoundHandler())
	info := infoOf(t, "w1", dead.URL)
	dead.Close()
	f.LeaderFn = func() (scheduler.WorkerInfo, bool) { return info, true }
	w := serve(t, New(f, Options{}), "DELETE", fnBase, nil)
	if w.Code != 502 {
		t.Fatalf("status %d: %s", w.Code, w.Body.String())
	}
	reasonOf(t, w)
}

func TestProxyNoLeader(t *testing.T) {
	f := newFake().follower()
	f.LeaderFn = func() (scheduler.WorkerInfo, bool) { return scheduler.WorkerInfo{}, false }
	w := serve(t, New(f, Options{}), "POST", fnBase+"/start", nil)
	if w.Code != 500 || reasonOf(t, w) != "Leader cannot be determined" {
		t.Fatalf("%d %s", w.Code, w.Body.String())
	}
}

// TestRedirectIsFollowed: Go's http.Client (and so pulsaradmin's rest
// client) follows our 307 with the same method to the leader.
func TestRedirectIsFollowed(t *testing.T) {
	c := newCluster(t)
	c.leader.DrainFn = func(_ context.Context, w string, o drain.Options) error {
		c.leader.calls.add("drain %s force=%v", w, o.Force)
		return nil
	}
	c.leader.RebalanceFn = func(context.Context) error { c.leader.calls.add("rebalance"); return nil }
	for _, path := range []string{"/admin/worker/drain?force=true", "/admin/v2/worker/rebalance"} {
		req, _ := http.NewRequest("PUT", c.followerSrv.URL+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 204 {
			t.Fatalf("%s: status %d", path, resp.StatusCode)
		}
	}
	if got := c.leader.calls.get(); !equalStrings(got, []string{"drain w2 force=true", "rebalance"}) {
		t.Fatalf("leader calls %q", got)
	}
	want := []string{
		`PUT /admin/v2/worker/leader/drain?workerId=w2&force=true by="" ct=false`,
		`PUT /admin/v2/worker/rebalance by="" ct=false`,
	}
	if got := c.atLeader.get(); !equalStrings(got, want) {
		t.Fatalf("at leader %q", got)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestForwardedReachesBackend: a request carrying ForwardedHeader reaches
// the Backend with a context for which IsForwarded is true.
func TestForwardedReachesBackend(t *testing.T) {
	f := newFake()
	f.InstanceStatusFn = func(ctx context.Context, _ scheduler.FunctionKey, _ int) (utils.FunctionInstanceStatusData, error) {
		f.calls.add("forwarded=%v", IsForwarded(ctx))
		return utils.FunctionInstanceStatusData{}, nil
	}
	h := New(f, Options{})
	serve(t, h, "GET", fnBase+"/0/status", nil)
	serve(t, h, "GET", fnBase+"/0/status", nil, ForwardedHeader, "true")
	if got := f.calls.get(); !equalStrings(got, []string{"forwarded=false", "forwarded=true"}) {
		t.Fatalf("%q", got)
	}
}
