package conf

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fworker/fworker/scheduler"
)

func loadYAML(t *testing.T, yaml string) *Config {
	t.Helper()
	clearEnv(t)
	cfg, _, err := Load(LoadOptions{File: writeFile(t, yaml), Hostname: fixedHost})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestSchedulerConfig(t *testing.T) {
	cfg := loadYAML(t, `
schedulerSeed: 42
rescheduleTimeoutMs: 1500
drainMoveTimeoutMs: 2500
drainMaxParallelMoves: 3
maxConcurrentDrains: 2
drainRecordRetentionSec: 7
`)
	want := scheduler.Config{
		Seed:                  42,
		RescheduleTimeout:     1500 * time.Millisecond,
		MoveTimeout:           2500 * time.Millisecond,
		DrainMaxParallelMoves: 3,
		MaxConcurrentDrains:   2,
		DrainRecordRetention:  7 * time.Second,
	}
	if got := cfg.SchedulerConfig(); got != want {
		t.Errorf("SchedulerConfig() = %+v, want %+v", got, want)
	}
	def := Defaults()
	got := def.SchedulerConfig()
	if got.RescheduleTimeout != scheduler.DefaultRescheduleTimeout || got.MoveTimeout != scheduler.DefaultMoveTimeout ||
		got.DrainRecordRetention != scheduler.DefaultDrainRecordRetention ||
		got.MaxConcurrentDrains != scheduler.DefaultMaxConcurrentDrains ||
		got.DrainMaxParallelMoves != scheduler.DefaultDrainMaxParallelMoves {
		t.Errorf("defaults disagree with the scheduler's: %+v", got)
	}
}

func TestPeriods(t *testing.T) {
	tests := []struct {
		yaml string
		want scheduler.Periods
	}{
		{"", scheduler.Periods{Tick: time.Second, FailureCheck: 30 * time.Second, DrainCleanup: time.Minute}},
		{"rebalanceCheckFreqSec: 300\nworkerListProbeIntervalSec: 0\nschedulerTickMs: 2000\nfailureCheckFreqMs: 5000\n",
			scheduler.Periods{Tick: 2 * time.Second, FailureCheck: 5 * time.Second, Rebalance: 5 * time.Minute}},
		{"rebalanceCheckFreqSec: 0\nworkerListProbeIntervalSec: -5\n",
			scheduler.Periods{Tick: time.Second, FailureCheck: 30 * time.Second}},
	}
	for _, tt := range tests {
		if got := loadYAML(t, tt.yaml).Periods(); got != tt.want {
			t.Errorf("%q: Periods() = %+v, want %+v", tt.yaml, got, tt.want)
		}
	}
}

func TestSmallHelpers(t *testing.T) {
	cfg := loadYAML(t, "pulsarFunctionsNamespace: acme/fw\nworkerId: w1\nworkerHostname: h1\n")
	for _, c := range []struct{ got, want string }{
		{cfg.Topic("x"), "persistent://acme/fw/x"},
		{cfg.AssignmentTopic(), "persistent://acme/fw/assignments"},
		{cfg.CoordinationTopic(), "persistent://acme/fw/coordinate"},
		{cfg.MetadataTopic(), "persistent://acme/fw/metadata"},
		{cfg.ParticipantID(), "w1:h1:6750"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if cfg.ResourceAware() {
		t.Error("ResourceAware() with the round-robin default")
	}
	if cfg.AdvertisedPort() != 6750 {
		t.Errorf("AdvertisedPort() = %d, want 6750", cfg.AdvertisedPort())
	}

	tls := loadYAML(t, "tlsEnabled: true\nworkerPortTls: 6751\ntlsCertificateFilePath: c\ntlsKeyFilePath: k\nschedulerClassName: resource-aware\n")
	if tls.AdvertisedPort() != 6751 || !strings.HasSuffix(tls.ParticipantID(), ":6751") {
		t.Errorf("AdvertisedPort() = %d, ParticipantID() = %q; want the TLS port", tls.AdvertisedPort(), tls.ParticipantID())
	}
	if !tls.ResourceAware() {
		t.Error("ResourceAware() = false for resource-aware")
	}
}

func TestLogger(t *testing.T) {
	tests := []struct {
		yaml      string
		wantDebug bool
		wantJSON  bool
	}{
		{"", false, false},
		{"logLevel: debug\nlogFormat: json\n", true, true},
		{"logLevel: WARN\n", false, false},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		log := loadYAML(t, tt.yaml).Logger(&buf)
		log.Debug("d")
		log.Error("e", "k", "v")
		out := buf.String()
		if got := strings.Contains(out, "DEBUG"); got != tt.wantDebug {
			t.Errorf("%q: debug logged = %v, want %v: %s", tt.yaml, got, tt.wantDebug, out)
		}
		if got := strings.HasPrefix(out, "{"); got != tt.wantJSON {
			t.Errorf("%q: JSON = %v, want %v: %s", tt.yaml, got, tt.wantJSON, out)
		}
	}
}

func TestCapacity(t *testing.T) {
	for _, tc := range []struct {
		name  string
		class string
		cpu   float64
		ram   int64
		want  *scheduler.Resources
	}{
		{"round-robin ignores capacity", RoundRobinAlias, 4, 8 << 30, nil},
		{"resource-aware without capacity is unlimited", ResourceAwareAlias, 0, 0, nil},
		{"resource-aware with capacity", ResourceAwareAlias, 4, 8 << 30, &scheduler.Resources{CPU: 4, RAM: 8 << 30, Disk: math.MaxInt64 / 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Defaults()
			c.SchedulerClassName, c.WorkerCapacityCPU, c.WorkerCapacityRAM = tc.class, tc.cpu, tc.ram
			got := c.Capacity()
			if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
				t.Fatalf("Capacity() = %+v, want %+v", got, tc.want)
			}
		})
	}
}
