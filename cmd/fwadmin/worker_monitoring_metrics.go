package main

import "github.com/spf13/cobra"

func monitoringMetricsCmd(a *app) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:     "monitoring-metrics",
		Short:   "Show the answering worker's metrics",
		Long:    `Show the worker's metrics (GET /admin/v2/worker-stats/metrics).`,
		Example: `  fwadmin functions-worker monitoring-metrics`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			m, err := c.v2.FunctionsWorker().GetMetricsWithContext(cmd.Context())
			if err != nil {
				return err
			}
			return printJSON(a.stdout, m)
		},
	}
	outputFlag(cmd, &output, false)
	return cmd
}
