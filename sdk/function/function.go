// Package function is the Go SDK for fworker functions: a function is a
// handler plus one call to Start.
//
//	func main() {
//		function.Start(func(ctx context.Context, fc *function.Context, in []byte) ([]byte, error) {
//			return append(in, '!'), nil
//		})
//	}
//
// Start reads the instance contract of the process runtime
// (worker/runtime/CONTRACT.md: FWORKER_* variables and the details file),
// connects to Pulsar (PULSAR_SERVICE_URL), consumes the function's inputs on
// the subscription Pulsar Functions would use, calls the handler for each
// message, produces a non-nil result to the output topic, and acknowledges
// the input only after the output was written (at-least-once). A handler
// error negatively acknowledges the input, so it is redelivered. SIGTERM
// stops the loop cleanly. Counters go to FWORKER_STATS_FILE every second,
// for the worker's function status and stats.
//
// Concurrency: Run processes one message at a time on the calling
// goroutine; the handler is never called concurrently within an instance.
package function

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"

	"github.com/fworker/fworker/sdk/stats"
)

// Config is what the runtime tells an instance about itself.
type Config struct {
	Tenant        string               `json:"tenant"`
	Namespace     string               `json:"namespace"`
	Name          string               `json:"name"`
	Instance      string               `json:"instance"`
	FQFN          string               `json:"fqfn"`
	InstanceIndex int                  `json:"instanceIndex"`
	Parallelism   int                  `json:"parallelism"`
	WorkerID      string               `json:"workerId"`
	Details       utils.FunctionConfig `json:"details"`
}

// Context is passed to the handler with each message.
type Context struct {
	Config  *Config
	Message pulsar.Message
	Log     *slog.Logger
}

// UserConfig returns a value of the function's user config.
func (c *Context) UserConfig(key string) (any, bool) {
	v, ok := c.Config.Details.UserConfig[key]
	return v, ok
}

// Handler processes one input. A nil output with a nil error produces
// nothing and acknowledges the input.
type Handler func(ctx context.Context, fc *Context, input []byte) ([]byte, error)

// LoadConfig reads the details file named by FWORKER_FUNCTION_DETAILS_FILE.
func LoadConfig() (*Config, error) {
	path := os.Getenv("FWORKER_FUNCTION_DETAILS_FILE")
	if path == "" {
		return nil, errors.New("function: FWORKER_FUNCTION_DETAILS_FILE is not set; run this under an fworker worker")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("function: %w", err)
	}
	var c Config
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("function: details file %s: %w", path, err)
	}
	return &c, nil
}

// SubscriptionName is Pulsar Functions' default: tenant/namespace/name,
// unless the function config names one.
func (c *Config) SubscriptionName() string {
	if c.Details.SubName != "" {
		return c.Details.SubName
	}
	return c.FQFN
}

// Start runs h until SIGTERM or SIGINT and exits the process; a failure to
// start exits with status 1.
func Start(h Handler) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := Run(ctx, h, log); err != nil {
		log.Error("function stopped", "err", err)
		os.Exit(1)
	}
}

// Run is Start without the process handling: it returns when ctx ends
// (nil) or on a fatal error.
func Run(ctx context.Context, h Handler, log *slog.Logger) error {
	cfg, err := LoadConfig()
	if err != nil {
		return err
	}
	url := os.Getenv("PULSAR_SERVICE_URL")
	if url == "" {
		url = "pulsar://localhost:6650"
	}
	log = log.With("instance", cfg.Instance)
	client, err := pulsar.NewClient(pulsar.ClientOptions{URL: url, OperationTimeout: 30 * time.Second})
	if err != nil {
		return fmt.Errorf("function: connect %s: %w", url, err)
	}
	defer client.Close()
	if len(cfg.Details.Inputs) == 0 {
		return errors.New("function: no input topics in the function config")
	}
	opts := pulsar.ConsumerOptions{
		Topics:                      cfg.Details.Inputs,
		SubscriptionName:            cfg.SubscriptionName(),
		Type:                        pulsar.Shared,
		SubscriptionInitialPosition: pulsar.SubscriptionPositionLatest,
		NackRedeliveryDelay:         time.Second,
	}
	if cfg.Details.RetainOrdering {
		opts.Type = pulsar.Failover
	}
	if cfg.Details.SubscriptionPosition == "Earliest" {
		opts.SubscriptionInitialPosition = pulsar.SubscriptionPositionEarliest
	}
	consumer, err := client.Subscribe(opts)
	if err != nil {
		return fmt.Errorf("function: subscribe %v: %w", cfg.Details.Inputs, err)
	}
	defer consumer.Close()
	var producer pulsar.Producer
	if cfg.Details.Output != "" {
		producer, err = client.CreateProducer(pulsar.ProducerOptions{Topic: cfg.Details.Output})
		if err != nil {
			return fmt.Errorf("function: producer %s: %w", cfg.Details.Output, err)
		}
		defer producer.Close()
	}
	log.Info("function running", "inputs", cfg.Details.Inputs, "output", cfg.Details.Output, "subscription", opts.SubscriptionName)
	col := newCollector(time.Now)
	stop := writeStats(col, os.Getenv("FWORKER_STATS_FILE"), log)
	defer stop()
	for {
		msg, err := consumer.Receive(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("function: receive: %w", err)
		}
		start := time.Now()
		userErr, sysErr := process(ctx, h, &Context{Config: cfg, Message: msg, Log: log}, producer)
		col.record(start, time.Since(start), userErr, sysErr)
		if err := errors.Join(userErr, sysErr); err != nil {
			log.Warn("input not processed; it will be redelivered", "msg", msg.ID().String(), "err", err)
			consumer.Nack(msg)
			continue
		}
		if err := consumer.Ack(msg); err != nil {
			log.Warn("ack failed", "err", err)
		}
	}
}

// process runs the handler (its error is a user exception) and writes the
// output (its error is a system exception).
func process(ctx context.Context, h Handler, fc *Context, producer pulsar.Producer) (userErr, sysErr error) {
	out, err := h(ctx, fc, fc.Message.Payload())
	if err != nil || out == nil || producer == nil {
		return err, nil
	}
	_, err = producer.Send(ctx, &pulsar.ProducerMessage{
		Payload:    out,
		Key:        fc.Message.Key(),
		Properties: fc.Message.Properties(),
	})
	return nil, err
}

// writeStats writes the collector to path every second and once more when
// stopped; no path, no file.
func writeStats(c *collector, path string, log *slog.Logger) (stop func()) {
	if path == "" {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			if err := stats.Write(path, c.snapshot()); err != nil {
				log.Warn("stats file not written", "err", err)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		_ = stats.Write(path, c.snapshot())
	}
}
