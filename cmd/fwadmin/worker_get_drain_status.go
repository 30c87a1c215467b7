package main

import (
	"github.com/spf13/cobra"

	"github.com/fworker/fworker/drain"
)

func getDrainStatusCmd(a *app) *cobra.Command {
	var (
		workerID string
		output   string
	)
	cmd := &cobra.Command{
		Use:   "get-drain-status",
		Short: "Show the status of a worker's drain",
		Long: `Show a drain's status (GET /admin/v2/worker/leader/drain?workerId=ID, or
without --worker-id GET /admin/v2/worker/drain for the worker at
--admin-url): Pulsar's status (NOT_RUN, RUNNING, SUCCESS, ERROR) and
lastError, plus fworker's progress fields (total, moved, remaining,
inFlight, deadline, reason, ...). A worker without a drain record answers
ERROR "Worker <id> not found in drain records", as Pulsar does.`,
		Example: `  fwadmin functions-worker get-drain-status --worker-id standalone-1
  fwadmin functions-worker get-drain-status --worker-id standalone-1 -o table`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			path, q := drainPath(workerID)
			var rec drain.Record
			body, err := c.api.get(cmd.Context(), path, q, &rec)
			if err != nil {
				return err
			}
			if output == outTable {
				return drainsTable(a.stdout, []drain.Record{rec})
			}
			return printRawJSON(a.stdout, body)
		},
	}
	workerIDFlag(a, cmd, &workerID, false, "worker whose drain to show (default: the worker at --admin-url)")
	outputFlag(cmd, &output, true)
	return cmd
}
