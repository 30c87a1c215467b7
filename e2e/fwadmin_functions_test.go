package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fwStatus is `functions status` JSON.
type fwStatus struct {
	NumInstances int `json:"numInstances"`
	NumRunning   int `json:"numRunning"`
	Instances    []struct {
		InstanceID int `json:"instanceId"`
		Status     struct {
			Running  bool   `json:"running"`
			WorkerID string `json:"workerId"`
		} `json:"status"`
	} `json:"instances"`
}

func statusOf(t *testing.T, url, name string) fwStatus {
	t.Helper()
	var st fwStatus
	fwJSON(t, url, &st, "functions", "status", "--name", name)
	return st
}

// TestFwadminFunctions runs every `fwadmin functions` subcommand against a
// real standalone, with real instance processes.
func TestFwadminFunctions(t *testing.T) {
	s := startStandalone(t, 3, freePorts(t, 3), t.TempDir())
	url := s.url(1) // a follower: writes are forwarded to the leader
	const fqfn = "public/default/fn"

	mustContain(t, fwOK(t, url, "functions", "create", "--go", bins.function, "--parallelism", "4", "--name", "fn",
		"--user-config", `{"greeting":"hi"}`, "--cpu", "0.5"), "Created fn successfully")
	s.eventually("4 instance processes", 60*time.Second, func() bool { return count(instanceProcs(fqfn)) == 4 })
	fwFails(t, url, 1, []string{"code: 400 reason: "}, "functions", "create", "--go", bins.function, "--name", "fn")

	var names []string
	fwJSON(t, url, &names, "functions", "list")
	if len(names) != 1 || names[0] != "fn" {
		t.Fatalf("list %v", names)
	}
	mustContain(t, fwOK(t, url, "functions", "list", "--tenant", "public", "--namespace", "default", "-o", "table"), "NAME", "public  default    fn")

	var cfg struct {
		Name        string         `json:"name"`
		Tenant      string         `json:"tenant"`
		Parallelism int            `json:"parallelism"`
		Runtime     string         `json:"runtime"`
		AutoAck     bool           `json:"autoAck"`
		UserConfig  map[string]any `json:"userConfig"`
		Resources   struct {
			CPU float64 `json:"cpu"`
		} `json:"resources"`
	}
	fwJSON(t, url, &cfg, "functions", "get", "--fqfn", fqfn)
	if cfg.Name != "fn" || cfg.Tenant != "public" || cfg.Parallelism != 4 || cfg.Runtime != "GO" || !cfg.AutoAck ||
		cfg.UserConfig["greeting"] != "hi" || cfg.Resources.CPU != 0.5 {
		t.Fatalf("get %+v", cfg)
	}

	s.eventually("status: 4 running", 60*time.Second, func() bool { st := statusOf(t, url, "fn"); return st.NumRunning == 4 })
	tbl := fwOK(t, url, "functions", "status", "--name", "fn", "-o", "table")
	if rows := strings.Split(strings.TrimSpace(tbl.stdout), "\n"); len(rows) != 5 || !strings.HasPrefix(rows[0], "INSTANCE") {
		t.Fatalf("status table\n%s", tbl)
	}
	var one struct {
		Running  bool   `json:"running"`
		WorkerID string `json:"workerId"`
	}
	fwJSON(t, url, &one, "functions", "status", "--name", "fn", "--instance-id", "0")
	if !one.Running || one.WorkerID == "" {
		t.Fatalf("status of instance 0 %+v", one)
	}
	var stats struct {
		Instances []any `json:"instances"`
	}
	fwJSON(t, url, &stats, "functions", "stats", "--name", "fn")
	if len(stats.Instances) != 4 {
		t.Fatalf("stats %+v", stats)
	}
	var oneStats map[string]any
	fwJSON(t, url, &oneStats, "functions", "stats", "--name", "fn", "--instance-id", "1")
	if _, ok := oneStats["receivedTotal"]; !ok {
		t.Fatalf("instance stats %v", oneStats)
	}

	// stop, start, restart: one instance, then all.
	mustContain(t, fwOK(t, url, "functions", "stop", "--name", "fn", "--instance-id", "0"), "Stopped instanceID[0] of Pulsar Functions[fn] successfully")
	s.eventually("3 running", 30*time.Second, func() bool { return statusOf(t, url, "fn").NumRunning == 3 })
	mustContain(t, fwOK(t, url, "functions", "start", "--name", "fn", "--instance-id", "0"), "Started instanceID[0] of Pulsar Functions[fn] successfully")
	s.eventually("4 running", 30*time.Second, func() bool { return statusOf(t, url, "fn").NumRunning == 4 })
	before := instanceProcs(fqfn)
	mustContain(t, fwOK(t, url, "functions", "restart", "--fqfn", fqfn), "Restarted fn successfully")
	s.eventually("4 new processes", 30*time.Second, func() bool {
		now := instanceProcs(fqfn)
		if count(now) != 4 {
			return false
		}
		for w, ids := range now {
			for id, pid := range ids {
				if before[w][id] == pid {
					return false
				}
			}
		}
		return true
	})
	mustContain(t, fwOK(t, url, "functions", "restart", "--name", "fn", "--instance-id", "3"), "Restarted instanceID[3] of Pulsar Functions[fn] successfully")
	mustContain(t, fwOK(t, url, "functions", "stop", "--name", "fn"), "Stopped fn successfully")
	s.eventually("no process", 30*time.Second, func() bool { return count(instanceProcs(fqfn)) == 0 })
	mustContain(t, fwOK(t, url, "functions", "start", "--name", "fn"), "Started fn successfully")
	s.eventually("4 processes again", 30*time.Second, func() bool { return count(instanceProcs(fqfn)) == 4 })

	mustContain(t, fwOK(t, url, "functions", "update", "--name", "fn", "--parallelism", "2"), "Updated fn successfully")
	s.eventually("2 processes", 60*time.Second, func() bool { return count(instanceProcs(fqfn)) == 2 })
	fwJSON(t, url, &cfg, "functions", "get", "--name", "fn")
	if cfg.Parallelism != 2 || cfg.UserConfig["greeting"] != "hi" {
		t.Fatalf("after update %+v", cfg)
	}

	dest := filepath.Join(t.TempDir(), "pkg")
	mustContain(t, fwOK(t, url, "functions", "download", "--name", "fn", "--destination-file", dest), "Downloaded fn to "+dest+" successfully")
	got, _ := os.ReadFile(dest)
	want, _ := os.ReadFile(bins.function)
	if len(want) == 0 || !bytes.Equal(got, want) {
		t.Fatalf("downloaded %d bytes, the package has %d", len(got), len(want))
	}
	fwFails(t, url, 1, []string{"already exists"}, "functions", "download", "--name", "fn", "--destination-file", dest)
	missing := filepath.Join(t.TempDir(), "none")
	fwFails(t, url, 1, []string{"code: 404 reason: "}, "functions", "download", "--name", "nope", "--destination-file", missing)
	if _, err := os.Stat(missing); err == nil {
		t.Fatal("a failed download left a file behind")
	}

	// A function from a YAML config file, the package from a flag.
	yml := filepath.Join(t.TempDir(), "f.yaml")
	os.WriteFile(yml, []byte("tenant: public\nnamespace: default\nname: fromyaml\nparallelism: 1\nuserConfig:\n  k: v\n"), 0o644)
	mustContain(t, fwOK(t, url, "functions", "create", "--function-config-file", yml, "--go", bins.function), "Created fromyaml successfully")
	var ycfg struct {
		UserConfig  map[string]any `json:"userConfig"`
		Parallelism int            `json:"parallelism"`
		AutoAck     bool           `json:"autoAck"`
	}
	fwJSON(t, url, &ycfg, "functions", "get", "--name", "fromyaml")
	if ycfg.UserConfig["k"] != "v" || ycfg.Parallelism != 1 || !ycfg.AutoAck {
		t.Fatalf("yaml function %+v", ycfg)
	}
	mustContain(t, fwOK(t, url, "functions", "delete", "--fqfn", "public/default/fromyaml"), "Deleted fromyaml successfully")

	mustContain(t, fwOK(t, url, "functions", "delete", "--name", "fn"), "Deleted fn successfully")
	s.eventually("instances gone", 30*time.Second, func() bool { return count(instanceProcs(fqfn)) == 0 })
	fwFails(t, url, 1, []string{"code: 404 reason: "}, "functions", "get", "--name", "fn")

	// Client-side checks: no request is sent.
	fwFails(t, url, 1, []string{"you must specify a name for the function"}, "functions", "get")
	fwFails(t, url, 1, []string{"tenant/namespace/name"}, "functions", "status", "--fqfn", "a/b")
	fwFails(t, url, 1, []string{"either a Java jar"}, "functions", "create", "--name", "x")
	fwFails(t, url, 1, []string{"no such file"}, "functions", "create", "--name", "x", "--go", "/nonexistent/bin")
	fwFails(t, url, 1, []string{"--user-config: not a JSON object"}, "functions", "create", "--name", "x", "--go", bins.function, "--user-config", "nope")
	fwFails(t, url, 1, []string{"--output \"table\": this command prints \"json\" only"}, "functions", "get", "--name", "x", "-o", "table")
}
