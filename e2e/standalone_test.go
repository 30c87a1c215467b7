package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/pulsar-client-go/pulsaradmin"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/admin/config"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
)

func v3(t *testing.T, url string) pulsaradmin.Client {
	c, err := pulsaradmin.NewClient(&config.Config{WebServiceURL: url, PulsarAPIVersion: config.V3})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func v2(t *testing.T, url string) pulsaradmin.Client {
	c, err := pulsaradmin.NewClient(&config.Config{WebServiceURL: url})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type drainStatus struct {
	Status    string `json:"status"`
	LastError string `json:"lastError"`
	Total     int    `json:"total"`
	Moved     int    `json:"moved"`
	Remaining int    `json:"remaining"`
}

// getDrain reads a drain status; a 503 (a worker still initializing, e.g. a
// leader rebuilding its state) is polled through for up to 30 s.
func getDrain(t *testing.T, url, worker string) drainStatus {
	t.Helper()
	var st drainStatus
	eventually(t, "a drain status answer", 30*time.Second, func() bool {
		resp, err := http.Get(url + "/admin/v2/worker/leader/drain?workerId=" + worker)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		switch resp.StatusCode {
		case http.StatusServiceUnavailable:
			return false
		case http.StatusOK:
			if err := json.Unmarshal(body, &st); err != nil {
				t.Fatal(err)
			}
			return true
		}
		t.Fatalf("drain status: %s %s", resp.Status, body)
		return false
	})
	return st
}

func put(t *testing.T, url string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestStandaloneDrainRestartAndCrash is the standalone's acceptance story:
// six real instance processes, a make-before-break drain, a restart that
// keeps everything, a killed instance that comes back, Pulsar's 412.
func TestStandaloneDrainRestartAndCrash(t *testing.T) {
	port := freePorts(t, 3)
	dataDir := t.TempDir()
	s := startStandalone(t, 3, port, dataDir)
	fn := fmt.Sprintf("slowstop%d", time.Now().UnixNano()%1e6) // its instances take 2 s to stop
	fqfn := "public/default/" + fn

	// Created through a non-leader with the official v3 client: the write
	// is proxied to the leader.
	cfg := &utils.FunctionConfig{Tenant: "public", Namespace: "default", Name: fn, Parallelism: 6, Runtime: "GO"}
	if err := v3(t, s.url(2)).Functions().CreateFunc(cfg, bins.function); err != nil {
		t.Fatal(err)
	}
	s.eventually("6 instance processes", 60*time.Second, func() bool { return count(instanceProcs(fqfn)) == 6 })
	procs := instanceProcs(fqfn)
	if len(procs["standalone-1"]) != 2 {
		t.Fatalf("placement %v", procs)
	}

	// Drain worker 1 by asking worker 2, a non-leader: it answers 307 to
	// the leader and the client follows with the same method.
	code, body := put(t, s.url(2)+"/admin/v2/worker/leader/drain?workerId=standalone-1")
	if code != http.StatusNoContent {
		t.Fatalf("drain: %d %s", code, body)
	}
	sawRunning := false
	s.eventually("drain SUCCESS", 90*time.Second, func() bool {
		if n := distinct(instanceProcs(fqfn)); n < 6 {
			t.Fatalf("only %d distinct instances running during the drain (make-before-break broken)", n)
		}
		st := getDrain(t, s.url(0), "standalone-1")
		switch st.Status {
		case "RUNNING":
			sawRunning = true
		case "SUCCESS":
			if st.Moved != 2 || st.Remaining != 0 || st.Total != 2 {
				t.Fatalf("final status %+v", st)
			}
			return true
		case "ERROR":
			t.Fatalf("drain failed: %+v", st)
		}
		return false
	})
	if !sawRunning {
		t.Fatal("never saw the drain RUNNING: each move waits 2 s for its source to stop")
	}
	s.eventually("drained worker empty, others hold 6", 30*time.Second, func() bool {
		p := instanceProcs(fqfn)
		return len(p["standalone-1"]) == 0 && len(p["standalone-0"])+len(p["standalone-2"]) == 6 && count(p) == 6
	})

	// A second drain of the same worker: Pulsar's 412 and reason text.
	code, body = put(t, s.url(0)+"/admin/v2/worker/leader/drain?workerId=standalone-1")
	if code != http.StatusPreconditionFailed || !strings.Contains(body, `"reason":"Worker standalone-1 was not yet removed after a prior drain op; try later"`) {
		t.Fatalf("second drain: %d %s", code, body)
	}

	// kill -9 of an instance process: the runtime restarts it.
	var victim string
	var pid int
	for id, p := range instanceProcs(fqfn)["standalone-0"] {
		victim, pid = id, p
		break
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.eventually("killed instance restarted", 30*time.Second, func() bool {
		p := instanceProcs(fqfn)
		np, ok := p["standalone-0"][victim]
		return ok && np != pid && count(p) == 6
	})

	// Restart: functions, assignments and drain records survive.
	before := assignments(t, s.url(0))
	s.stop()
	s.eventually("instances stopped with the standalone", 30*time.Second, func() bool { return count(instanceProcs(fqfn)) == 0 })
	s = startStandalone(t, 3, port, dataDir)
	s.eventually("6 instances again", 60*time.Second, func() bool { return count(instanceProcs(fqfn)) == 6 })
	if after := assignments(t, s.url(1)); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("assignments changed across restart:\n before %v\n after  %v", before, after)
	}
	if st := getDrain(t, s.url(0), "standalone-1"); st.Status != "SUCCESS" || st.Moved != 2 {
		t.Fatalf("drain record after restart: %+v", st)
	}
	names, err := v3(t, s.url(0)).Functions().GetFunctions("public", "default")
	if err != nil || len(names) != 1 || names[0] != fn {
		t.Fatalf("functions after restart: %v %v", names, err)
	}
}

func assignments(t *testing.T, url string) map[string][]string {
	t.Helper()
	a, err := v2(t, url).FunctionsWorker().GetAssignments()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestAdminClient runs the official Go admin client against the standalone.
func TestAdminClient(t *testing.T) {
	s := startStandalone(t, 3, freePorts(t, 3), t.TempDir())
	w := v2(t, s.url(1)).FunctionsWorker()
	members, err := w.GetCluster()
	if err != nil || len(members) != 3 {
		t.Fatalf("GetCluster: %v %v", members, err)
	}
	leader, err := w.GetClusterLeader()
	if err != nil || leader.WorkerID != "standalone-0" || leader.Port != s.port {
		t.Fatalf("GetClusterLeader: %+v %v", leader, err)
	}
	fns := v3(t, s.url(1)).Functions()
	cfg := &utils.FunctionConfig{Tenant: "public", Namespace: "default", Name: "adm", Parallelism: 2, Runtime: "GO"}
	if err := fns.CreateFunc(cfg, bins.function); err != nil {
		t.Fatal(err)
	}
	names, err := fns.GetFunctions("public", "default")
	if err != nil || len(names) != 1 || names[0] != "adm" {
		t.Fatalf("GetFunctions: %v %v", names, err)
	}
	got, err := fns.GetFunction("public", "default", "adm")
	if err != nil || got.Parallelism != 2 || got.Name != "adm" {
		t.Fatalf("GetFunction: %+v %v", got, err)
	}
	s.eventually("2 instances running per status", 60*time.Second, func() bool {
		st, err := fns.GetFunctionStatus("public", "default", "adm")
		return err == nil && st.NumInstances == 2 && st.NumRunning == 2
	})
	a, err := w.GetAssignments()
	if err != nil || len(a) == 0 {
		t.Fatalf("GetAssignments: %v %v", a, err)
	}
	// Counters travel from the instances' stats files (the sleeper writes
	// received 7, processed 6, one user exception), each read where the
	// instance runs, whichever worker is asked.
	var st utils.FunctionStats
	s.eventually("both instances wrote their stats files", 30*time.Second, func() bool {
		st, err = fns.GetFunctionStats("public", "default", "adm")
		return err == nil && st.ReceivedTotal == 14
	})
	if st.ReceivedTotal != 14 || st.ProcessedSuccessfullyTotal != 12 || st.UserExceptionsTotal != 2 || st.AvgProcessLatency != 2.5 || len(st.Instances) != 2 {
		t.Fatalf("GetFunctionStats: %+v %v", st, err)
	}
	one, err := fns.GetFunctionStatusWithInstanceID("public", "default", "adm", 1)
	if err != nil || one.NumReceived != 7 || len(one.LatestUserExceptions) != 1 || !one.Running {
		t.Fatalf("instance status: %+v %v", one, err)
	}
	if ws, err := w.GetFunctionsStats(); err != nil {
		t.Fatalf("GetFunctionsStats: %v", err)
	} else {
		for _, x := range ws {
			if strings.HasPrefix(x.Name, "public/default/adm:") && x.Metrics.ReceivedTotal != 7 {
				t.Fatalf("functionsmetrics %+v", x)
			}
		}
	}
	if m, err := w.GetMetrics(); err != nil || len(m) == 0 {
		t.Fatalf("GetMetrics: %v %v", m, err)
	}
	if err := fns.DeleteFunction("public", "default", "adm"); err != nil {
		t.Fatal(err)
	}
	s.eventually("instances gone", 30*time.Second, func() bool { return count(instanceProcs("public/default/adm")) == 0 })
	if _, err := fns.GetFunction("public", "default", "adm"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("GetFunction after delete: %v", err)
	}
}

// TestUnsupportedSecurityRefused: security settings fworker does not
// enforce yet stop it from starting instead of being silently ignored.
func TestUnsupportedSecurityRefused(t *testing.T) {
	for _, env := range []string{"FWORKER_AUTHENTICATION_ENABLED=true", "FWORKER_HTTP_REQUESTS_LIMIT_ENABLED=true"} {
		cmd := exec.Command(bins.fworker, "standalone", "--port", fmt.Sprint(freePorts(t, 3)), "--data-dir", t.TempDir())
		cmd.Env = append(os.Environ(), env)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "does not implement it yet") {
			t.Errorf("%s: err %v, output %s", env, err, out)
		}
	}
}
