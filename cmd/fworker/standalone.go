package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/fworker/fworker/cluster/embedded"
	"github.com/fworker/fworker/conf"
	"github.com/fworker/fworker/scheduler"
	"github.com/fworker/fworker/worker"
)

type standaloneFlags struct {
	workers  int
	port     int
	dataDir  string
	config   string
	hostname string
	bind     string
}

func standaloneCmd() *cobra.Command {
	var f standaloneFlags
	cmd := &cobra.Command{
		Use:   "standalone",
		Short: "Run a local cluster of N workers in one process",
		Long: `Run N workers in one process. Worker i serves the Pulsar-compatible REST API
on port P+i; the first one leads and runs the scheduler. State (functions,
packages, assignments, drain records) lives in <data-dir>/fworker.db and
survives restarts. Ctrl-C stops every instance and flushes the state.`,
		Example: `  fworker standalone
  fworker standalone --workers 5 --port 7000 --data-dir /tmp/fw
  fworker standalone --config conf/functions_worker.yml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runStandalone(cmd, f) },
	}
	fl := cmd.Flags()
	fl.IntVar(&f.workers, "workers", 3, "number of workers")
	fl.IntVar(&f.port, "port", 6750, "REST port of worker 0; worker i uses port+i")
	fl.StringVar(&f.dataDir, "data-dir", "./data", "directory for the state file, packages and instance logs")
	fl.StringVar(&f.config, "config", "", "functions_worker.yml with scheduler and drain settings")
	fl.StringVar(&f.hostname, "hostname", "127.0.0.1", "host name the workers advertise (redirects use it)")
	fl.StringVar(&f.bind, "bind", "127.0.0.1", "address to listen on")
	return cmd
}

func runStandalone(cmd *cobra.Command, f standaloneFlags) error {
	if f.workers < 1 || f.workers > 100 {
		return fmt.Errorf("--workers must be between 1 and 100, got %d", f.workers)
	}
	if f.port < 1 || f.port+f.workers-1 > 65535 {
		return fmt.Errorf("--port %d leaves no room for %d workers", f.port, f.workers)
	}
	cfg, warnings, err := conf.Load(conf.LoadOptions{File: f.config})
	if err != nil {
		return err
	}
	if err := checkSupported(cfg); err != nil {
		return err
	}
	log := cfg.Logger(os.Stderr)
	for _, w := range warnings {
		log.Warn("config: " + w)
	}
	if err := os.MkdirAll(f.dataDir, 0o755); err != nil {
		return err
	}
	hub, err := embedded.Open(filepath.Join(f.dataDir, "fworker.db"), log)
	if err != nil {
		return err
	}
	defer hub.Close()

	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var svcs []*worker.Service
	var servers []*http.Server
	errc := make(chan error, f.workers)
	for i := range f.workers {
		self := scheduler.WorkerInfo{ID: "standalone-" + strconv.Itoa(i), Hostname: f.hostname, Port: f.port + i, Capacity: cfg.Capacity()}
		ln, err := net.Listen("tcp", net.JoinHostPort(f.bind, strconv.Itoa(self.Port)))
		if err != nil {
			shutdown(log, servers, svcs)
			return err
		}
		svc, err := worker.Start(ctx, workerOptions(cfg, self, hub, filepath.Join(f.dataDir, self.ID), log))
		if err != nil {
			ln.Close()
			shutdown(log, servers, svcs)
			return err
		}
		svcs = append(svcs, svc)
		srv, errs := serve(svc, ln, cfg, log)
		servers = append(servers, srv...)
		go func() { errc <- <-errs }()
		log.Info("worker serving", "worker", self.ID, "url", fmt.Sprintf("http://%s:%d", f.hostname, self.Port))
	}
	log.Info("fworker standalone is up", "workers", f.workers, "leader", "standalone-0", "dataDir", f.dataDir)
	select {
	case <-ctx.Done():
		log.Info("stopping: instances are being stopped and state flushed")
	case err = <-errc:
		log.Error("http server failed", "err", err)
	}
	shutdown(log, servers, svcs)
	return err
}
