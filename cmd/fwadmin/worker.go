package main

import (
	"context"
	"net/url"
	"time"

	"github.com/spf13/cobra"
)

func workerCmd(a *app) *cobra.Command {
	cmd := group("functions-worker", "Operations on the Functions Worker cluster",
		`Cluster membership, assignments, stats and metrics (as in pulsar-admin
functions-worker), rebalance, and drains: drain a worker (optionally
waiting with a progress bar), follow its status, undrain, cordon, list the
drains, watch the event stream. Leader-only calls may be sent to any worker:
a non-leader answers 307 and fwadmin repeats the call, same method, at the
leader.`,
		`  fwadmin functions-worker get-cluster -o table
  fwadmin functions-worker drain --worker-id standalone-1 --wait
  fwadmin functions-worker watch`, "pfw")
	cmd.AddCommand(
		getClusterCmd(a), getClusterLeaderCmd(a), getAssignmentsCmd(a),
		functionStatsCmd(a), monitoringMetricsCmd(a), rebalanceCmd(a),
		drainCmd(a), getDrainStatusCmd(a), undrainCmd(a),
		cordonCmd(a), uncordonCmd(a), listDrainsCmd(a), watchCmd(a),
	)
	return cmd
}

// Paths of the worker REST API that fwadmin calls itself.
const (
	pathRebalance   = "/admin/v2/worker/rebalance"
	pathDrain       = "/admin/v2/worker/drain"
	pathLeaderDrain = "/admin/v2/worker/leader/drain"
	pathCordon      = "/admin/v2/worker/leader/cordon"
	pathDrains      = "/admin/v2/worker/drains"
	pathEvents      = "/admin/v2/worker/events"
)

// drainPath is the drain-family path for a worker: the leader form with
// workerId, or, without an id, the form that means "the worker receiving
// the request".
func drainPath(workerID string) (string, url.Values) {
	if workerID == "" {
		return pathDrain, url.Values{}
	}
	return pathLeaderDrain, url.Values{"workerId": {workerID}}
}

// workerIDFlag adds --worker-id, completed with the cluster's members.
func workerIDFlag(a *app, cmd *cobra.Command, dst *string, required bool, help string) {
	cmd.Flags().StringVar(dst, "worker-id", "", help)
	if required {
		_ = cmd.MarkFlagRequired("worker-id")
	}
	_ = cmd.RegisterFlagCompletionFunc("worker-id", func(c *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return a.completeWorkers(c), cobra.ShellCompDirectiveNoFileComp
	})
}

// completeWorkers asks the cluster for its members (2 s at most).
func (a *app) completeWorkers(cmd *cobra.Command) []string {
	if err := a.load(cmd); err != nil {
		return nil
	}
	c, err := a.client()
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	members, err := c.v2.FunctionsWorker().GetClusterWithContext(ctx)
	if err != nil {
		return nil
	}
	ids := make([]string, 0, len(members))
	for _, m := range members {
		ids = append(ids, m.WorkerID)
	}
	return ids
}
