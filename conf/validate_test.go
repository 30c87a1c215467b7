package conf

import (
	"errors"
	"strings"
	"testing"
)

func TestBadValues(t *testing.T) {
	tests := []struct {
		name   string
		file   string
		env    map[string]string
		args   []string
		key    string // Error.Key
		value  string // in the message
		source string // in the message
	}{
		{"port not a number", "workerPort: abc\n", nil, nil, "workerPort", `"abc"`, ".yml:1"},
		{"port too large", "workerPort: 70000\n", nil, nil, "workerPort", "70000", ".yml:1"},
		{"port zero", "workerPort: 0\n", nil, nil, "workerPort", "0", ".yml:1"},
		{"port fraction", "workerPort: 6750.5\n", nil, nil, "workerPort", "6750.5", ".yml"},
		{"port octal-looking env", "", map[string]string{"FWORKER_WORKER_PORT": "0x1A"}, nil, "workerPort", `"0x1A"`, "env FWORKER_WORKER_PORT"},
		{"port from flag", "", nil, []string{"--worker-port=70000"}, "workerPort", "70000", "flag --worker-port"},
		{"tls port negative", "workerPortTls: -1\n", nil, nil, "workerPortTls", "-1", ".yml"},
		{"tls port equals http port", "workerPortTls: 6750\n", nil, nil, "workerPortTls", "6750", ".yml"},
		{"port is a mapping", "workerPort: {a: 1}\n", nil, nil, "workerPort", "(mapping)", ".yml"},
		{"workerId with colon", "workerId: a:b\n", nil, nil, "workerId", `"a:b"`, ".yml"},
		{"workerId with colon from env", "", map[string]string{"FWORKER_WORKERID": "x:1"}, nil, "workerId", `"x:1"`, "env FWORKER_WORKERID"},
		{"hostname with colon", "", map[string]string{"FWORKER_WORKER_HOSTNAME": "::1"}, nil, "workerHostname", `"::1"`, "env FWORKER_WORKER_HOSTNAME"},
		{"derived workerId with colon", "", map[string]string{"FWORKER_WORKER_HOSTNAME": "::1"}, nil, "workerId", `"::1-6750"`, "derived"},
		{"namespace without slash", "pulsarFunctionsNamespace: functions\n", nil, nil, "pulsarFunctionsNamespace", `"functions"`, ".yml"},
		{"namespace with three parts", "pulsarFunctionsNamespace: a/b/c\n", nil, nil, "pulsarFunctionsNamespace", `"a/b/c"`, ".yml"},
		{"namespace empty tenant", "pulsarFunctionsNamespace: /ns\n", nil, nil, "pulsarFunctionsNamespace", `"/ns"`, ".yml"},
		{"cluster name", "pulsarFunctionsCluster: a b\n", nil, nil, "pulsarFunctionsCluster", `"a b"`, ".yml"},
		{"topic with slash", "functionAssignmentTopicName: a/b\n", nil, nil, "functionAssignmentTopicName", `"a/b"`, ".yml"},
		{"topic empty", "clusterCoordinationTopicName: ''\n", nil, nil, "clusterCoordinationTopicName", `""`, ".yml"},
		{"service url scheme", "pulsarServiceUrl: http://localhost:6650\n", nil, nil, "pulsarServiceUrl", "http://localhost:6650", ".yml"},
		{"web service url scheme", "pulsarWebServiceUrl: localhost:8080\n", nil, nil, "pulsarWebServiceUrl", "localhost:8080", ".yml"},
		{"scheduler class", "schedulerClassName: org.example.MyScheduler\n", nil, nil, "schedulerClassName", "org.example.MyScheduler", ".yml"},
		{"negative reschedule timeout", "rescheduleTimeoutMs: -5\n", nil, nil, "rescheduleTimeoutMs", "-5", ".yml"},
		{"zero failure check", "failureCheckFreqMs: 0\n", nil, nil, "failureCheckFreqMs", "0", ".yml"},
		{"negative drain move timeout", "", map[string]string{"FWORKER_DRAIN_MOVE_TIMEOUT_MS": "-1"}, nil, "drainMoveTimeoutMs", "-1", "env"},
		{"negative grace period", "instanceStopGracePeriodMs: -1\n", nil, nil, "instanceStopGracePeriodMs", "-1", ".yml"},
		{"zero drains", "maxConcurrentDrains: 0\n", nil, nil, "maxConcurrentDrains", "0", ".yml"},
		{"backoff max below min", "instanceRestartBackoffMinMs: 5000\ninstanceRestartBackoffMaxMs: 100\n", nil, nil, "instanceRestartBackoffMaxMs", "100", ".yml:2"},
		{"duration overflow", "drainMoveTimeoutMs: 9223372036854775807\n", nil, nil, "drainMoveTimeoutMs", "9223372036854775807", ".yml"},
		{"int overflow", "schedulerSeed: 99999999999999999999\n", nil, nil, "schedulerSeed", "1e+20", ".yml"},
		{"negative retries", "initialBrokerReconnectMaxRetries: -1\n", nil, nil, "initialBrokerReconnectMaxRetries", "-1", ".yml"},
		{"rate limit zero", "httpRequestsLimitEnabled: true\nhttpRequestsMaxPerSecond: 0\n", nil, nil, "httpRequestsMaxPerSecond", "0", ".yml"},
		{"rate not a number", "httpRequestsMaxPerSecond: .nan\n", nil, nil, "httpRequestsMaxPerSecond", "NaN", ".yml"},
		{"bool not a bool", "tlsEnabled: maybe\n", nil, nil, "tlsEnabled", `"maybe"`, ".yml"},
		{"bool number", "authenticationEnabled: 1\n", nil, nil, "authenticationEnabled", "1", ".yml"},
		{"tls without port", "tlsEnabled: true\ntlsCertificateFilePath: c\ntlsKeyFilePath: k\n", nil, nil, "workerPortTls", "0", "default"},
		{"tls without certificate", "tlsEnabled: true\nworkerPortTls: 6751\ntlsKeyFilePath: k\n", nil, nil, "tlsCertificateFilePath", `""`, "default"},
		{"list of mappings", "superUserRoles: [{a: 1}]\n", nil, nil, "superUserRoles", "[", ".yml"},
		{"string is a list", "workerHostname: [a, b]\n", nil, nil, "workerHostname", "[a b]", ".yml"},
		{"log level", "logLevel: verbose\n", nil, nil, "logLevel", `"verbose"`, ".yml"},
		{"log format", "", map[string]string{"FWORKER_LOGFORMAT": "xml"}, nil, "logFormat", `"xml"`, "env FWORKER_LOGFORMAT"},
		{"empty data dir", "dataDir: ''\n", nil, nil, "dataDir", `""`, ".yml"},
		{"flag spellings disagree", "", nil, []string{"--worker-port=7000", "--workerPort=7001"}, "workerPort", "--workerPort=7001", "flag --worker-port"},
		{"env spellings disagree", "", map[string]string{"FWORKER_WORKERPORT": "1", "FWORKER_WORKER_PORT": "2"}, nil, "workerPort", `"2"`, "env FWORKER_WORKER_PORT"},
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
			if err == nil {
				t.Fatalf("no error; config:%s", showConfig(cfg))
			}
			if cfg != nil {
				t.Error("config returned with an error")
			}
			ce := findErr(err, tt.key)
			if ce == nil {
				t.Fatalf("err = %v, want a *conf.Error for %s", err, tt.key)
			}
			msg := ce.Error()
			for _, want := range []string{tt.key, tt.value, tt.source} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not mention %q", msg, want)
				}
			}
		})
	}
}

