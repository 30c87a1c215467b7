package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
)

// apply copies the flags that were given onto cfg.
func (f *funcConfigFlags) apply(changed func(string) bool, cfg *utils.FunctionConfig) error {
	str := func(flag string, dst *string, v string) {
		if changed(flag) {
			*dst = v
		}
	}
	str("classname", &cfg.ClassName, f.className)
	str("output", &cfg.Output, f.output)
	str("log-topic", &cfg.LogTopic, f.logTopic)
	str("dead-letter-topic", &cfg.DeadLetterTopic, f.deadLetterTopic)
	str("processing-guarantees", &cfg.ProcessingGuarantees, strings.ToUpper(f.processingGuarantees))
	str("subs-name", &cfg.SubName, f.subsName)
	str("subs-position", &cfg.SubscriptionPosition, f.subsPosition)
	str("custom-runtime-options", &cfg.CustomRuntimeOptions, f.customRuntimeOptions)
	if changed("inputs") {
		cfg.Inputs = splitList(f.inputs)
	}
	if changed("topics-pattern") {
		cfg.TopicsPattern = &f.topicsPattern
	}
	if changed("max-message-retries") {
		cfg.MaxMessageRetries = &f.maxMessageRetries
	}
	if changed("timeout-ms") {
		cfg.TimeoutMs = &f.timeoutMs
	}
	if changed("parallelism") {
		if f.parallelism < 1 {
			return fmt.Errorf("--parallelism %d: must be at least 1", f.parallelism)
		}
		cfg.Parallelism = f.parallelism
	}
	for _, b := range []struct {
		flag string
		dst  *bool
		v    bool
	}{
		{"retain-ordering", &cfg.RetainOrdering, f.retainOrdering},
		{"retain-key-ordering", &cfg.RetainKeyOrdering, f.retainKeyOrdering},
		{"auto-ack", &cfg.AutoAck, f.autoAck},
		{"cleanup-subscription", &cfg.CleanupSubscription, f.cleanupSubscription},
	} {
		if changed(b.flag) {
			*b.dst = b.v
		}
	}
	if changed("cpu") || changed("ram") || changed("disk") {
		if cfg.Resources == nil {
			cfg.Resources = utils.NewDefaultResources()
		}
		if changed("cpu") {
			cfg.Resources.CPU = f.cpu
		}
		if changed("ram") {
			cfg.Resources.RAM = f.ram
		}
		if changed("disk") {
			cfg.Resources.Disk = f.disk
		}
	}
	for _, j := range []struct {
		flag, v string
		dst     *map[string]any
	}{{"user-config", f.userConfig, &cfg.UserConfig}, {"secrets", f.secrets, &cfg.Secrets}} {
		if !changed(j.flag) {
			continue
		}
		m := map[string]any{}
		if err := json.Unmarshal([]byte(j.v), &m); err != nil {
			return fmt.Errorf("--%s: not a JSON object: %w", j.flag, err)
		}
		*j.dst = m
	}
	for _, p := range []struct {
		flag, v, runtime string
		dst              **string
	}{
		{"jar", f.jar, utils.JavaRuntime, &cfg.Jar},
		{"py", f.py, utils.PythonRuntime, &cfg.Py},
		{"go", f.goBin, utils.GoRuntime, &cfg.Go},
	} {
		if changed(p.flag) {
			v := p.v
			*p.dst = &v
			cfg.Runtime = p.runtime
		}
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// packageOf checks the code flags and returns the package to send: a
// local file, a URL, or "" (update without new code). Only one of jar, py
// and go may be given; create needs one.
func packageOf(cfg *utils.FunctionConfig, create bool) (*utils.FunctionConfig, string, error) {
	var pkgs []string
	for _, p := range []*string{cfg.Jar, cfg.Py, cfg.Go} {
		if p != nil && *p != "" {
			pkgs = append(pkgs, *p)
		}
	}
	switch {
	case len(pkgs) > 1:
		return nil, "", fmt.Errorf("give only one of --jar, --py and --go")
	case len(pkgs) == 0 && create:
		return nil, "", fmt.Errorf("either a Java jar, a Python file or a Go executable is needed: --jar, --py or --go")
	case len(pkgs) == 0:
		return cfg, "", nil
	}
	// The runtime follows from --jar/--py/--go on the server (worker's
	// specFromConfig), as it does for any other client.
	pkg := pkgs[0]
	if isPackageURL(pkg) {
		return cfg, pkg, nil
	}
	st, err := os.Stat(pkg)
	if err != nil {
		return nil, "", fmt.Errorf("the function package %s: %w", pkg, err)
	}
	if st.IsDir() {
		return nil, "", fmt.Errorf("the function package %s is a directory", pkg)
	}
	return cfg, pkg, nil
}

// isPackageURL: a package the worker fetches itself rather than one
// uploaded from here.
func isPackageURL(p string) bool {
	for _, s := range []string{"http://", "https://", "file:", "builtin://", "function://", "sink://", "source://"} {
		if strings.HasPrefix(p, s) {
			return true
		}
	}
	return false
}
