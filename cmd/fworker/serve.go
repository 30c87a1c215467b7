package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/fworker/fworker/cluster"
	"github.com/fworker/fworker/conf"
	"github.com/fworker/fworker/rest"
	"github.com/fworker/fworker/scheduler"
	"github.com/fworker/fworker/worker"
	"github.com/fworker/fworker/worker/runtime"
)

// checkSupported refuses settings that fworker accepts for compatibility
// with Pulsar's file but does not enforce yet: starting without the
// protection a user asked for would be worse than not starting.
func checkSupported(cfg *conf.Config) error {
	var missing []string
	if cfg.AuthenticationEnabled {
		missing = append(missing, "authenticationEnabled")
	}
	if cfg.AuthorizationEnabled {
		missing = append(missing, "authorizationEnabled")
	}
	if cfg.TLSEnabled {
		missing = append(missing, "tlsEnabled")
	}
	if cfg.HTTPRequestsLimitEnabled {
		missing = append(missing, "httpRequestsLimitEnabled")
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: set to true, but fworker does not implement it yet; refusing to start without it (set it to false, or put fworker behind a proxy that provides it)", strings.Join(missing, ", "))
	}
	return nil
}

func workerOptions(cfg *conf.Config, self scheduler.WorkerInfo, backend cluster.Backend, dir string, log *slog.Logger) worker.Options {
	ms := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
	return worker.Options{
		Self:           self,
		Backend:        backend,
		Dir:            dir,
		Scheduler:      cfg.SchedulerConfig(),
		Periods:        cfg.Periods(),
		ReportInterval: ms(cfg.WorkerReportIntervalMs),
		Runtime: runtime.Options{
			BackoffMin: ms(cfg.InstanceRestartBackoffMinMs),
			BackoffMax: ms(cfg.InstanceRestartBackoffMaxMs),
			StopGrace:  ms(cfg.InstanceStopGracePeriodMs),
			Env:        []string{"PULSAR_SERVICE_URL=" + cfg.PulsarServiceURL, "PULSAR_WEB_SERVICE_URL=" + cfg.PulsarWebServiceURL},
		},
		MaxPackageBytes: cfg.MaxRequestBodyBytes,
		Log:             log,
	}
}

// serve runs the worker's REST API on ln; the channel gets a failure.
func serve(svc *worker.Service, ln net.Listener, cfg *conf.Config, log *slog.Logger) ([]*http.Server, <-chan error) {
	srv := &http.Server{
		Handler:           rest.New(svc, rest.Options{Log: log, MaxBodyBytes: cfg.MaxRequestBodyBytes}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	errc := make(chan error, 1)
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
	}()
	return []*http.Server{srv}, errc
}

// shutdown stops HTTP first (no new requests), then the workers, followers
// before the leader so that no needless leader change happens on the way.
func shutdown(log *slog.Logger, servers []*http.Server, svcs []*worker.Service) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, s := range servers {
		_ = s.Shutdown(ctx)
	}
	for i := len(svcs) - 1; i >= 0; i-- {
		if err := svcs[i].Close(ctx); err != nil {
			log.Warn("worker stop", "worker", svcs[i].Self().ID, "err", err)
		}
	}
}
