package conf

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// LoadOptions says where Load reads from.
type LoadOptions struct {
	// File is a YAML file (functions_worker.yml). Empty: no file. A path
	// that does not exist is an error.
	File string
	// Flags, if set, are bound to keys by name (see the package doc).
	// They must already be parsed.
	Flags *pflag.FlagSet
	// Hostname resolves the default workerHostname. Nil: os.Hostname.
	Hostname func() (string, error)
}

// Error is one bad configuration value.
type Error struct {
	Key    string // canonical key, e.g. "workerPort"
	Value  any    // the value as read
	Source string // "flag --worker-port", "env FWORKER_WORKER_PORT", "file.yml:3", "default" or "derived"
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("conf: %s: invalid value %s (from %s): %s", e.Key, show(e.Value), e.Source, e.Reason)
}

// Load builds the configuration: flags > environment > file > defaults.
// It returns every problem at once, joined; warnings are returned even when
// err is not nil.
func Load(opts LoadOptions) (*Config, []string, error) {
	var data []byte
	if opts.File != "" {
		var err error
		if data, err = os.ReadFile(opts.File); err != nil {
			return nil, nil, fmt.Errorf("conf: reading the configuration file: %w", err)
		}
	}
	return loadData(opts, data)
}

// loadData is Load with the file's content already read (fuzzing).
func loadData(opts LoadOptions, data []byte) (*Config, []string, error) {
	l := &loader{v: viper.New(), flags: map[string]*pflag.Flag{}, derived: map[string]bool{}}
	cfg, err := l.load(opts, data)
	return cfg, l.warnings, err
}

type loader struct {
	v        *viper.Viper
	file     *fileValues            // nil: no file
	flags    map[string]*pflag.Flag // key -> the set flag bound to it
	derived  map[string]bool        // keys Load filled in
	warnings []string
	errs     []error
}

func (l *loader) load(opts LoadOptions, data []byte) (*Config, error) {
	def := reflect.ValueOf(Defaults())
	for _, k := range keys {
		l.v.SetDefault(k.name, def.Field(k.field).Interface())
	}
	if opts.File != "" {
		f, warnings, err := parseFile(opts.File, data)
		l.warnings = append(l.warnings, warnings...)
		if err != nil {
			return nil, err
		}
		if err := l.v.MergeConfigMap(f.values); err != nil {
			return nil, fmt.Errorf("conf: %s: %w", opts.File, err)
		}
		l.file = f
	}
	l.bindEnv()
	l.bindFlags(opts.Flags)

	var cfg Config
	dst := reflect.ValueOf(&cfg).Elem()
	for _, k := range keys {
		raw := l.v.Get(k.name)
		if raw == nil {
			continue // a nil default ([]string): keep the zero value
		}
		if err := setField(dst.Field(k.field), raw); err != nil {
			l.errs = append(l.errs, &Error{Key: k.name, Value: raw, Source: l.source(k), Reason: err.Error()})
		}
	}
	if len(l.errs) == 0 {
		l.derive(&cfg, opts.Hostname)
	}
	if len(l.errs) == 0 {
		l.validate(&cfg)
	}
	if len(l.errs) > 0 {
		return nil, errors.Join(l.errs...)
	}
	return &cfg, nil
}

// bindEnv binds both environment spellings of every key and reports
// conflicting pairs and FWORKER_* variables that match no key.
func (l *loader) bindEnv() {
	for _, k := range keys {
		_ = l.v.BindEnv(k.name, k.envs[0], k.envs[1]) // cannot fail with a key
		a, b := os.Getenv(k.envs[0]), os.Getenv(k.envs[1])
		if a != "" && b != "" && a != b {
			l.errs = append(l.errs, &Error{Key: k.name, Value: b, Source: "env " + k.envs[1],
				Reason: fmt.Sprintf("conflicts with %s=%s", k.envs[0], show(a))})
		}
	}
	var unknown []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, EnvPrefix) && !knownEnv[name] && os.Getenv(name) != "" {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	for _, name := range unknown {
		l.warnings = append(l.warnings, fmt.Sprintf("environment variable %s matches no configuration key (ignored)", name))
	}
}

// bindFlags binds the flags set on the command line whose name is a key
// ("workerPort") or the key in kebab case ("worker-port"). Unset flags are
// not bound, so their defaults never hide the lower layers.
func (l *loader) bindFlags(fs *pflag.FlagSet) {
	if fs == nil {
		return
	}
	for _, k := range keys {
		var set []*pflag.Flag
		for _, name := range []string{k.name, kebab(k.name)} {
			if f := fs.Lookup(name); f != nil && f.Changed && !slices.Contains(set, f) {
				set = append(set, f)
			}
		}
		switch len(set) {
		case 0:
		case 1:
			l.flags[k.name] = set[0]
			_ = l.v.BindPFlag(k.name, set[0]) // cannot fail with a non-nil flag
		default:
			l.errs = append(l.errs, &Error{Key: k.name, Value: set[1].Value.String(),
				Source: "flag --" + set[1].Name, Reason: fmt.Sprintf("conflicts with --%s=%s", set[0].Name, set[0].Value)})
		}
	}
}

// source says which layer a key's value came from, mirroring viper's order.
func (l *loader) source(k key) string {
	if l.derived[k.name] {
		return "derived"
	}
	if f := l.flags[k.name]; f != nil {
		return "flag --" + f.Name
	}
	for _, e := range k.envs {
		if os.Getenv(e) != "" {
			return "env " + e
		}
	}
	if l.file != nil {
		for name, v := range l.file.values {
			if v != nil && strings.EqualFold(name, k.name) {
				return l.file.where(name)
			}
		}
	}
	return "default"
}

// derive fills the blanks Pulsar fills: workerHostname, then workerId.
func (l *loader) derive(c *Config, hostname func() (string, error)) {
	if strings.TrimSpace(c.WorkerHostname) == "" {
		if hostname == nil {
			hostname = os.Hostname
		}
		h, err := hostname()
		if err == nil && h == "" {
			err = errors.New("empty")
		}
		if err != nil {
			l.errs = append(l.errs, &Error{Key: "workerHostname", Value: "", Source: "derived",
				Reason: "not set, and the OS hostname is unavailable: " + err.Error()})
			return
		}
		c.WorkerHostname = h
		l.derived["workerHostname"] = true
	}
	if strings.TrimSpace(c.WorkerID) == "" {
		c.WorkerID = fmt.Sprintf("%s-%d", c.WorkerHostname, c.WorkerPort)
		l.derived["workerId"] = true
	}
}
