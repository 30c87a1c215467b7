package main

import (
	"fmt"
	"net/http"

	"github.com/spf13/cobra"
)

func rebalanceCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "rebalance",
		Short: "Ask the leader to spread the instances evenly again",
		Long: `Trigger a rebalance (PUT /admin/v2/worker/rebalance). A non-leader redirects
to the leader. Fails with "Rebalance already in progress" or "Too few
workers" as Pulsar does.`,
		Example: `  fwadmin functions-worker rebalance`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			if _, err := c.api.do(cmd.Context(), http.MethodPut, pathRebalance, nil); err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, "Rebalance command sent successfully")
			return nil
		},
	}
}
