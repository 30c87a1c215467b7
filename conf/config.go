package conf

import (
	"time"

	"github.com/fworker/fworker/scheduler"
)

// Config is fworker's whole configuration. Fields tagged with a Pulsar key
// mean what they mean in Pulsar's WorkerConfig; the rest are fworker's.
// Times keep Pulsar's units (the suffix of the key); the helpers convert.
type Config struct {
	// ---- Pulsar keys ----

	// WorkerID identifies this worker. Blank: "<workerHostname>-<workerPort>".
	// Must not contain ':' (Pulsar splits "<id>:<host>:<port>" on it).
	WorkerID string `mapstructure:"workerId"`
	// WorkerHostname is the advertised host. Blank: the OS hostname.
	WorkerHostname string `mapstructure:"workerHostname"`
	WorkerPort     int    `mapstructure:"workerPort"`    // HTTP port
	WorkerPortTLS  int    `mapstructure:"workerPortTls"` // HTTPS port; 0: none

	PulsarServiceURL    string `mapstructure:"pulsarServiceUrl"`    // pulsar:// or pulsar+ssl://
	PulsarWebServiceURL string `mapstructure:"pulsarWebServiceUrl"` // http:// or https:// (admin API)

	// PulsarFunctionsNamespace ("tenant/namespace") holds the internal topics.
	PulsarFunctionsNamespace     string `mapstructure:"pulsarFunctionsNamespace"`
	PulsarFunctionsCluster       string `mapstructure:"pulsarFunctionsCluster"`
	FunctionMetadataTopicName    string `mapstructure:"functionMetadataTopicName"`
	ClusterCoordinationTopicName string `mapstructure:"clusterCoordinationTopicName"`
	FunctionAssignmentTopicName  string `mapstructure:"functionAssignmentTopicName"`

	// SchedulerClassName is Pulsar's RoundRobinScheduler class name, or
	// one of the aliases "round-robin" and "resource-aware".
	SchedulerClassName string `mapstructure:"schedulerClassName"`
	// FailureCheckFreqMs is the membership-monitor interval.
	FailureCheckFreqMs int64 `mapstructure:"failureCheckFreqMs"`
	// RescheduleTimeoutMs: how long instances of a departed worker wait.
	RescheduleTimeoutMs int64 `mapstructure:"rescheduleTimeoutMs"`
	// RebalanceCheckFreqSec: periodic rebalance; <= 0 is off.
	RebalanceCheckFreqSec int64 `mapstructure:"rebalanceCheckFreqSec"`
	// WorkerListProbeIntervalSec: drain-record cleanup; <= 0 is off.
	WorkerListProbeIntervalSec int64 `mapstructure:"workerListProbeIntervalSec"`
	// TopicCompactionFrequencySec: leader compaction; <= 0 is off.
	TopicCompactionFrequencySec int64 `mapstructure:"topicCompactionFrequencySec"`

	AuthenticationEnabled   bool     `mapstructure:"authenticationEnabled"`
	AuthorizationEnabled    bool     `mapstructure:"authorizationEnabled"`
	AuthenticationProviders []string `mapstructure:"authenticationProviders"`
	SuperUserRoles          []string `mapstructure:"superUserRoles"`

	BrokerClientAuthenticationPlugin     string `mapstructure:"brokerClientAuthenticationPlugin"`
	BrokerClientAuthenticationParameters string `mapstructure:"brokerClientAuthenticationParameters"`

	// TLSEnabled serves HTTPS on WorkerPortTLS and advertises that port.
	TLSEnabled                    bool   `mapstructure:"tlsEnabled"`
	TLSCertificateFilePath        string `mapstructure:"tlsCertificateFilePath"`
	TLSKeyFilePath                string `mapstructure:"tlsKeyFilePath"`
	TLSTrustCertsFilePath         string `mapstructure:"tlsTrustCertsFilePath"`
	TLSAllowInsecureConnection    bool   `mapstructure:"tlsAllowInsecureConnection"`
	TLSEnableHostnameVerification bool   `mapstructure:"tlsEnableHostnameVerification"`

	// HTTPRequestsLimitEnabled answers 429 above HTTPRequestsMaxPerSecond.
	HTTPRequestsLimitEnabled bool    `mapstructure:"httpRequestsLimitEnabled"`
	HTTPRequestsMaxPerSecond float64 `mapstructure:"httpRequestsMaxPerSecond"`
	// InitialBrokerReconnectMaxRetries bounds producer creation at start.
	InitialBrokerReconnectMaxRetries int `mapstructure:"initialBrokerReconnectMaxRetries"`

	// ---- fworker extensions ----

	DataDir string `mapstructure:"dataDir"` // local state

	MaxConcurrentDrains     int   `mapstructure:"maxConcurrentDrains"`
	DrainMaxParallelMoves   int   `mapstructure:"drainMaxParallelMoves"`   // per drain
	DrainMoveTimeoutMs      int64 `mapstructure:"drainMoveTimeoutMs"`      // per move
	DrainRecordRetentionSec int64 `mapstructure:"drainRecordRetentionSec"` // after the worker left

	SchedulerTickMs int64 `mapstructure:"schedulerTickMs"` // moves, deadlines, retries
	SchedulerSeed   int64 `mapstructure:"schedulerSeed"`   // placement tie-breaks

	InstanceRestartBackoffMinMs int64 `mapstructure:"instanceRestartBackoffMinMs"`
	InstanceRestartBackoffMaxMs int64 `mapstructure:"instanceRestartBackoffMaxMs"`
	InstanceStopGracePeriodMs   int64 `mapstructure:"instanceStopGracePeriodMs"`

	// WorkerCapacity* is what this worker offers to resource-aware
	// placement (schedulerClassName "resource-aware"); 0 means unlimited.
	// Functions ask with their resources (cpu, ram, disk).
	WorkerCapacityCPU  float64 `mapstructure:"workerCapacityCpu"`
	WorkerCapacityRAM  int64   `mapstructure:"workerCapacityRam"`
	WorkerCapacityDisk int64   `mapstructure:"workerCapacityDisk"`

	MaxRequestBodyBytes    int64 `mapstructure:"maxRequestBodyBytes"` // function packages
	WorkerReportIntervalMs int64 `mapstructure:"workerReportIntervalMs"`

	LogLevel  string `mapstructure:"logLevel"`  // debug, info, warn, error
	LogFormat string `mapstructure:"logFormat"` // text or json
}

