package main

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/spf13/cobra"
)

type drainFlags struct {
	workerID    string
	wait        bool
	timeout     time.Duration
	interval    time.Duration
	deadline    string
	force       bool
	maxParallel int
	reason      string
}

func drainCmd(a *app) *cobra.Command {
	var f drainFlags
	cmd := &cobra.Command{
		Use:   "drain",
		Short: "Drain a worker: move its instances elsewhere, make-before-break",
		Long: `Drain a worker (PUT /admin/v2/worker/leader/drain?workerId=ID, or without
--worker-id PUT /admin/v2/worker/drain, which drains the worker that
--admin-url points at). A non-leader redirects to the leader.

Options (fworker extensions): --deadline is a duration from now (10m) or an
RFC 3339 time by which the drain must be done, else it ends in ERROR;
--force starts the drain although the other workers lack capacity, and at
the deadline stops what is left (break-before-make); --max-parallel caps the
moves in flight; --reason is recorded with the drain.

With --wait, fwadmin polls the drain status (every --interval) until it
ends: a progress bar on a terminal, one line per change otherwise, e.g.
  drain standalone-1: RUNNING moved 1/2 remaining 1
Exit code 0 on SUCCESS, 1 on ERROR (lastError is printed), 2 when --timeout
passes first (the drain itself goes on). A "not found in drain records"
ERROR after a SUCCESS (the drained worker left and its record was purged)
counts as success.`,
		Example: `  # start a drain and return
  fwadmin functions-worker drain --worker-id standalone-1
  # wait for it, at most 10 minutes
  fwadmin functions-worker drain --worker-id standalone-1 --wait --timeout 10m
  # a Kubernetes preStop hook: drain the worker this pod runs
  fwadmin --admin-url http://localhost:6750 functions-worker drain --wait
  # must be done in 5 minutes, two moves at a time, forced if needed
  fwadmin functions-worker drain --worker-id w-3 --deadline 5m --max-parallel 2 --force --reason "kernel upgrade"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runDrain(cmd, f) },
	}
	fl := cmd.Flags()
	workerIDFlag(a, cmd, &f.workerID, false, "worker to drain (default: the worker at --admin-url)")
	fl.BoolVar(&f.wait, "wait", false, "wait until the drain ends, showing its progress")
	fl.DurationVar(&f.timeout, "timeout", 0, "with --wait: stop waiting after this long, exit code 2 (0: no limit)")
	fl.DurationVar(&f.interval, "interval", 500*time.Millisecond, "with --wait: how often to poll the drain status")
	fl.StringVar(&f.deadline, "deadline", "", "the drain must be done within this duration (10m) or by this RFC 3339 time")
	fl.BoolVar(&f.force, "force", false, "drain even if the other workers lack capacity; at the deadline stop what is left")
	fl.IntVar(&f.maxParallel, "max-parallel", 0, "moves in flight at once off this worker (0: the server's default)")
	fl.StringVar(&f.reason, "reason", "", "why the worker is drained (recorded with the drain)")
	return cmd
}

func (f drainFlags) check(cmd *cobra.Command) error {
	fl := cmd.Flags()
	if !f.wait {
		for _, n := range []string{"timeout", "interval"} {
			if fl.Changed(n) {
				return fmt.Errorf("--%s needs --wait", n)
			}
		}
	}
	if f.timeout < 0 {
		return errors.New("--timeout must not be negative")
	}
	if f.interval <= 0 {
		return errors.New("--interval must be positive")
	}
	if f.maxParallel < 0 {
		return errors.New("--max-parallel must not be negative")
	}
	if f.deadline != "" {
		if d, err := time.ParseDuration(f.deadline); err == nil {
			if d <= 0 {
				return fmt.Errorf("--deadline %s must be in the future", f.deadline)
			}
		} else if _, err := time.Parse(time.RFC3339Nano, f.deadline); err != nil {
			return fmt.Errorf("--deadline %q is neither a duration (10m) nor an RFC 3339 time (2026-01-02T15:04:05Z)", f.deadline)
		}
	}
	return nil
}

func (a *app) runDrain(cmd *cobra.Command, f drainFlags) error {
	if err := f.check(cmd); err != nil {
		return err
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	path, q := drainPath(f.workerID)
	if f.deadline != "" {
		q.Set("deadline", f.deadline)
	}
	if f.force {
		q.Set("force", "true")
	}
	if f.maxParallel > 0 {
		q.Set("maxParallel", strconv.Itoa(f.maxParallel))
	}
	if f.reason != "" {
		q.Set("reason", f.reason)
	}
	if _, err := c.api.do(cmd.Context(), http.MethodPut, path, q); err != nil {
		return err
	}
	if !f.wait {
		who := f.workerID
		if who == "" {
			who = "the worker at " + a.cfg.AdminURL
		}
		fmt.Fprintf(a.stdout, "Drain of %s started\n", who)
		return nil
	}
	return a.waitDrain(cmd.Context(), c.api, f)
}
