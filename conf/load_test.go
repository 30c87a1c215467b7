package conf

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

const testHost = "host1"

func fixedHost() (string, error) { return testHost, nil }

// clearEnv hides every FWORKER_* variable of the test process.
func clearEnv(t testing.TB) {
	t.Helper()
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, EnvPrefix) {
			t.Setenv(name, "")
		}
	}
}

// writeFile writes a YAML file into a temporary directory.
func writeFile(t *testing.T, yaml string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "functions_worker.yml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// testFlags is a FlagSet as cmd might build it: kebab and camel names,
// typed flags and one flag that is no key.
func testFlags(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("fworker", pflag.ContinueOnError)
	fs.Int("worker-port", 1111, "")
	fs.Int("workerPort", 2222, "")
	fs.String("workerId", "flag-default-id", "")
	fs.String("log-level", "error", "")
	fs.StringSlice("super-user-roles", nil, "")
	fs.Int64("rebalance-check-freq-sec", 0, "")
	fs.String("config", "", "")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestDefaults(t *testing.T) {
	clearEnv(t)
	cfg, warnings, err := Load(LoadOptions{Hostname: fixedHost})
	if err != nil || len(warnings) > 0 {
		t.Fatalf("Load: %v, warnings %q", err, warnings)
	}
	want := Defaults()
	want.WorkerHostname = testHost
	want.WorkerID = testHost + "-6750"
	want.AuthenticationProviders = []string{}
	want.SuperUserRoles = []string{}
	if !reflect.DeepEqual(*cfg, want) {
		t.Errorf("got  %+v\nwant %+v", *cfg, want)
	}
}

func TestDefaultHostnameIsTheOS(t *testing.T) {
	clearEnv(t)
	host, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	cfg, _, err := Load(LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.WorkerHostname != host || cfg.WorkerID != host+"-6750" {
		t.Errorf("workerHostname %q, workerId %q; want %q and %q-6750", cfg.WorkerHostname, cfg.WorkerID, host, host)
	}
}

// TestPrecedence checks each layer against the ones below it, key by key.
func TestPrecedence(t *testing.T) {
	const file = `
workerId: file-id
workerPort: 7000
logLevel: warn
superUserRoles: [file-admin]
rebalanceCheckFreqSec: 10
pulsarFunctionsCluster: file-cluster
`
	tests := []struct {
		name  string
		file  string
		env   map[string]string
		args  []string
		check func(*Config) string
	}{
		{"file over default", file, nil, nil, func(c *Config) string {
			return expect(c.WorkerID == "file-id" && c.WorkerPort == 7000 && c.LogLevel == "warn" &&
				slices.Equal(c.SuperUserRoles, []string{"file-admin"}) && c.RebalanceCheckFreqSec == 10 &&
				c.PulsarFunctionsCluster == "file-cluster", c)
		}},
		{"env over file", file, map[string]string{
			"FWORKER_WORKER_ID": "env-id", "FWORKER_WORKERPORT": "7001", "FWORKER_SUPER_USER_ROLES": "a, b",
		}, nil, func(c *Config) string {
			return expect(c.WorkerID == "env-id" && c.WorkerPort == 7001 &&
				slices.Equal(c.SuperUserRoles, []string{"a", "b"}) && c.LogLevel == "warn", c)
		}},
		{"flags over env", file, map[string]string{
			"FWORKER_WORKER_ID": "env-id", "FWORKER_WORKER_PORT": "7001", "FWORKER_LOG_LEVEL": "debug",
		}, []string{"--worker-port=7002", "--workerId=flag-id", "--config=x.yml", "--super-user-roles=x,y", "--rebalance-check-freq-sec=-1"},
			func(c *Config) string {
				return expect(c.WorkerID == "flag-id" && c.WorkerPort == 7002 && c.LogLevel == "debug" &&
					slices.Equal(c.SuperUserRoles, []string{"x", "y"}) && c.RebalanceCheckFreqSec == -1, c)
			}},
		{"unset flags keep file values, not flag defaults", file, nil, nil, func(c *Config) string {
			return expect(c.WorkerPort == 7000 && c.WorkerID == "file-id" && c.LogLevel == "warn", c)
		}},
		{"unset flags keep conf defaults, not flag defaults", "", nil, nil, func(c *Config) string {
			return expect(c.WorkerPort == 6750 && c.WorkerID == testHost+"-6750" && c.LogLevel == "info", c)
		}},
		{"empty env is unset", file, map[string]string{"FWORKER_WORKER_ID": ""}, nil, func(c *Config) string {
			return expect(c.WorkerID == "file-id", c)
		}},
		{"null in file is unset", "workerId:\nworkerPort: ~\n", nil, nil, func(c *Config) string {
			return expect(c.WorkerID == testHost+"-6750" && c.WorkerPort == 6750, c)
		}},
		{"both env spellings, same value", "", map[string]string{
			"FWORKER_WORKERPORT": "7003", "FWORKER_WORKER_PORT": "7003",
		}, nil, func(c *Config) string { return expect(c.WorkerPort == 7003, c) }},
		{"keys are case-insensitive", "WORKERPORT: 7004\n", nil, nil, func(c *Config) string {
			return expect(c.WorkerPort == 7004, c)
		}},
		{"timestamps stay text", "workerId: 2024-01-02\n", nil, nil, func(c *Config) string {
			return expect(c.WorkerID == "2024-01-02", c)
		}},
		{"comma-separated list in file", "authenticationProviders: a.B, c.D\n", nil, nil, func(c *Config) string {
			return expect(slices.Equal(c.AuthenticationProviders, []string{"a.B", "c.D"}), c)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			opts := LoadOptions{Flags: testFlags(t, tt.args...), Hostname: fixedHost}
			if tt.file != "" {
				opts.File = writeFile(t, tt.file)
			}
			cfg, _, err := Load(opts)
			if err != nil {
				t.Fatal(err)
			}
			if msg := tt.check(cfg); msg != "" {
				t.Error(msg)
			}
		})
	}
}

func expect(ok bool, c *Config) string {
	if ok {
		return ""
	}
	return "unexpected config:" + showConfig(c)
}

func showConfig(c *Config) string {
	var b strings.Builder
	v := reflect.ValueOf(*c)
	for _, k := range keys {
		b.WriteString("\n  " + k.name + ": " + show(v.Field(k.field).Interface()))
	}
	return b.String()
}

func TestWarnings(t *testing.T) {
	tests := []struct {
		name string
		file string
		env  map[string]string
		want []string // substrings, one per warning, in order
	}{
		{"unknown key names itself and its line", "workerPort: 6750\nworkerPrt: 1\nfooBar: {a: 1}\n", nil,
			[]string{`:3: unknown key "fooBar"`, `:2: unknown key "workerPrt"`}},
		{"Pulsar keys fworker ignores are silent",
			"numHttpServerThreads: 8\nfunctionRuntimeFactoryClassName: x\nfunctionRuntimeFactoryConfigs: {logDirectory: logs/}\nproperties:\n  a: b\n",
			nil, nil},
		{"case mismatch", "WorkerPort: 6750\n", nil, []string{`key "WorkerPort" read as "workerPort"`}},
		{"unknown environment variable", "", map[string]string{"FWORKER_WORKER_PROT": "1", "FWORKER_CONFIG": "x"},
			[]string{"FWORKER_WORKER_PROT matches no configuration key"}},
		{"Pulsar-only key in the environment is silent", "", map[string]string{"FWORKER_NUM_HTTP_SERVER_THREADS": "8"}, nil},
		{"tick below cron resolution", "schedulerTickMs: 200\n", nil, []string{"schedulerTickMs=200"}},
		{"authorization without authentication", "authorizationEnabled: true\n", nil, []string{"authorizationEnabled is true"}},
		{"second YAML document", "workerPort: 6750\n---\nworkerPort: 1\n", nil, []string{"only the first YAML document"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			opts := LoadOptions{Hostname: fixedHost}
			if tt.file != "" {
				opts.File = writeFile(t, tt.file)
			}
			_, warnings, err := Load(opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(warnings) != len(tt.want) {
				t.Fatalf("warnings %q, want %d matching %q", warnings, len(tt.want), tt.want)
			}
			slices.Sort(warnings)
			want := slices.Clone(tt.want)
			for _, w := range warnings {
				i := slices.IndexFunc(want, func(s string) bool { return strings.Contains(w, s) })
				if i < 0 {
					t.Errorf("unexpected warning %q (want %q)", w, tt.want)
					continue
				}
				want = slices.Delete(want, i, i+1)
			}
		})
	}
}

func TestMissingFile(t *testing.T) {
	clearEnv(t)
	_, _, err := Load(LoadOptions{File: filepath.Join(t.TempDir(), "nope.yml"), Hostname: fixedHost})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want fs.ErrNotExist", err)
	}
}

func TestSampleFile(t *testing.T) {
	clearEnv(t)
	cfg, warnings, err := Load(LoadOptions{File: "functions_worker.yml", Hostname: fixedHost})
	if err != nil || len(warnings) > 0 {
		t.Fatalf("Load: %v, warnings %q", err, warnings)
	}
	// The sample documents the defaults, except Pulsar's sample identity.
	want := Defaults()
	want.WorkerID, want.WorkerHostname, want.WorkerPortTLS = "standalone", "localhost", 6751
	want.PulsarFunctionsCluster = "standalone"
	want.AuthenticationProviders, want.SuperUserRoles = []string{}, []string{}
	if !reflect.DeepEqual(*cfg, want) {
		t.Errorf("sample differs from the defaults:%s\nwant:%s", showConfig(cfg), showConfig(&want))
	}
	// Every key is in the sample.
	data, err := os.ReadFile("functions_worker.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !strings.Contains(string(data), "\n"+k.name+":") {
			t.Errorf("sample lacks %s", k.name)
		}
	}
}

// TestKeyTables: every field has a tag, and no name is both used and
// ignored or listed twice (case-insensitively, as matching is).
func TestKeyTables(t *testing.T) {
	seen := map[string]string{}
	for _, name := range append(keyNames(), pulsarIgnoredKeys...) {
		if name == "" {
			t.Fatal("a Config field lacks a mapstructure tag")
		}
		if prev, dup := seen[strings.ToLower(name)]; dup {
			t.Errorf("%q listed twice (also %q)", name, prev)
		}
		seen[strings.ToLower(name)] = name
	}
}

func keyNames() []string {
	var out []string
	for _, k := range keys {
		out = append(out, k.name)
	}
	return out
}
