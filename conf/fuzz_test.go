package conf

import (
	"os"
	"strings"
	"testing"
)

// FuzzLoadYAML: arbitrary file contents never panic, and whatever Load
// accepts satisfies the invariants the rest of fworker relies on.
//
//	go test -run '^$' -fuzz FuzzLoadYAML -fuzztime 20s ./conf
func FuzzLoadYAML(f *testing.F) {
	if sample, err := os.ReadFile("functions_worker.yml"); err == nil {
		f.Add(sample)
	}
	for _, seed := range []string{
		"",
		"~",
		"- a\n",
		"workerPort: abc\n",
		"workerPort: 6750.0\nworkerPortTls: 1e3\n",
		"workerId: a:b\n",
		"workerPort: [1, 2]\nsuperUserRoles: {a: b}\n",
		"a: &x {workerPort: 1}\n<<: *x\n",
		"superUserRoles: [a, 1, true, ~]\nauthenticationProviders: 'x, ,y'\n",
		"rescheduleTimeoutMs: 9223372036854775807\nschedulerSeed: -9223372036854775808\n",
		"workerPort: 1\nWORKERPORT: 2\n",
		"httpRequestsMaxPerSecond: .nan\nhttpRequestsLimitEnabled: yes\n",
		"tlsEnabled: true\n",
		"functionRuntimeFactoryConfigs: {a: [1, {b: c}]}\n? [complex, key]\n: v\n",
		"workerPort: !!binary aGVsbG8=\n",
		"--- \nworkerPort: 1\n---\nworkerPort: 2\n",
	} {
		f.Add([]byte(seed))
	}
	clearEnv(f) // the file alone decides
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, _, err := loadData(LoadOptions{File: "fuzz.yml", Hostname: fixedHost}, data)
		if (cfg == nil) == (err == nil) {
			t.Fatalf("cfg %v with err %v", cfg != nil, err)
		}
		if err != nil {
			return
		}
		if cfg.WorkerPort < 1 || cfg.WorkerPort > 65535 || strings.Contains(cfg.WorkerID, ":") ||
			cfg.WorkerID == "" || cfg.WorkerHostname == "" {
			t.Fatalf("accepted a bad identity: %+v", cfg)
		}
		sc, p := cfg.SchedulerConfig(), cfg.Periods()
		if sc.RescheduleTimeout <= 0 || sc.MoveTimeout <= 0 || sc.DrainRecordRetention <= 0 ||
			sc.MaxConcurrentDrains < 1 || sc.DrainMaxParallelMoves < 1 {
			t.Fatalf("accepted a bad scheduler config: %+v", sc)
		}
		if p.Tick <= 0 || p.FailureCheck <= 0 || p.DrainCleanup < 0 || p.Rebalance < 0 {
			t.Fatalf("accepted bad periods: %+v", p)
		}
		_ = cfg.Logger(nil)
	})
}
