package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestFwadminDrainWait drains a worker of a 4-instance function with
// `drain --wait`, sent to a non-leader (which answers 307; fwadmin repeats
// the PUT at the leader), then reads the record back every way fwadmin can,
// undrains, and checks the errors a user meets.
func TestFwadminDrainWait(t *testing.T) {
	s := startStandalone(t, 3, freePorts(t, 3), t.TempDir())
	leader, follower := s.url(0), s.url(2)
	r := fwOK(t, follower, "functions", "create", "--go", bins.function, "--parallelism", "4", "--name", "dw")
	mustContain(t, r, "Created dw successfully")
	s.eventually("4 instance processes", 60*time.Second, func() bool { return count(instanceProcs("public/default/dw")) == 4 })
	a := assignmentsOf(t, leader)
	target, n := busiest(a, "public/default/dw", "standalone-2")
	if n == 0 {
		t.Fatalf("no worker but standalone-2 holds an instance: %v", a)
	}

	// -v logs the round trips: the 307 from the follower and the PUT
	// repeated at the leader prove the redirect was followed as a PUT.
	r = fwOK(t, follower, "-v", "functions-worker", "drain", "--worker-id", target, "--wait",
		"--reason", "e2e drain", "--max-parallel", "2", "--interval", "100ms")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	final := fmt.Sprintf("drain %s: SUCCESS moved %d/%d remaining 0", target, n, n)
	if lines[len(lines)-1] != final {
		t.Fatalf("last line %q, want %q\n%s", lines[len(lines)-1], final, r)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "drain "+target+": ") {
			t.Fatalf("unexpected line %q\n%s", l, r)
		}
	}
	for _, want := range []string{
		"* PUT " + follower + "/admin/v2/worker/leader/drain?",
		"-> 307 Temporary Redirect Location: " + leader + "/admin/v2/worker/leader/drain?workerId=" + target,
		"* PUT " + leader + "/admin/v2/worker/leader/drain?workerId=" + target,
		"-> 204 No Content",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Fatalf("verbose log lacks %q\n%s", want, r)
		}
	}
	s.eventually("drained worker empty", 30*time.Second, func() bool {
		p := instanceProcs("public/default/dw")
		return len(p[target]) == 0 && count(p) == 4
	})

	// The record: JSON, table, list (through a follower: redirected GETs).
	d := drainStatusOf(t, follower, target)
	if d.Status != "SUCCESS" || d.Moved != n || d.Total != n || d.Reason != "e2e drain" || d.MaxParallel != 2 || !strings.Contains(d.RequestedBy, "(fwadmin)") {
		t.Fatalf("drain status %+v", d)
	}
	mustContain(t, fwOK(t, follower, "functions-worker", "get-drain-status", "--worker-id", target, "-o", "table"),
		"WORKER ID", target, "SUCCESS", fmt.Sprintf("%d/%d", n, n), "e2e drain")
	var list []fwDrain
	fwJSON(t, follower, &list, "functions-worker", "list-drains")
	if len(list) != 1 || list[0].Worker != target || list[0].Status != "SUCCESS" {
		t.Fatalf("list-drains %+v", list)
	}
	mustContain(t, fwOK(t, leader, "functions-worker", "list-drains", "-o", "table"), "STATUS", target, "SUCCESS")

	// Pulsar's 412 for a second drain, then undrain clears the record.
	fwFails(t, leader, 1, []string{"code: 412 reason: Worker " + target + " was not yet removed after a prior drain op; try later"},
		"functions-worker", "drain", "--worker-id", target)
	mustContain(t, fwOK(t, follower, "functions-worker", "undrain", "--worker-id", target), "Undrained "+target+" successfully")
	fwJSON(t, leader, &list, "functions-worker", "list-drains")
	if len(list) != 0 {
		t.Fatalf("list-drains after undrain: %+v", list)
	}
	if d := drainStatusOf(t, leader, target); d.Status != "ERROR" || d.LastError != "Worker "+target+" not found in drain records" {
		t.Fatalf("status after undrain %+v", d)
	}
	fwFails(t, leader, 1, []string{"code: 404 reason: Worker " + target + " not found in drain records"},
		"functions-worker", "undrain", "--worker-id", target)

	// A drain without --wait returns at once.
	mustContain(t, fwOK(t, leader, "functions-worker", "drain", "--worker-id", "standalone-2"), "Drain of standalone-2 started")
	s.eventually("drain of standalone-2 done", 30*time.Second, func() bool { return drainStatusOf(t, leader, "standalone-2").Status == "SUCCESS" })
	fwOK(t, leader, "functions-worker", "undrain", "--worker-id", "standalone-2")
	// Without --worker-id: the worker at --admin-url drains itself (a
	// preStop hook), and the wait polls that worker's own status route.
	r = fwOK(t, follower, "functions-worker", "drain", "--wait")
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); !strings.HasPrefix(lines[len(lines)-1], "drain standalone-2: SUCCESS moved") {
		t.Fatalf("self drain:\n%s", r)
	}
	mustContain(t, fwOK(t, follower, "functions-worker", "get-drain-status"), `"workerId": "standalone-2"`, `"status": "SUCCESS"`)
	fwOK(t, leader, "functions-worker", "undrain", "--worker-id", "standalone-2")

	// Errors a user meets: the server's reason on stderr, exit 1.
	fwFails(t, follower, 1, []string{"code: 400 reason: Worker nope is not among the current workers in the system"},
		"functions-worker", "drain", "--worker-id", "nope", "--wait")
	fwFails(t, leader, 1, []string{`invalid argument "abc" for "--max-parallel"`, "Run 'fwadmin functions-worker drain --help' for usage."},
		"functions-worker", "drain", "--worker-id", target, "--max-parallel", "abc")
	fwFails(t, leader, 1, []string{"unknown flag: --bogus"}, "functions-worker", "drain", "--bogus")
	fwFails(t, leader, 1, []string{"--deadline \"soon\" is neither a duration"}, "functions-worker", "drain", "--worker-id", target, "--deadline", "soon")
	fwFails(t, leader, 1, []string{"--timeout needs --wait"}, "functions-worker", "drain", "--worker-id", target, "--timeout", "1m")
	fwFails(t, leader, 1, []string{`required flag(s) "worker-id" not set`}, "functions-worker", "undrain")
	fwFails(t, leader, 1, []string{`unknown command "bogus" for "fwadmin functions-worker"`}, "functions-worker", "bogus")
	fwFails(t, "http://127.0.0.1:1", 1, []string{"connection refused"}, "functions-worker", "drain", "--worker-id", target)
	// The server's own checks come back as its reason too.
	fwFails(t, leader, 1, []string{"code: 400 reason: Invalid drain option deadline: must be in the future"},
		"functions-worker", "drain", "--worker-id", target, "--deadline", "2001-01-01T00:00:00Z")
}

