package conf

import (
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"strings"
	"time"
)

// pulsarName is Pulsar's NamedEntity rule for tenants, namespaces and
// clusters.
var pulsarName = regexp.MustCompile(`^[-=:.\w]+$`)

// Limits that keep every time value convertible to a time.Duration.
const (
	maxMs  = math.MaxInt64 / int64(time.Millisecond)
	maxSec = math.MaxInt64 / int64(time.Second)
)

// sign says which integers a key accepts.
type sign int

const (
	positive    sign = iota // > 0
	nonNegative             // >= 0
	anySign                 // <= 0 turns the feature off
)

func (l *loader) bad(name string, value any, reason string) {
	for _, k := range keys {
		if k.name == name {
			l.errs = append(l.errs, &Error{Key: name, Value: value, Source: l.source(k), Reason: reason})
			return
		}
	}
	panic("conf: no key " + name)
}

func (l *loader) warn(format string, args ...any) {
	l.warnings = append(l.warnings, fmt.Sprintf(format, args...))
}

func (l *loader) validate(c *Config) {
	l.checkIdentity(c)
	l.checkPulsar(c)
	l.checkNumbers(c)
	l.checkSecurity(c)

	if strings.TrimSpace(c.DataDir) == "" {
		l.bad("dataDir", c.DataDir, "must not be empty")
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.LogLevel)); err != nil {
		l.bad("logLevel", c.LogLevel, "want debug, info, warn or error")
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		l.bad("logFormat", c.LogFormat, "want text or json")
	}
}

func (l *loader) checkIdentity(c *Config) {
	const colon = "must not contain ':' (Pulsar joins <workerId>:<workerHostname>:<port> and splits on ':')"
	if strings.Contains(c.WorkerID, ":") {
		l.bad("workerId", c.WorkerID, colon)
	}
	if strings.Contains(c.WorkerHostname, ":") {
		l.bad("workerHostname", c.WorkerHostname, colon)
	}
	if c.WorkerPort < 1 || c.WorkerPort > 65535 {
		l.bad("workerPort", c.WorkerPort, "want a port between 1 and 65535")
	}
	if c.WorkerPortTLS < 0 || c.WorkerPortTLS > 65535 {
		l.bad("workerPortTls", c.WorkerPortTLS, "want a port between 1 and 65535, or 0 for none")
	} else if c.WorkerPortTLS != 0 && c.WorkerPortTLS == c.WorkerPort {
		l.bad("workerPortTls", c.WorkerPortTLS, "must differ from workerPort")
	}
}

func (l *loader) checkPulsar(c *Config) {
	if !hasScheme(c.PulsarServiceURL, "pulsar://", "pulsar+ssl://") {
		l.bad("pulsarServiceUrl", c.PulsarServiceURL, "want pulsar://host:port or pulsar+ssl://host:port")
	}
	if !hasScheme(c.PulsarWebServiceURL, "http://", "https://") {
		l.bad("pulsarWebServiceUrl", c.PulsarWebServiceURL, "want http://host:port or https://host:port")
	}
	tenant, ns, ok := strings.Cut(c.PulsarFunctionsNamespace, "/")
	if !ok || !pulsarName.MatchString(tenant) || !pulsarName.MatchString(ns) {
		l.bad("pulsarFunctionsNamespace", c.PulsarFunctionsNamespace, "want tenant/namespace")
	}
	if c.PulsarFunctionsCluster != "" && !pulsarName.MatchString(c.PulsarFunctionsCluster) {
		l.bad("pulsarFunctionsCluster", c.PulsarFunctionsCluster, "not a valid Pulsar cluster name")
	}
	for _, t := range [][2]string{
		{"functionMetadataTopicName", c.FunctionMetadataTopicName},
		{"clusterCoordinationTopicName", c.ClusterCoordinationTopicName},
		{"functionAssignmentTopicName", c.FunctionAssignmentTopicName},
	} {
		if t[1] == "" || strings.ContainsAny(t[1], "/ \t\r\n") {
			l.bad(t[0], t[1], "want a topic name without '/' or spaces")
		}
	}
	switch c.SchedulerClassName {
	case RoundRobinSchedulerClass, RoundRobinAlias, ResourceAwareAlias:
	default:
		l.bad("schedulerClassName", c.SchedulerClassName,
			fmt.Sprintf("want %s, %q or %q", RoundRobinSchedulerClass, RoundRobinAlias, ResourceAwareAlias))
	}
}

func hasScheme(u string, schemes ...string) bool {
	for _, s := range schemes {
		if rest, ok := strings.CutPrefix(u, s); ok {
			return rest != "" && !strings.ContainsAny(rest, " \t\r\n")
		}
	}
	return false
}

