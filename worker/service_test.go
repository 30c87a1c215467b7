package worker

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"

	"github.com/fworker/fworker/cluster/embedded"
	"github.com/fworker/fworker/drain"
	"github.com/fworker/fworker/rest"
	"github.com/fworker/fworker/scheduler"
	"github.com/fworker/fworker/worker/runtime"
)

var sleeperBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fworker-worker-test")
	if err != nil {
		panic(err)
	}
	sleeperBin = filepath.Join(dir, "sleeper")
	out, err := exec.Command("go", "build", "-o", sleeperBin, "./testdata/sleeper").CombinedOutput()
	if err != nil {
		panic(fmt.Sprintf("build sleeper: %v\n%s", err, out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		<-tick.C
	}
}

func startCluster(t *testing.T, n int) ([]*Service, *embedded.Hub) {
	t.Helper()
	dir := t.TempDir()
	hub, err := embedded.Open(filepath.Join(dir, "state.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var svcs []*Service
	for i := range n {
		id := fmt.Sprintf("w%d", i)
		s, err := Start(context.Background(), Options{
			Self:           scheduler.WorkerInfo{ID: id, Hostname: "127.0.0.1", Port: 1 + i},
			Backend:        hub,
			Dir:            filepath.Join(dir, id),
			Scheduler:      scheduler.Config{MoveTimeout: 20 * time.Second, RescheduleTimeout: 2 * time.Second},
			Periods:        scheduler.Periods{Tick: time.Second, FailureCheck: time.Second},
			ReportInterval: 200 * time.Millisecond,
			Runtime:        runtime.Options{StopGrace: 2 * time.Second, BackoffMin: 100 * time.Millisecond},
		})
		if err != nil {
			t.Fatal(err)
		}
		svcs = append(svcs, s)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, s := range svcs {
			s.Close(ctx)
		}
		hub.Close()
	})
	eventually(t, "a leader", 10*time.Second, func() bool { return svcs[0].IsLeader() && svcs[n-1].Initialized() })
	return svcs, hub
}

func running(svcs []*Service) map[string]int {
	out := map[string]int{}
	for _, s := range svcs {
		out[s.opts.Self.ID] = len(s.rt.Running())
	}
	return out
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func TestDrainMovesRealProcessesMakeBeforeBreak(t *testing.T) {
	svcs, _ := startCluster(t, 3)
	leader := svcs[0]
	ctx := context.Background()
	f, err := os.Open(sleeperBin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg := utils.FunctionConfig{Tenant: "public", Namespace: "default", Name: "sleeper", Parallelism: 6, Runtime: "GO"}
	if err := leader.CreateFunction(ctx, cfg, rest.Package{Data: f, FileName: "sleeper"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "6 instances running", 30*time.Second, func() bool { return total(running(svcs)) == 6 })
	if got := running(svcs); got["w1"] != 2 {
		t.Fatalf("placement %v, want 2 each", got)
	}
	if err := leader.Drain(ctx, "w1", drain.Options{Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	var st drain.Record
	eventually(t, "drain SUCCESS", 60*time.Second, func() bool {
		if n := total(running(svcs)); n < 6 {
			t.Fatalf("only %d instances running during the drain: %v", n, running(svcs))
		}
		st, err = leader.DrainStatus(ctx, "w1")
		if err != nil {
			t.Fatal(err)
		}
		return st.Status == drain.Success
	})
	if st.Moved != 2 || st.Remaining != 0 {
		t.Fatalf("status %+v", st)
	}
	eventually(t, "w1 empty, others 3", 30*time.Second, func() bool {
		r := running(svcs)
		return r["w1"] == 0 && r["w0"] == 3 && r["w2"] == 3
	})
	if err := leader.Drain(ctx, "w1", drain.Options{}); err == nil {
		t.Fatal("second drain accepted")
	}
	// Status through a non-leader is not served locally.
	if _, err := svcs[2].DrainStatus(ctx, "w1"); err != rest.ErrNotLeader {
		t.Fatalf("non-leader status: %v", err)
	}
	fs, err := svcs[2].FunctionStatus(ctx, scheduler.FunctionKey{Tenant: "public", Namespace: "default", Name: "sleeper"})
	if err != nil {
		t.Fatal(err)
	}
	if fs.NumInstances != 6 {
		t.Fatalf("status %+v", fs)
	}
}

func TestLeaderFailoverContinuesFromStore(t *testing.T) {
	svcs, _ := startCluster(t, 3)
	ctx := context.Background()
	f, _ := os.Open(sleeperBin)
	defer f.Close()
	cfg := utils.FunctionConfig{Tenant: "public", Namespace: "default", Name: "s2", Parallelism: 3}
	if err := svcs[0].CreateFunction(ctx, cfg, rest.Package{Data: f}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "3 running", 30*time.Second, func() bool { return total(running(svcs)) == 3 })
	if err := svcs[0].Drain(ctx, "w2", drain.Options{}); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := svcs[0].Close(cctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, "w1 leads", 10*time.Second, func() bool { return svcs[1].IsLeader() })
	eventually(t, "drain ends SUCCESS on the new leader", 60*time.Second, func() bool {
		st, err := svcs[1].DrainStatus(ctx, "w2")
		return err == nil && st.Status == drain.Success
	})
	eventually(t, "all 3 on w1", 60*time.Second, func() bool {
		r := running(svcs[1:])
		return r["w1"] == 3 && r["w2"] == 0
	})
}
