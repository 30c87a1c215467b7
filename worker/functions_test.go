package worker

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"

	"github.com/fworker/fworker/cluster"
	"github.com/fworker/fworker/rest"
	"github.com/fworker/fworker/scheduler"
)

// TestPackagesFollowFunctions: a package is kept exactly as long as a
// function uses it; an update with new code restarts the instances on it.
func TestPackagesFollowFunctions(t *testing.T) {
	svcs, _ := startCluster(t, 1)
	w := svcs[0]
	ctx := context.Background()
	bin, err := os.ReadFile(sleeperBin)
	if err != nil {
		t.Fatal(err)
	}
	k := scheduler.FunctionKey{Tenant: "public", Namespace: "default", Name: "pkg"}
	cfg := utils.FunctionConfig{Tenant: k.Tenant, Namespace: k.Namespace, Name: k.Name, Parallelism: 1}

	// A refused create leaves no package behind.
	bad := cfg
	bad.Parallelism = scheduler.MaxParallelism + 1
	if err := w.CreateFunction(ctx, bad, rest.Package{Data: bytes.NewReader(bin)}); err == nil {
		t.Fatal("create with too many instances accepted")
	}
	sum := func(data []byte) string { return packageFor(k, data) }
	if _, err := w.sess.OpenPackage(ctx, sum(bin)); !errors.Is(err, cluster.ErrNoPackage) {
		t.Fatalf("package of a refused create: %v", err)
	}

	if err := w.CreateFunction(ctx, cfg, rest.Package{Data: bytes.NewReader(bin)}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "instance running", 30*time.Second, func() bool { return len(w.rt.Running()) == 1 })
	first := w.rt.Running()[0].Gen

	// New code (the same program with a byte appended still runs).
	bin2 := append(bytes.Clone(bin), 0)
	if err := w.UpdateFunction(ctx, utils.FunctionConfig{Tenant: k.Tenant, Namespace: k.Namespace, Name: k.Name}, &rest.Package{Data: bytes.NewReader(bin2)}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "instance restarted on the new version", 30*time.Second, func() bool {
		r := w.rt.Running()
		st, ok := w.rt.Status(scheduler.InstanceID{Function: k, Index: 0})
		return len(r) == 1 && r[0].Gen != first && ok && st.Version == 2
	})
	if _, err := w.sess.OpenPackage(ctx, sum(bin)); !errors.Is(err, cluster.ErrNoPackage) {
		t.Fatalf("replaced package still stored: %v", err)
	}
	if r, err := w.sess.OpenPackage(ctx, sum(bin2)); err != nil {
		t.Fatalf("new package: %v", err)
	} else {
		r.Close()
	}
	if err := w.DeleteFunction(ctx, k); err != nil {
		t.Fatal(err)
	}
	if _, err := w.sess.OpenPackage(ctx, sum(bin2)); !errors.Is(err, cluster.ErrNoPackage) {
		t.Fatalf("package of a deleted function: %v", err)
	}
}