func (l *loader) checkNumbers(c *Config) {
	for _, n := range []struct {
		name string
		v    int64
		sign sign
	}{
		{"failureCheckFreqMs", c.FailureCheckFreqMs, positive},
		{"rescheduleTimeoutMs", c.RescheduleTimeoutMs, positive},
		{"rebalanceCheckFreqSec", c.RebalanceCheckFreqSec, anySign},
		{"workerListProbeIntervalSec", c.WorkerListProbeIntervalSec, anySign},
		{"topicCompactionFrequencySec", c.TopicCompactionFrequencySec, anySign},
		{"initialBrokerReconnectMaxRetries", int64(c.InitialBrokerReconnectMaxRetries), nonNegative},
		{"maxConcurrentDrains", int64(c.MaxConcurrentDrains), positive},
		{"drainMaxParallelMoves", int64(c.DrainMaxParallelMoves), positive},
		{"drainMoveTimeoutMs", c.DrainMoveTimeoutMs, positive},
		{"drainRecordRetentionSec", c.DrainRecordRetentionSec, positive},
		{"schedulerTickMs", c.SchedulerTickMs, positive},
		{"instanceRestartBackoffMinMs", c.InstanceRestartBackoffMinMs, positive},
		{"instanceRestartBackoffMaxMs", c.InstanceRestartBackoffMaxMs, positive},
		{"instanceStopGracePeriodMs", c.InstanceStopGracePeriodMs, nonNegative},
		{"maxRequestBodyBytes", c.MaxRequestBodyBytes, positive},
		{"workerCapacityRam", c.WorkerCapacityRAM, nonNegative},
		{"workerCapacityDisk", c.WorkerCapacityDisk, nonNegative},
		{"workerReportIntervalMs", c.WorkerReportIntervalMs, positive},
	} {
		switch {
		case n.sign == positive && n.v <= 0:
			l.bad(n.name, n.v, "must be greater than 0")
		case n.sign == nonNegative && n.v < 0:
			l.bad(n.name, n.v, "must not be negative")
		case strings.HasSuffix(n.name, "Ms") && n.v > maxMs:
			l.bad(n.name, n.v, fmt.Sprintf("too large (at most %d)", maxMs))
		case strings.HasSuffix(n.name, "Sec") && n.v > maxSec:
			l.bad(n.name, n.v, fmt.Sprintf("too large (at most %d)", maxSec))
		}
	}
	if v := c.WorkerCapacityCPU; v < 0 || v != v || v > 1e6 {
		l.bad("workerCapacityCpu", v, "must be between 0 (unlimited) and 1e6")
	}
	if c.SchedulerClassName != ResourceAwareAlias && (c.WorkerCapacityCPU > 0 || c.WorkerCapacityRAM > 0 || c.WorkerCapacityDisk > 0) {
		l.warn("workerCapacity* are set but schedulerClassName is not %q: they are ignored", ResourceAwareAlias)
	}
	if c.InstanceRestartBackoffMaxMs < c.InstanceRestartBackoffMinMs {
		l.bad("instanceRestartBackoffMaxMs", c.InstanceRestartBackoffMaxMs,
			fmt.Sprintf("must not be below instanceRestartBackoffMinMs (%d)", c.InstanceRestartBackoffMinMs))
	}
	if v := c.FailureCheckFreqMs; v > 0 && v < 1000 {
		l.warn("failureCheckFreqMs=%d is below the scheduler's 1 s resolution; 1 s is used", v)
	}
	if v := c.SchedulerTickMs; v > 0 && v < 1000 {
		l.warn("schedulerTickMs=%d is below the scheduler's 1 s resolution; 1 s is used", v)
	}
}

func (l *loader) checkSecurity(c *Config) {
	if c.HTTPRequestsLimitEnabled && c.HTTPRequestsMaxPerSecond <= 0 {
		l.bad("httpRequestsMaxPerSecond", c.HTTPRequestsMaxPerSecond, "must be greater than 0 when httpRequestsLimitEnabled is true")
	}
	if c.TLSEnabled {
		if c.WorkerPortTLS == 0 {
			l.bad("workerPortTls", c.WorkerPortTLS, "must be set when tlsEnabled is true")
		}
		if c.TLSCertificateFilePath == "" {
			l.bad("tlsCertificateFilePath", c.TLSCertificateFilePath, "must be set when tlsEnabled is true")
		}
		if c.TLSKeyFilePath == "" {
			l.bad("tlsKeyFilePath", c.TLSKeyFilePath, "must be set when tlsEnabled is true")
		}
	}
	if c.AuthorizationEnabled && !c.AuthenticationEnabled {
		l.warn("authorizationEnabled is true but authenticationEnabled is false: requests are anonymous, so every super-user check fails")
	}
	if c.AuthenticationEnabled && len(c.AuthenticationProviders) == 0 {
		l.warn("authenticationEnabled is true but authenticationProviders is empty: no request can authenticate")
	}
}
