package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
)

func getJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// leaderOf asks every live worker who leads; all must agree.
func (c *pulsarCluster) leader() (string, bool) {
	var seen []string
	for _, i := range c.alive() {
		var l utils.WorkerInfo
		if err := getJSON(c.url(i)+"/admin/v2/worker/cluster/leader", &l); err != nil {
			return "", false
		}
		seen = append(seen, l.WorkerID)
	}
	if len(seen) == 0 || slices.Compact(slices.Clone(seen))[0] != seen[0] || len(slices.Compact(seen)) != 1 {
		return "", false
	}
	return seen[0], true
}

func (c *pulsarCluster) index(id string) int {
	for i, nd := range c.nodes {
		if nd.id == id {
			return i
		}
	}
	c.t.Fatalf("no worker %s", id)
	return -1
}

func (c *pulsarCluster) waitMembers(n int) {
	c.t.Helper()
	eventually(c.t, fmt.Sprintf("%d members seen by every worker and one leader", n), 60*time.Second, func() bool {
		for _, i := range c.alive() {
			var m []utils.WorkerInfo
			if err := getJSON(c.url(i)+"/admin/v2/worker/cluster", &m); err != nil || len(m) != n {
				return false
			}
		}
		l, ok := c.leader()
		if !ok {
			return false
		}
		resp, err := http.Get(c.url(c.index(l)) + "/admin/v2/worker/cluster/leader/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK // the leader serves from rebuilt state
	})
}

func (c *pulsarCluster) createSleeper(worker int, name string, parallelism int) string {
	c.t.Helper()
	ns := strings.SplitN(c.namespace, "/", 2)
	cfg := &utils.FunctionConfig{Tenant: ns[0], Namespace: ns[1], Name: name, Parallelism: parallelism, Runtime: "GO"}
	if err := v3(c.t, c.url(worker)).Functions().CreateFunc(cfg, bins.function); err != nil {
		c.t.Fatalf("create %s: %v", name, err)
	}
	return c.namespace + "/" + name
}

// TestClusterDrainAndLeaderCrash: three `fworker run` on a real broker; one
// leader; a drain of a non-leader; a 307 from a non-leader; the leader
// killed in the middle of a drain and the drain finishing under the next.
func TestClusterDrainAndLeaderCrash(t *testing.T) {
	c := newPulsarCluster(t, 3)
	c.waitMembers(3)
	leaderID, _ := c.leader()
	li := c.index(leaderID)
	other := (li + 1) % 3
	third := (li + 2) % 3
	fqfn := c.createSleeper(other, "drained-slowstop", 6)
	eventually(t, "6 instance processes", 60*time.Second, func() bool { return count(instanceProcs(fqfn)) == 6 })

	// Drain a non-leader, asked of another non-leader: 307 to the leader.
	req, _ := http.NewRequest(http.MethodPut, c.url(third)+"/admin/v2/worker/leader/drain?workerId="+c.nodes[other].id, nil)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := fmt.Sprintf("%s/admin/v2/worker/leader/drain?workerId=%s", c.url(li), c.nodes[other].id)
	if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != want {
		t.Fatalf("non-leader answered %s Location %q, want 307 %q", resp.Status, resp.Header.Get("Location"), want)
	}
	if code, body := put(t, c.url(third)+"/admin/v2/worker/leader/drain?workerId="+c.nodes[other].id); code != http.StatusNoContent {
		t.Fatalf("drain: %d %s", code, body)
	}
	eventually(t, "drain of a non-leader SUCCESS", 90*time.Second, func() bool {
		if n := distinct(instanceProcs(fqfn)); n < 6 {
			t.Fatalf("%d distinct instances during the drain", n)
		}
		return getDrain(t, c.url(li), c.nodes[other].id).Status == "SUCCESS"
	})

	// Readmit it, then drain the third worker one move at a time and
	// kill -9 the leader while that runs. The leader's own instances are
	// rescheduled after rescheduleTimeoutMs; the drain continues under the
	// next leader from the persisted state.
	req, _ = http.NewRequest(http.MethodDelete, c.url(li)+"/admin/v2/worker/leader/drain?workerId="+c.nodes[other].id, nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("undrain: %v %v", resp, err)
	}
	if code, body := put(t, c.url(li)+"/admin/v2/worker/leader/drain?workerId="+c.nodes[third].id+"&maxParallel=1"); code != http.StatusNoContent {
		t.Fatalf("second drain: %d %s", code, body)
	}
	// Each move waits for its source to stop (2 s): the drain is running.
	if st := getDrain(t, c.url(li), c.nodes[third].id); st.Status != "RUNNING" || st.Remaining != 3 {
		t.Fatalf("before the crash: %+v", st)
	}
	killed := time.Now()
	c.kill(li)
	eventually(t, "a new leader", 60*time.Second, func() bool {
		l, ok := c.leader()
		return ok && l != leaderID
	})
	newLeader, _ := c.leader()
	// Failover is done when the new leader answers from rebuilt state.
	eventually(t, "the new leader serves the drain record", 60*time.Second, func() bool {
		var st drainStatus
		err := getJSON(c.url(c.index(newLeader))+"/admin/v2/worker/leader/drain?workerId="+c.nodes[third].id, &st)
		return err == nil && st.Total == 3
	})
	t.Logf("leader failover: kill -9 to the new leader serving rebuilt state took %s", time.Since(killed).Round(time.Millisecond))
	eventually(t, "the drain finishes SUCCESS under the new leader", 120*time.Second, func() bool {
		st := getDrain(t, c.url(c.index(newLeader)), c.nodes[third].id)
		if st.Status == "ERROR" {
			t.Fatalf("drain after failover: %+v", st)
		}
		if st.Status == "SUCCESS" && (st.Moved != 3 || st.Total != 3) {
			t.Fatalf("counts after failover: %+v", st)
		}
		return st.Status == "SUCCESS"
	})
	eventually(t, "all 6 instances on the one schedulable worker, exactly once", 90*time.Second, func() bool {
		p := instanceProcs(fqfn)
		return count(p) == 6 && distinct(p) == 6 && len(p[c.nodes[other].id]) == 6
	})
}

// TestClusterRestartKeepsState: stop every worker, start them again:
// functions, assignments and drain records come back from the topics.
func TestClusterRestartKeepsState(t *testing.T) {
	c := newPulsarCluster(t, 3)
	c.waitMembers(3)
	leaderID, _ := c.leader()
	li := c.index(leaderID)
	fqfn := c.createSleeper(li, "kept", 4)
	eventually(t, "4 instances", 60*time.Second, func() bool { return count(instanceProcs(fqfn)) == 4 })
	drained := c.nodes[(li+1)%3].id
	if code, body := put(t, c.url(li)+"/admin/v2/worker/leader/drain?workerId="+drained); code != http.StatusNoContent {
		t.Fatalf("drain: %d %s", code, body)
	}
	eventually(t, "drain SUCCESS", 90*time.Second, func() bool { return getDrain(t, c.url(li), drained).Status == "SUCCESS" })
	before := assignments(t, c.url(li))
	for i := range c.nodes { // the leader last: no failover on the way down
		if i != li {
			c.stop(i)
		}
	}
	c.stop(li)
	eventually(t, "instances gone", 30*time.Second, func() bool { return count(instanceProcs(fqfn)) == 0 })
	for i := range 3 {
		c.start(i)
	}
	c.waitMembers(3)
	leaderID, _ = c.leader()
	li = c.index(leaderID)
	eventually(t, "4 instances again", 60*time.Second, func() bool { return count(instanceProcs(fqfn)) == 4 })
	if after := assignments(t, c.url(li)); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("assignments changed:\n before %v\n after  %v", before, after)
	}
	if st := getDrain(t, c.url(li), drained); st.Status != "SUCCESS" || st.Moved == 0 {
		t.Fatalf("drain record after restart: %+v", st)
	}
}
