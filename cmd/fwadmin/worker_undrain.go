package main

import (
	"fmt"
	"net/http"

	"github.com/spf13/cobra"
)

func undrainCmd(a *app) *cobra.Command {
	var workerID string
	cmd := &cobra.Command{
		Use:   "undrain",
		Short: "Forget a worker's drain and make it schedulable again",
		Long: `Remove a worker's drain record (DELETE /admin/v2/worker/leader/drain?workerId=ID,
an fworker extension). A running drain stops: moves not yet confirmed are
cancelled, finished ones stay. The worker takes new instances again, and a
new drain of it is allowed (Pulsar's "was not yet removed after a prior
drain op" no longer applies).`,
		Example: `  fwadmin functions-worker undrain --worker-id standalone-1`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			path, q := drainPath(workerID)
			if _, err := c.api.do(cmd.Context(), http.MethodDelete, path, q); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Undrained %s successfully\n", workerID)
			return nil
		},
	}
	workerIDFlag(a, cmd, &workerID, true, "worker to undrain (required)")
	return cmd
}
