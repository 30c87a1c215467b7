package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Cluster-mode tests need a real Pulsar broker: `scripts/pulsar/pulsar.sh up`
// (`make test` does it) and these variables.
func pulsarEnv(t *testing.T) (serviceURL, adminURL string) {
	serviceURL, adminURL = os.Getenv("FWTEST_PULSAR_URL"), os.Getenv("FWTEST_PULSAR_ADMIN_URL")
	if serviceURL == "" || adminURL == "" {
		if os.Getenv("FWTEST_REQUIRE_PULSAR") != "" {
			t.Fatal("FWTEST_REQUIRE_PULSAR is set but FWTEST_PULSAR_URL / FWTEST_PULSAR_ADMIN_URL are not")
		}
		t.Skip("no Pulsar broker: run scripts/pulsar/pulsar.sh up and set FWTEST_PULSAR_URL=pulsar://127.0.0.1:6650 FWTEST_PULSAR_ADMIN_URL=http://127.0.0.1:8080")
	}
	return serviceURL, adminURL
}

// pulsarCluster is a set of `fworker run` processes sharing a namespace of
// their own on the broker.
type pulsarCluster struct {
	t          *testing.T
	namespace  string
	serviceURL string
	adminURL   string
	base       int
	dataDir    string
	env        []string
	nodes      map[int]*node
}

type node struct {
	id     string
	port   int
	cmd    *exec.Cmd
	exited chan struct{}
	mu     sync.Mutex
	log    bytes.Buffer
}

func newPulsarCluster(t *testing.T, n int, extraEnv ...string) *pulsarCluster {
	serviceURL, adminURL := pulsarEnv(t)
	c := &pulsarCluster{
		t: t, serviceURL: serviceURL, adminURL: adminURL, base: freePorts(t, n+2),
		namespace: fmt.Sprintf("public/fw%06d", rand.IntN(1e6)), dataDir: t.TempDir(), nodes: map[int]*node{},
	}
	req, _ := http.NewRequest(http.MethodPut, adminURL+"/admin/v2/namespaces/"+c.namespace, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusConflict {
		t.Fatalf("create namespace %s: %s", c.namespace, resp.Status)
	}
	c.env = append([]string{
		"FWORKER_PULSAR_SERVICE_URL=" + serviceURL,
		"FWORKER_PULSAR_WEB_SERVICE_URL=" + adminURL,
		"FWORKER_PULSAR_FUNCTIONS_NAMESPACE=" + c.namespace,
		"FWORKER_WORKER_HOSTNAME=127.0.0.1",
		"FWORKER_RESCHEDULE_TIMEOUT_MS=4000",
		"FWORKER_FAILURE_CHECK_FREQ_MS=1000",
		"FWORKER_WORKER_REPORT_INTERVAL_MS=500",
		"FWORKER_INSTANCE_STOP_GRACE_PERIOD_MS=3000",
		"FWORKER_DRAIN_MOVE_TIMEOUT_MS=20000",
	}, extraEnv...)
	t.Cleanup(func() {
		for i := range c.nodes {
			c.stop(i)
		}
		if t.Failed() {
			for i, nd := range c.nodes {
				nd.mu.Lock()
				t.Logf("worker %d log:\n%s", i, nd.log.String())
				nd.mu.Unlock()
			}
		}
	})
	for i := range n {
		c.start(i)
	}
	return c
}

func (c *pulsarCluster) url(i int) string { return fmt.Sprintf("http://127.0.0.1:%d", c.base+i) }

func (c *pulsarCluster) start(i int) {
	c.t.Helper()
	nd := &node{id: fmt.Sprintf("w%d", i), port: c.base + i, exited: make(chan struct{})}
	nd.cmd = exec.Command(bins.fworker, "run", "--bind", "127.0.0.1", "--worker-id", nd.id,
		"--worker-port", strconv.Itoa(nd.port), "--data-dir", c.dataDir)
	nd.cmd.Env = append(os.Environ(), c.env...)
	stderr, _ := nd.cmd.StderrPipe()
	if err := nd.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			nd.mu.Lock()
			nd.log.WriteString(sc.Text() + "\n")
			nd.mu.Unlock()
		}
	}()
	go func() { nd.cmd.Wait(); close(nd.exited) }()
	c.nodes[i] = nd
}

// stop ends worker i with SIGINT (clean) and waits.
func (c *pulsarCluster) stop(i int) {
	nd := c.nodes[i]
	select {
	case <-nd.exited:
		return
	default:
	}
	nd.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-nd.exited:
	case <-time.After(60 * time.Second):
		nd.cmd.Process.Kill()
		<-nd.exited
	}
}

// kill ends worker i with SIGKILL, as a crash would.
func (c *pulsarCluster) kill(i int) {
	c.nodes[i].cmd.Process.Kill()
	<-c.nodes[i].exited
}

func (c *pulsarCluster) alive() []int {
	var out []int
	for i, nd := range c.nodes {
		select {
		case <-nd.exited:
		default:
			out = append(out, i)
		}
	}
	return out
}
