package rest

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/pulsar-client-go/pulsaradmin"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/admin/config"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/rest"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"

	"github.com/fworker/fworker/scheduler"
)

// The Go admin client (pulsaradmin v0.19.0, as pulsarctl uses it) must
// decode what we serve. A v2 client talks to /admin/v2/worker...

func TestAdminClientV2(t *testing.T) {
	f := newFake()
	f.AssignmentsFn = func() map[string][]string {
		return map[string][]string{"w1": {"public/default/f1:0"}, "w2": {"public/default/f1:1"}}
	}
	f.FunctionsMetricsFn = func(context.Context) ([]utils.WorkerFunctionInstanceStats, error) {
		s := utils.WorkerFunctionInstanceStats{Name: "public/default/f1:0"}
		s.Metrics.ReceivedTotal = 5
		s.Metrics.OneMin.ReceivedTotal = 2
		s.Metrics.UserMetrics = map[string]float64{"x": 1.5}
		return []utils.WorkerFunctionInstanceStats{s}, nil
	}
	f.WorkerMetricsFn = func(context.Context) ([]utils.Metrics, error) {
		return []utils.Metrics{{Metrics: map[string]any{"instances": 2}, Dimensions: map[string]string{"metric": "fworker"}}}, nil
	}
	srv := httptest.NewServer(New(f, Options{}))
	defer srv.Close()
	admin, err := pulsaradmin.NewClient(&config.Config{WebServiceURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	fw := admin.FunctionsWorker()

	cluster, err := fw.GetCluster()
	if err != nil || len(cluster) != 2 || *cluster[0] != (utils.WorkerInfo{WorkerID: "w1", WorkerHostname: "host-1", Port: 6750}) ||
		cluster[1].WorkerID != "w2" {
		t.Fatalf("GetCluster: %v %v", cluster, err)
	}
	leader, err := fw.GetClusterLeader()
	if err != nil || *leader != (utils.WorkerInfo{WorkerID: "w1", WorkerHostname: "host-1", Port: 6750}) {
		t.Fatalf("GetClusterLeader: %+v %v", leader, err)
	}
	assign, err := fw.GetAssignments()
	if err != nil || len(assign) != 2 || !slices.Equal(assign["w2"], []string{"public/default/f1:1"}) {
		t.Fatalf("GetAssignments: %v %v", assign, err)
	}
	stats, err := fw.GetFunctionsStats()
	if err != nil || len(stats) != 1 || stats[0].Name != "public/default/f1:0" || stats[0].Metrics.ReceivedTotal != 5 ||
		stats[0].Metrics.OneMin.ReceivedTotal != 2 || stats[0].Metrics.UserMetrics["x"] != 1.5 {
		t.Fatalf("GetFunctionsStats: %+v %v", stats, err)
	}
	metrics, err := fw.GetMetrics()
	if err != nil || len(metrics) != 1 || metrics[0].Dimensions["metric"] != "fworker" || metrics[0].Metrics["instances"] != 2.0 {
		t.Fatalf("GetMetrics: %+v %v", metrics, err)
	}

	// Errors arrive as rest.Error with our reason.
	f.LeaderFn = func() (scheduler.WorkerInfo, bool) { return scheduler.WorkerInfo{}, false }
	_, err = fw.GetClusterLeader()
	var re rest.Error
	if !errors.As(err, &re) || re.Code != 500 || re.Reason != "Leader cannot be determined" {
		t.Fatalf("GetClusterLeader without leader: %v", err)
	}
	f.InitializedFn = func() bool { return false }
	_, err = fw.GetCluster()
	if !errors.As(err, &re) || re.Code != 503 || re.Reason != notInit {
		t.Fatalf("GetCluster before init: %v", err)
	}
}

// memFunctions is an in-memory function store behind the fake.
type memFunctions struct {
	mu   sync.Mutex
	cfgs map[scheduler.FunctionKey]utils.FunctionConfig
	pkgs map[scheduler.FunctionKey]string
}

func (m *memFunctions) install(f *fakeBackend) {
	m.cfgs = map[scheduler.FunctionKey]utils.FunctionConfig{}
	m.pkgs = map[scheduler.FunctionKey]string{}
	keyOf := func(c utils.FunctionConfig) scheduler.FunctionKey {
		return scheduler.FunctionKey{Tenant: c.Tenant, Namespace: c.Namespace, Name: c.Name}
	}
	f.CreateFunctionFn = func(_ context.Context, cfg utils.FunctionConfig, pkg Package) error {
		m.mu.Lock()
		defer m.mu.Unlock()
		k := keyOf(cfg)
		if _, ok := m.cfgs[k]; ok {
			return &scheduler.FunctionExistsError{Key: k}
		}
		data := pkg.URL
		if pkg.Data != nil {
			b, err := io.ReadAll(pkg.Data)
			if err != nil {
				return err
			}
			data = pkg.FileName + ":" + string(b)
		}
		m.cfgs[k], m.pkgs[k] = cfg, data
		return nil
	}
	f.GetFunctionFn = func(_ context.Context, k scheduler.FunctionKey) (utils.FunctionConfig, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		c, ok := m.cfgs[k]
		if !ok {
			return c, &scheduler.FunctionNotFoundError{Key: k}
		}
		return c, nil
	}
	f.ListFunctionsFn = func(_ context.Context, tenant, ns string) ([]string, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		var names []string
		for k := range m.cfgs {
			if k.Tenant == tenant && k.Namespace == ns {
				names = append(names, k.Name)
			}
		}
		slices.Sort(names)
		return names, nil
	}
	f.FunctionStatusFn = func(_ context.Context, k scheduler.FunctionKey) (utils.FunctionStatus, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		c, ok := m.cfgs[k]
		if !ok {
			return utils.FunctionStatus{}, &scheduler.FunctionNotFoundError{Key: k}
		}
		st := utils.FunctionStatus{NumInstances: c.Parallelism, NumRunning: c.Parallelism}
		for i := range c.Parallelism {
			st.Instances = append(st.Instances, utils.FunctionInstanceStatus{InstanceID: i,
				Status: utils.FunctionInstanceStatusData{Running: true, WorkerID: "w1"}})
		}
		return st, nil
	}
	f.DeleteFunctionFn = func(_ context.Context, k scheduler.FunctionKey) error {
		m.mu.Lock()
		defer m.mu.Unlock()
		if _, ok := m.cfgs[k]; !ok {
			return &scheduler.FunctionNotFoundError{Key: k}
		}
		delete(m.cfgs, k)
		return nil
	}
	f.OpenPackageFn = func(_ context.Context, k scheduler.FunctionKey) (io.ReadCloser, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		return io.NopCloser(strings.NewReader(m.pkgs[k])), nil
	}
}

// ...and a v3 client talks to /admin/v3/functions.
func TestAdminClientV3Functions(t *testing.T) {
	f := newFake()
	var mem memFunctions
	mem.install(f)
	srv := httptest.NewServer(New(f, Options{}))
	defer srv.Close()
	admin, err := pulsaradmin.NewClient(&config.Config{WebServiceURL: srv.URL, PulsarAPIVersion: config.V3})
	if err != nil {
		t.Fatal(err)
	}
	fns := admin.Functions()

	jar := filepath.Join(t.TempDir(), "exclamation.jar")
	if err := os.WriteFile(jar, []byte("PK\x03\x04 not really a jar"), 0o600); err != nil {
		t.Fatal(err)
	}
	className := "org.example.Exclamation"
	cfg := &utils.FunctionConfig{Tenant: "public", Namespace: "default", Name: "f1", ClassName: className,
		Inputs: []string{"persistent://public/default/in"}, Parallelism: 2, Runtime: "JAVA",
		AutoAck: true, CleanupSubscription: true, Jar: &jar}
	if err := fns.CreateFunc(cfg, jar); err != nil {
		t.Fatalf("CreateFunc: %v", err)
	}
	if got := mem.pkgs[f1]; got != "exclamation.jar:PK\x03\x04 not really a jar" {
		t.Fatalf("stored package %q", got)
	}
	err = fns.CreateFunc(cfg, jar)
	var re rest.Error
	if !errors.As(err, &re) || re.Code != 400 || re.Reason != "Function f1 already exists" {
		t.Fatalf("second CreateFunc: %v", err)
	}
	builtin := "builtin://exclamation"
	if err := fns.CreateFunc(&utils.FunctionConfig{Tenant: "public", Namespace: "default", Name: "f0",
		ClassName: className, Jar: &builtin}, builtin); err != nil {
		t.Fatalf("CreateFunc builtin: %v", err)
	}
	if err := fns.CreateFuncWithURL(&utils.FunctionConfig{Tenant: "public", Namespace: "default", Name: "f2",
		ClassName: className}, "http://repo/f2.jar"); err != nil {
		t.Fatalf("CreateFuncWithURL: %v", err)
	}

	names, err := fns.GetFunctions("public", "default")
	if err != nil || !slices.Equal(names, []string{"f0", "f1", "f2"}) {
		t.Fatalf("GetFunctions: %v %v", names, err)
	}
	got, err := fns.GetFunction("public", "default", "f1")
	if err != nil || got.ClassName != className || got.Parallelism != 2 || !got.AutoAck || got.Jar == nil {
		t.Fatalf("GetFunction: %+v %v", got, err)
	}
	st, err := fns.GetFunctionStatus("public", "default", "f1")
	if err != nil || st.NumInstances != 2 || st.NumRunning != 2 || len(st.Instances) != 2 || st.Instances[1].InstanceID != 1 {
		t.Fatalf("GetFunctionStatus: %+v %v", st, err)
	}
	dest := filepath.Join(t.TempDir(), "out.jar")
	if err := fns.DownloadFunctionByNs(dest, "public", "default", "f2"); err != nil {
		t.Fatalf("DownloadFunctionByNs: %v", err)
	}
	if b, _ := os.ReadFile(dest); string(b) != "http://repo/f2.jar" {
		t.Fatalf("downloaded %q", b)
	}
	if err := fns.DeleteFunction("public", "default", "f1"); err != nil {
		t.Fatalf("DeleteFunction: %v", err)
	}
	_, err = fns.GetFunction("public", "default", "f1")
	if !errors.As(err, &re) || re.Code != 404 || re.Reason != "Function f1 doesn't exist" {
		t.Fatalf("GetFunction after delete: %v", err)
	}
	if err := fns.DeleteFunction("public", "default", "f1"); !errors.As(err, &re) || re.Code != 404 {
		t.Fatalf("second DeleteFunction: %v", err)
	}
}