// Scheduler names accepted in schedulerClassName.
const (
	RoundRobinSchedulerClass = "org.apache.pulsar.functions.worker.scheduler.RoundRobinScheduler"
	RoundRobinAlias          = "round-robin"
	ResourceAwareAlias       = "resource-aware"
)

// Defaults returns the values used for keys that no source sets. The two
// blanks, WorkerID and WorkerHostname, are derived by Load.
func Defaults() Config {
	return Config{
		WorkerPort:                       6750,
		PulsarServiceURL:                 "pulsar://localhost:6650",
		PulsarWebServiceURL:              "http://localhost:8080",
		PulsarFunctionsNamespace:         "public/functions",
		FunctionMetadataTopicName:        "metadata",
		ClusterCoordinationTopicName:     "coordinate",
		FunctionAssignmentTopicName:      "assignments",
		SchedulerClassName:               RoundRobinSchedulerClass,
		FailureCheckFreqMs:               30000,
		RescheduleTimeoutMs:              ms(scheduler.DefaultRescheduleTimeout),
		RebalanceCheckFreqSec:            -1,
		WorkerListProbeIntervalSec:       60,
		TopicCompactionFrequencySec:      1800,
		TLSEnableHostnameVerification:    true, // Pulsar's yml since PIP-478
		HTTPRequestsMaxPerSecond:         100,
		InitialBrokerReconnectMaxRetries: 60,

		DataDir:                     "./data",
		MaxConcurrentDrains:         scheduler.DefaultMaxConcurrentDrains,
		DrainMaxParallelMoves:       scheduler.DefaultDrainMaxParallelMoves,
		DrainMoveTimeoutMs:          ms(scheduler.DefaultMoveTimeout),
		DrainRecordRetentionSec:     int64(scheduler.DefaultDrainRecordRetention / time.Second),
		SchedulerTickMs:             1000,
		InstanceRestartBackoffMinMs: 1000,
		InstanceRestartBackoffMaxMs: 60000,
		InstanceStopGracePeriodMs:   10000,
		MaxRequestBodyBytes:         64 << 20,
		WorkerReportIntervalMs:      5000,
		LogLevel:                    "info",
		LogFormat:                   "text",
	}
}

func ms(d time.Duration) int64 { return int64(d / time.Millisecond) }
