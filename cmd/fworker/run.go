package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	pulsarcluster "github.com/fworker/fworker/cluster/pulsar"
	"github.com/fworker/fworker/conf"
	"github.com/fworker/fworker/scheduler"
	"github.com/fworker/fworker/worker"
)

func runCmd() *cobra.Command {
	var file, bind string
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run one worker of a cluster coordinated through Apache Pulsar",
		Long: `Run one worker that joins the cluster on the configured Pulsar: membership
and leadership through a failover subscription on the coordination topic,
scheduling state on a compacted topic written only by the leader, function
packages stored in Pulsar. Several processes with different workerId and
workerPort form a cluster, on one machine or many.

Flags named after configuration keys (--worker-id, --worker-port, ...)
override the file and the FWORKER_* environment.`,
		Example: `  fworker run --config conf/functions_worker.yml
  fworker run --config conf/functions_worker.yml --worker-id w2 --worker-port 6752 --data-dir data/w2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runWorker(cmd, file, bind) },
	}
	fl := cmd.Flags()
	fl.StringVar(&file, "config", "", "functions_worker.yml")
	fl.StringVar(&bind, "bind", "0.0.0.0", "address to listen on")
	fl.String("worker-id", "", "workerId (default <hostname>-<port>)")
	fl.String("worker-hostname", "", "workerHostname advertised to clients and other workers")
	fl.Int("worker-port", 0, "workerPort")
	fl.String("data-dir", "", "dataDir: package cache and instance logs")
	fl.String("pulsar-service-url", "", "pulsarServiceUrl")
	fl.String("pulsar-web-service-url", "", "pulsarWebServiceUrl")
	return cmd
}

func runWorker(cmd *cobra.Command, file, bind string) error {
	cfg, warnings, err := conf.Load(conf.LoadOptions{File: file, Flags: cmd.Flags()})
	if err != nil {
		return err
	}
	if err := checkSupported(cfg); err != nil {
		return err
	}
	log := cfg.Logger(os.Stderr).With("worker", cfg.WorkerID)
	for _, w := range warnings {
		log.Warn("config: " + w)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	backend, err := pulsarcluster.Open(ctx, pulsarOptions(cfg))
	if err != nil {
		return err
	}
	defer backend.Close()
	ln, err := net.Listen("tcp", net.JoinHostPort(bind, strconv.Itoa(cfg.WorkerPort)))
	if err != nil {
		return err
	}
	self := scheduler.WorkerInfo{ID: cfg.WorkerID, Hostname: cfg.WorkerHostname, Port: cfg.AdvertisedPort(), Capacity: cfg.Capacity()}
	svc, err := worker.Start(ctx, workerOptions(cfg, self, backend, filepath.Join(cfg.DataDir, cfg.WorkerID), log))
	if err != nil {
		ln.Close()
		return err
	}
	srv, errc := serve(svc, ln, cfg, log)
	log.Info("fworker worker is up", "url", fmt.Sprintf("http://%s:%d", self.Hostname, self.Port), "pulsar", cfg.PulsarServiceURL)
	select {
	case <-ctx.Done():
		log.Info("stopping: instances are being stopped")
	case err = <-errc:
		log.Error("http server failed", "err", err)
	}
	shutdown(log, srv, []*worker.Service{svc})
	return err
}

func pulsarOptions(cfg *conf.Config) pulsarcluster.Options {
	o := pulsarcluster.Options{
		ServiceURL:                 cfg.PulsarServiceURL,
		AdminURL:                   cfg.PulsarWebServiceURL,
		Namespace:                  cfg.PulsarFunctionsNamespace,
		CoordinationTopic:          cfg.ClusterCoordinationTopicName,
		TLSTrustCertsFile:          cfg.TLSTrustCertsFilePath,
		TLSAllowInsecureConnection: cfg.TLSAllowInsecureConnection,
	}
	if strings.Contains(cfg.BrokerClientAuthenticationPlugin, "AuthenticationToken") {
		o.Token = strings.TrimPrefix(cfg.BrokerClientAuthenticationParameters, "token:")
	}
	return o
}
