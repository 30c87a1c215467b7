package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
)

var exclamation struct {
	once sync.Once
	path string
	err  error
}

func exclamationBin(t *testing.T) string {
	exclamation.once.Do(func() {
		exclamation.path = filepath.Join(bins.dir, "exclamation")
		out, err := exec.Command("go", "build", "-o", exclamation.path, "../examples/exclamation").CombinedOutput()
		if err != nil {
			exclamation.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if exclamation.err != nil {
		t.Fatal(exclamation.err)
	}
	return exclamation.path
}

// TestClusterDataPlaneDrain: the exclamation function consumes a topic and
// produces to another while its worker is drained under a steady input
// stream. Nothing may be lost; duplicates and the longest gap are reported.
func TestClusterDataPlaneDrain(t *testing.T) {
	c := newPulsarCluster(t, 3)
	c.waitMembers(3)
	leaderID, _ := c.leader()
	suffix := fmt.Sprintf("%06d", rand.IntN(1e6))
	in, out := "persistent://public/default/in-"+suffix, "persistent://public/default/out-"+suffix
	ns := strings.SplitN(c.namespace, "/", 2)
	cfg := &utils.FunctionConfig{Tenant: ns[0], Namespace: ns[1], Name: "excl", Parallelism: 2, Runtime: "GO",
		Inputs: []string{in}, Output: out, SubscriptionPosition: "Earliest"}
	if err := v3(t, c.url(c.index(leaderID))).Functions().CreateFunc(cfg, exclamationBin(t)); err != nil {
		t.Fatal(err)
	}
	fqfn := c.namespace + "/excl"
	eventually(t, "2 instances", 60*time.Second, func() bool { return count(instanceProcs(fqfn)) == 2 })

	client, err := pulsar.NewClient(pulsar.ClientOptions{URL: c.serviceURL})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	consumer, err := client.Subscribe(pulsar.ConsumerOptions{Topic: out, SubscriptionName: "check",
		SubscriptionInitialPosition: pulsar.SubscriptionPositionEarliest})
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	producer, err := client.CreateProducer(pulsar.ProducerOptions{Topic: in})
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close()

	const total = 600 // 20 per second for 30 s
	received := map[string]int{}
	var gaps []time.Duration
	done := make(chan struct{})
	go func() {
		defer close(done)
		last := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		for len(received) < total {
			m, err := consumer.Receive(ctx)
			if err != nil {
				return
			}
			consumer.Ack(m)
			received[string(m.Payload())]++
			now := time.Now()
			gaps = append(gaps, now.Sub(last))
			last = now
		}
	}()
	// The worker that runs instance 0 gets drained a third of the way in.
	var victim string
	for w, ids := range instanceProcs(fqfn) {
		if _, ok := ids[fqfn+":0"]; ok {
			victim = w
		}
	}
	tick := time.NewTicker(50 * time.Millisecond)
	for i := range total {
		<-tick.C
		if _, err := producer.Send(context.Background(), &pulsar.ProducerMessage{Payload: []byte(fmt.Sprintf("m%04d", i))}); err != nil {
			t.Fatal(err)
		}
		if i == total/3 {
			if code, body := put(t, c.url(c.index(leaderID))+"/admin/v2/worker/leader/drain?workerId="+victim); code != 204 {
				t.Fatalf("drain %s: %d %s", victim, code, body)
			}
		}
	}
	tick.Stop()
	<-done
	st := getDrain(t, c.url(c.index(leaderID)), victim)
	dups, longest := 0, time.Duration(0)
	for _, n := range received {
		dups += n - 1
	}
	for _, g := range gaps[1:] {
		longest = max(longest, g)
	}
	t.Logf("data plane through a drain of %s (%s): sent %d, received %d distinct, %d duplicates, longest gap between outputs %s",
		victim, st.Status, total, len(received), dups, longest)
	for i := range total {
		if received[fmt.Sprintf("m%04d!", i)] == 0 {
			t.Errorf("m%04d was lost", i)
		}
	}
	if st.Status != "SUCCESS" {
		t.Errorf("drain status %+v", st)
	}
	// The SDK's counters reach the function stats (per run: the moved
	// instance restarted on its new worker, so they need not add up to 600).
	eventually(t, "processed counters in the function stats", 30*time.Second, func() bool {
		fs, err := v3(t, c.url(0)).Functions().GetFunctionStats(ns[0], ns[1], "excl")
		return err == nil && fs.ProcessedSuccessfullyTotal > 0 && fs.ReceivedTotal >= fs.ProcessedSuccessfullyTotal
	})
}
