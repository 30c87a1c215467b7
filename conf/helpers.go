package conf

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"time"

	"github.com/fworker/fworker/scheduler"
)

// The helpers below assume a Config returned by Load (validated).

// SchedulerConfig is the scheduler core's share of the configuration.
func (c *Config) SchedulerConfig() scheduler.Config {
	return scheduler.Config{
		Seed:                  c.SchedulerSeed,
		RescheduleTimeout:     msDur(c.RescheduleTimeoutMs),
		MoveTimeout:           msDur(c.DrainMoveTimeoutMs),
		DrainMaxParallelMoves: c.DrainMaxParallelMoves,
		MaxConcurrentDrains:   c.MaxConcurrentDrains,
		DrainRecordRetention:  secDur(c.DrainRecordRetentionSec),
	}
}

// Periods are the scheduler's periodic tasks. A zero period is off:
// rebalanceCheckFreqSec and workerListProbeIntervalSec turn theirs off
// with any value <= 0, as in Pulsar.
func (c *Config) Periods() scheduler.Periods {
	return scheduler.Periods{
		Tick:         msDur(c.SchedulerTickMs),
		FailureCheck: msDur(c.FailureCheckFreqMs),
		DrainCleanup: secDur(c.WorkerListProbeIntervalSec),
		Rebalance:    secDur(c.RebalanceCheckFreqSec),
	}
}

// ResourceAware reports whether placement should honour worker capacities
// (schedulerClassName "resource-aware").
func (c *Config) ResourceAware() bool { return c.SchedulerClassName == ResourceAwareAlias }

// Capacity is what this worker offers to placement: nil (unlimited) unless
// schedulerClassName is "resource-aware" and some workerCapacity* is set;
// a zero dimension is then unlimited.
func (c *Config) Capacity() *scheduler.Resources {
	if !c.ResourceAware() || (c.WorkerCapacityCPU == 0 && c.WorkerCapacityRAM == 0 && c.WorkerCapacityDisk == 0) {
		return nil
	}
	unlimited := func(v int64) int64 {
		if v == 0 {
			return math.MaxInt64 / 4
		}
		return v
	}
	cpu := c.WorkerCapacityCPU
	if cpu == 0 {
		cpu = 1e6
	}
	return &scheduler.Resources{CPU: cpu, RAM: unlimited(c.WorkerCapacityRAM), Disk: unlimited(c.WorkerCapacityDisk)}
}

// Topic returns persistent://<pulsarFunctionsNamespace>/<name>.
func (c *Config) Topic(name string) string {
	return "persistent://" + c.PulsarFunctionsNamespace + "/" + name
}

// MetadataTopic, CoordinationTopic and AssignmentTopic are Pulsar's
// getFunctionMetadataTopic, getClusterCoordinationTopic and
// getFunctionAssignmentTopic.
func (c *Config) MetadataTopic() string     { return c.Topic(c.FunctionMetadataTopicName) }
func (c *Config) CoordinationTopic() string { return c.Topic(c.ClusterCoordinationTopicName) }
func (c *Config) AssignmentTopic() string   { return c.Topic(c.FunctionAssignmentTopicName) }

// AdvertisedPort is the port other workers and clients are told: the TLS
// port when TLS is on, else the HTTP port.
func (c *Config) AdvertisedPort() int {
	if c.TLSEnabled && c.WorkerPortTLS != 0 {
		return c.WorkerPortTLS
	}
	return c.WorkerPort
}

// ParticipantID is this worker's consumer name and "id" property on the
// coordination topic: "<workerId>:<workerHostname>:<advertised port>".
func (c *Config) ParticipantID() string {
	return fmt.Sprintf("%s:%s:%d", c.WorkerID, c.WorkerHostname, c.AdvertisedPort())
}

// Logger returns a logger writing to w in logFormat at logLevel. An
// unparsable level falls back to info.
func (c *Config) Logger(w io.Writer) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.LogLevel)); err != nil {
		level = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: level}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// msDur and secDur convert; values <= 0 give 0 (off).
func msDur(v int64) time.Duration  { return time.Duration(max(v, 0)) * time.Millisecond }
func secDur(v int64) time.Duration { return time.Duration(max(v, 0)) * time.Second }