// TestFwadminDrainExitCodes shows the exit codes of `drain --wait` other
// than 0. The function's instances ignore SIGTERM (stubbornScript), so
// each move off a worker takes the 3 s stop grace period:
//   - --timeout 1s gives up first: exit 2, and the drain goes on to SUCCESS;
//   - --max-parallel 1 --deadline 2s on a worker with two such instances
//     needs at least 6 s, so the leader ends the drain in ERROR ("deadline
//     passed"): exit 1 with lastError on stderr.
func TestFwadminDrainExitCodes(t *testing.T) {
	s := startStandalone(t, 3, freePorts(t, 3), t.TempDir())
	url := s.url(1)
	fwOK(t, url, "functions", "create", "--go", stubbornScript(t), "--parallelism", "3", "--name", "stubborn")
	s.eventually("3 stubborn instances", 60*time.Second, func() bool { return count(instanceProcs("public/default/stubborn")) == 3 })

	first, n := busiest(assignmentsOf(t, url), "public/default/stubborn")
	if n == 0 {
		t.Fatal("no instance assigned")
	}
	start := time.Now()
	r := fw(t, url, "functions-worker", "drain", "--worker-id", first, "--wait", "--timeout", "1s")
	if r.code != 2 || !strings.Contains(r.stderr, "timed out after 1s waiting for the drain of "+first+" (still RUNNING, moved 0/") {
		t.Fatalf("expected exit 2 and a timeout message:\n%s", r)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Fatalf("--timeout 1s took %s", el)
	}
	mustContain(t, r, "drain "+first+": RUNNING moved 0/")
	s.eventually("the drain goes on to SUCCESS", 60*time.Second, func() bool { return drainStatusOf(t, url, first).Status == "SUCCESS" })
	fwOK(t, url, "functions-worker", "undrain", "--worker-id", first)

	second, n := busiest(assignmentsOf(t, url), "public/default/stubborn", first)
	if n < 2 {
		t.Fatalf("expected a worker with 2 instances after draining %s: %v", first, assignmentsOf(t, url))
	}
	r = fw(t, url, "functions-worker", "drain", "--worker-id", second, "--wait", "--max-parallel", "1", "--deadline", "2s")
	if r.code != 1 || !strings.Contains(r.stderr, "drain of "+second+" ended in ERROR: deadline passed with") {
		t.Fatalf("expected exit 1 and lastError:\n%s", r)
	}
	mustContain(t, r, "drain "+second+": ERROR moved ")
	if d := drainStatusOf(t, url, second); d.Status != "ERROR" || !strings.HasPrefix(d.LastError, "deadline passed") {
		t.Fatalf("status %+v", d)
	}
}
