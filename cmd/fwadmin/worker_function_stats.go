package main

import "github.com/spf13/cobra"

func functionStatsCmd(a *app) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "function-stats",
		Short: "Show the stats of every function instance on the answering worker",
		Long: `Show the per-instance stats the answering worker reports
(GET /admin/v2/worker-stats/functionsmetrics).`,
		Example: `  fwadmin functions-worker function-stats
  fwadmin --admin-url http://worker-2:6750 functions-worker function-stats`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			st, err := c.v2.FunctionsWorker().GetFunctionsStatsWithContext(cmd.Context())
			if err != nil {
				return err
			}
			return printJSON(a.stdout, st)
		},
	}
	outputFlag(cmd, &output, false)
	return cmd
}
