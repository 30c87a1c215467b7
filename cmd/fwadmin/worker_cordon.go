package main

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/spf13/cobra"
)

func cordonCmd(a *app) *cobra.Command {
	var workerID string
	cmd := &cobra.Command{
		Use:   "cordon",
		Short: "Keep new instances off a worker without moving what it runs",
		Long: `Cordon a worker (PUT /admin/v2/worker/leader/cordon?workerId=ID, an fworker
extension): the scheduler places no new instance there; what runs there
stays. Cordon first, then drain, to keep a worker empty for maintenance.`,
		Example: `  fwadmin functions-worker cordon --worker-id standalone-2`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := a.setCordon(cmd, workerID, true); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Cordoned %s successfully\n", workerID)
			return nil
		},
	}
	workerIDFlag(a, cmd, &workerID, true, "worker to cordon (required)")
	return cmd
}

// setCordon cordons (PUT) or uncordons (DELETE) a worker.
func (a *app) setCordon(cmd *cobra.Command, workerID string, on bool) error {
	c, err := a.client()
	if err != nil {
		return err
	}
	method := http.MethodPut
	if !on {
		method = http.MethodDelete
	}
	_, err = c.api.do(cmd.Context(), method, pathCordon, url.Values{"workerId": {workerID}})
	return err
}
