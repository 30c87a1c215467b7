package main

import "github.com/spf13/cobra"

func getClusterLeaderCmd(a *app) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:     "get-cluster-leader",
		Short:   "Show the leader of the cluster",
		Long:    `Show the worker that leads the cluster (GET /admin/v2/worker/cluster/leader).`,
		Example: `  fwadmin functions-worker get-cluster-leader`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			l, err := c.v2.FunctionsWorker().GetClusterLeaderWithContext(cmd.Context())
			if err != nil {
				return err
			}
			return printJSON(a.stdout, l)
		},
	}
	outputFlag(cmd, &output, false)
	return cmd
}
