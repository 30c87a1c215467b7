package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"

	"github.com/fworker/fworker/rest"
	"github.com/fworker/fworker/scheduler"
)

// specFromConfig turns a Pulsar FunctionConfig into what the scheduler
// needs; the whole config travels along as Details.
func specFromConfig(cfg utils.FunctionConfig, pkgName string) (scheduler.FunctionSpec, error) {
	k := scheduler.FunctionKey{Tenant: cfg.Tenant, Namespace: cfg.Namespace, Name: cfg.Name}
	if err := k.Validate(); err != nil {
		return scheduler.FunctionSpec{}, err
	}
	if cfg.Parallelism <= 0 {
		cfg.Parallelism = 1
	}
	if cfg.Runtime == "" {
		switch {
		case cfg.Jar != nil:
			cfg.Runtime = utils.JavaRuntime
		case cfg.Py != nil:
			cfg.Runtime = utils.PythonRuntime
		default:
			cfg.Runtime = utils.GoRuntime
		}
	}
	if cfg.Resources == nil {
		cfg.Resources = utils.NewDefaultResources()
	}
	cfg.FQFN = ""
	details, err := json.Marshal(cfg)
	if err != nil {
		return scheduler.FunctionSpec{}, err
	}
	spec := scheduler.FunctionSpec{
		FunctionKey: k,
		Parallelism: cfg.Parallelism,
		Resources:   scheduler.Resources{CPU: cfg.Resources.CPU, RAM: cfg.Resources.RAM, Disk: cfg.Resources.Disk},
		Runtime:     cfg.Runtime,
		Package:     pkgName,
		Details:     details,
	}
	return spec, spec.Normalize()
}

func configOf(f scheduler.Function) utils.FunctionConfig {
	var cfg utils.FunctionConfig
	_ = json.Unmarshal(f.Spec.Details, &cfg)
	cfg.Tenant, cfg.Namespace, cfg.Name = f.Spec.Tenant, f.Spec.Namespace, f.Spec.Name
	cfg.Parallelism = f.Spec.Parallelism
	cfg.Runtime = f.Spec.Runtime
	return cfg
}

func keyOf(cfg utils.FunctionConfig) scheduler.FunctionKey {
	return scheduler.FunctionKey{Tenant: cfg.Tenant, Namespace: cfg.Namespace, Name: cfg.Name}
}

func (s *Service) CreateFunction(ctx context.Context, cfg utils.FunctionConfig, pkg rest.Package) error {
	if s.actor() == nil {
		return rest.ErrNotLeader
	}
	k := keyOf(cfg)
	if err := k.Validate(); err != nil {
		return err
	}
	if _, exists := s.mirror.function(k); exists {
		return &scheduler.FunctionExistsError{Key: k}
	}
	name, err := s.storePackage(ctx, k, pkg)
	if err != nil {
		return err
	}
	spec, err := specFromConfig(cfg, name)
	if err == nil {
		_, err = ask[scheduler.Function](ctx, s, scheduler.CreateFunction{Spec: spec})
	}
	var exists *scheduler.FunctionExistsError
	if err != nil && !errors.As(err, &exists) { // an existing function may use the same package
		s.forgetPackage(ctx, name)
	}
	return err
}

// forgetPackage removes a package that no function uses after all.
func (s *Service) forgetPackage(ctx context.Context, name string) {
	if err := s.sess.DeletePackage(ctx, name); err != nil {
		s.log.Warn("worker: unused package not deleted", "package", name, "err", err)
	}
}

