package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func uncordonCmd(a *app) *cobra.Command {
	var workerID string
	cmd := &cobra.Command{
		Use:   "uncordon",
		Short: "Let the scheduler place instances on a cordoned worker again",
		Long: `Uncordon a worker (DELETE /admin/v2/worker/leader/cordon?workerId=ID, an
fworker extension).`,
		Example: `  fwadmin functions-worker uncordon --worker-id standalone-2`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := a.setCordon(cmd, workerID, false); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Uncordoned %s successfully\n", workerID)
			return nil
		},
	}
	workerIDFlag(a, cmd, &workerID, true, "worker to uncordon (required)")
	return cmd
}
