package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

// funcConfigFlags are pulsar-admin's function config flags of create and
// update.
type funcConfigFlags struct {
	funcName
	configFile           string
	className            string
	jar, py, goBin       string
	inputs               string
	topicsPattern        string
	output               string
	logTopic             string
	deadLetterTopic      string
	maxMessageRetries    int
	parallelism          int
	cpu                  float64
	ram, disk            int64
	userConfig           string
	secrets              string
	processingGuarantees string
	subsName             string
	subsPosition         string
	retainOrdering       bool
	retainKeyOrdering    bool
	autoAck              bool
	timeoutMs            int64
	customRuntimeOptions string
	cleanupSubscription  bool
}

func (f *funcConfigFlags) addFlags(cmd *cobra.Command) {
	f.funcName.addFlags(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.configFile, "function-config-file", "", "YAML file with the function config (utils.FunctionConfig field names); flags override it")
	fl.StringVar(&f.className, "classname", "", "the function's class name (Java; Python)")
	fl.StringVar(&f.jar, "jar", "", "the function's jar: a local file or a URL (http://, https://, file:)")
	fl.StringVar(&f.py, "py", "", "the function's Python file: a local file or a URL")
	fl.StringVar(&f.goBin, "go", "", "the function's Go executable: a local file or a URL")
	fl.StringVarP(&f.inputs, "inputs", "i", "", "input topics, comma-separated")
	fl.StringVar(&f.topicsPattern, "topics-pattern", "", "a regular expression of input topics")
	fl.StringVarP(&f.output, "output", "o", "", "the output topic")
	fl.StringVar(&f.logTopic, "log-topic", "", "the topic the function's logs go to")
	fl.StringVar(&f.deadLetterTopic, "dead-letter-topic", "", "the topic for messages that failed max-message-retries times")
	fl.IntVar(&f.maxMessageRetries, "max-message-retries", 0, "how often to retry a message before giving up")
	fl.IntVar(&f.parallelism, "parallelism", 0, "the number of instances (create: default 1)")
	fl.Float64Var(&f.cpu, "cpu", 0, "CPU cores per instance")
	fl.Int64Var(&f.ram, "ram", 0, "RAM bytes per instance")
	fl.Int64Var(&f.disk, "disk", 0, "disk bytes per instance")
	fl.StringVar(&f.userConfig, "user-config", "", `user config as JSON, e.g. '{"key":"value"}'`)
	fl.StringVar(&f.secrets, "secrets", "", "secrets as JSON: secret name -> how the secrets provider finds it")
	fl.StringVar(&f.processingGuarantees, "processing-guarantees", "", "ATLEAST_ONCE, ATMOST_ONCE, EFFECTIVELY_ONCE or MANUAL")
	fl.StringVar(&f.subsName, "subs-name", "", "the input subscription's name")
	fl.StringVar(&f.subsPosition, "subs-position", "", "where a new subscription starts: Latest or Earliest")
	fl.BoolVar(&f.retainOrdering, "retain-ordering", false, "process messages in order")
	fl.BoolVar(&f.retainKeyOrdering, "retain-key-ordering", false, "process messages of a key in order")
	fl.BoolVar(&f.autoAck, "auto-ack", true, "let the framework acknowledge messages")
	fl.Int64Var(&f.timeoutMs, "timeout-ms", 0, "message timeout in milliseconds")
	fl.StringVar(&f.customRuntimeOptions, "custom-runtime-options", "", "options for the runtime, as a string")
	fl.BoolVar(&f.cleanupSubscription, "cleanup-subscription", true, "delete the subscription when the function is deleted")
}

// build makes the FunctionConfig: the config file, then the flags given.
// For create, pulsar-admin's defaults fill what is left (parallelism 1,
// autoAck, cleanupSubscription, forwardSourceMessageProperty); for update
// only what was given is sent, so that the server keeps the rest. It
// returns the package: a local file, a URL, or "" for none.
func (f *funcConfigFlags) build(cmd *cobra.Command, create bool) (*utils.FunctionConfig, string, error) {
	cfg := &utils.FunctionConfig{}
	if create {
		// Set before the file is read: a key the file has wins.
		cfg.AutoAck, cfg.CleanupSubscription, cfg.ForwardSourceMessageProperty = true, true, true
	}
	if f.configFile != "" {
		b, err := os.ReadFile(f.configFile)
		if err != nil {
			return nil, "", fmt.Errorf("--function-config-file: %w", err)
		}
		if err := yaml.Unmarshal(b, cfg); err != nil {
			return nil, "", fmt.Errorf("--function-config-file %s: %w", f.configFile, err)
		}
	}
	if err := f.naming(cmd, cfg); err != nil {
		return nil, "", err
	}
	changed := cmd.Flags().Changed
	if err := f.apply(changed, cfg); err != nil {
		return nil, "", err
	}
	if create && cfg.Parallelism == 0 {
		cfg.Parallelism = 1
	}
	return packageOf(cfg, create)
}

// naming sets tenant, namespace and name from the flags over the file.
func (f *funcConfigFlags) naming(cmd *cobra.Command, cfg *utils.FunctionConfig) error {
	if f.fqfn == "" {
		if f.tenant != "" {
			cfg.Tenant = f.tenant
		}
		if f.namespace != "" {
			cfg.Namespace = f.namespace
		}
		if f.name != "" {
			cfg.Name = f.name
		}
		if cfg.Name == "" && cfg.ClassName == "" && f.className != "" {
			cfg.ClassName = f.className
		}
		if cfg.Name == "" && cfg.ClassName != "" {
			// pulsar-admin names a function after its class.
			cfg.Name = cfg.ClassName[strings.LastIndex(cfg.ClassName, ".")+1:]
		}
		n := funcName{tenant: cfg.Tenant, namespace: cfg.Namespace, name: cfg.Name}
		t, ns, name, err := n.resolve(true)
		if err != nil {
			return err
		}
		cfg.Tenant, cfg.Namespace, cfg.Name = t, ns, name
		return nil
	}
	t, ns, name, err := funcName{fqfn: f.fqfn}.resolve(true)
	if err != nil {
		return err
	}
	if cmd.Flags().Changed("tenant") || cmd.Flags().Changed("namespace") || cmd.Flags().Changed("name") {
		return errors.New("give either --fqfn or --tenant/--namespace/--name, not both")
	}
	cfg.Tenant, cfg.Namespace, cfg.Name = t, ns, name
	return nil
}