// TestAllErrorsAtOnce: every bad key is reported, not only the first.
func TestAllErrorsAtOnce(t *testing.T) {
	clearEnv(t)
	path := writeFile(t, "workerPort: abc\nlogLevel: loud\nworkerPortTls: x\n")
	_, _, err := Load(LoadOptions{File: path, Hostname: fixedHost})
	for _, key := range []string{"workerPort", "workerPortTls"} {
		if findErr(err, key) == nil {
			t.Errorf("error %v does not name %s", err, key)
		}
	}
}

func TestBadFiles(t *testing.T) {
	for _, tt := range []struct{ name, file, want string }{
		{"not YAML", "workerPort: [\n", "yml"},
		{"top level is a list", "- a\n- b\n", "top level must be a mapping"},
		{"top level is a scalar", "hello\n", "top level must be a mapping"},
		{"keys differ only in case", "workerPort: 1\nWorkerPort: 2\n", "differ only in case"},
		{"duplicate key", "workerPort: 1\nworkerPort: 2\n", "already defined"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			_, _, err := Load(LoadOptions{File: writeFile(t, tt.file), Hostname: fixedHost})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestHostnameUnavailable(t *testing.T) {
	clearEnv(t)
	_, _, err := Load(LoadOptions{Hostname: func() (string, error) { return "", errors.New("no uts") }})
	if ce := findErr(err, "workerHostname"); ce == nil || !strings.Contains(ce.Error(), "no uts") {
		t.Errorf("err = %v, want a workerHostname error", err)
	}
}

// findErr returns the *Error for key among the errors Load joined.
func findErr(err error, key string) *Error {
	var ce *Error
	if errors.As(err, &ce) && ce.Key == key {
		return ce
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if ce := findErr(e, key); ce != nil {
				return ce
			}
		}
	}
	return nil
}