// UpdateFunction merges the given config onto the stored one, as Pulsar
// does: fields left empty keep their value. A nil pkg keeps the package.
func (s *Service) UpdateFunction(ctx context.Context, cfg utils.FunctionConfig, pkg *rest.Package) error {
	if s.actor() == nil {
		return rest.ErrNotLeader
	}
	k := keyOf(cfg)
	if err := k.Validate(); err != nil {
		return err
	}
	old, ok := s.mirror.function(k)
	if !ok {
		return &scheduler.FunctionNotFoundError{Key: k}
	}
	merged := merge(configOf(old), cfg)
	name := old.Spec.Package
	if pkg != nil {
		var err error
		if name, err = s.storePackage(ctx, k, *pkg); err != nil {
			return err
		}
	}
	spec, err := specFromConfig(merged, name)
	if err == nil {
		_, err = ask[scheduler.Function](ctx, s, scheduler.UpdateFunction{Spec: spec})
	}
	if name != old.Spec.Package {
		if err != nil {
			s.forgetPackage(ctx, name) // the update did not happen
		} else {
			s.forgetPackage(ctx, old.Spec.Package) // replaced
		}
	}
	return err
}

// merge overlays the fields an update sets. New code (jar, py or go)
// replaces the old code and, unless the update names a runtime, makes the
// runtime follow it.
func merge(old, upd utils.FunctionConfig) utils.FunctionConfig {
	m := old
	if upd.Parallelism > 0 {
		m.Parallelism = upd.Parallelism
	}
	for _, f := range []struct{ dst, v *string }{
		{&m.Output, &upd.Output}, {&m.ClassName, &upd.ClassName}, {&m.Runtime, &upd.Runtime},
		{&m.LogTopic, &upd.LogTopic}, {&m.DeadLetterTopic, &upd.DeadLetterTopic},
	} {
		if *f.v != "" {
			*f.dst = *f.v
		}
	}
	if upd.Inputs != nil {
		m.Inputs = upd.Inputs
	}
	if upd.InputSpecs != nil {
		m.InputSpecs = upd.InputSpecs
	}
	if upd.UserConfig != nil {
		m.UserConfig = upd.UserConfig
	}
	if upd.Secrets != nil {
		m.Secrets = upd.Secrets
	}
	if upd.TopicsPattern != nil {
		m.TopicsPattern = upd.TopicsPattern
	}
	if upd.Resources != nil {
		m.Resources = upd.Resources
	}
	if upd.MaxMessageRetries != nil {
		m.MaxMessageRetries = upd.MaxMessageRetries
	}
	if upd.TimeoutMs != nil {
		m.TimeoutMs = upd.TimeoutMs
	}
	if upd.Jar != nil || upd.Py != nil || upd.Go != nil {
		m.Jar, m.Py, m.Go = upd.Jar, upd.Py, upd.Go
		m.Runtime = upd.Runtime // "" is inferred from the code again
	}
	return m
}

func (s *Service) DeleteFunction(ctx context.Context, key scheduler.FunctionKey) error {
	f, _ := s.mirror.function(key)
	if err := s.do(ctx, scheduler.DeleteFunction{Key: key}); err != nil {
		return err
	}
	if f.Spec.Package != "" {
		s.forgetPackage(ctx, f.Spec.Package)
	}
	return nil
}

func (s *Service) SetInstanceState(ctx context.Context, key scheduler.FunctionKey, index int, running bool) error {
	return s.do(ctx, scheduler.SetInstanceState{Key: key, Index: index, Running: running})
}

func (s *Service) RestartInstance(ctx context.Context, key scheduler.FunctionKey, index int) error {
	return s.do(ctx, scheduler.RestartInstance{Key: key, Index: index})
}

func (s *Service) GetFunction(_ context.Context, key scheduler.FunctionKey) (utils.FunctionConfig, error) {
	f, ok := s.mirror.function(key)
	if !ok {
		return utils.FunctionConfig{}, &scheduler.FunctionNotFoundError{Key: key}
	}
	return configOf(f), nil
}

func (s *Service) ListFunctions(_ context.Context, tenant, namespace string) ([]string, error) {
	return s.mirror.names(tenant, namespace), nil
}

func (s *Service) OpenPackage(ctx context.Context, key scheduler.FunctionKey) (io.ReadCloser, error) {
	f, ok := s.mirror.function(key)
	if !ok {
		return nil, &scheduler.FunctionNotFoundError{Key: key}
	}
	r, err := s.sess.OpenPackage(ctx, f.Spec.Package)
	if err != nil {
		return nil, fmt.Errorf("package of %s: %w", key, err)
	}
	return r, nil
}
