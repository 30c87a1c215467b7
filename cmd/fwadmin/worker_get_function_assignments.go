package main

import (
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

func getAssignmentsCmd(a *app) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "get-function-assignments",
		Short: "Show which worker runs which function instance",
		Long: `Show the assignments as the answering worker sees them
(GET /admin/v2/worker/assignments): worker id -> fully qualified instance ids
(tenant/namespace/name:index).`,
		Example: `  fwadmin functions-worker get-function-assignments
  fwadmin functions-worker get-function-assignments -o table`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			as, err := c.v2.FunctionsWorker().GetAssignmentsWithContext(cmd.Context())
			if err != nil {
				return err
			}
			if output == outJSON {
				return printJSON(a.stdout, as)
			}
			workers := make([]string, 0, len(as))
			for w := range as {
				workers = append(workers, w)
			}
			sort.Strings(workers)
			rows := make([][]string, 0, len(workers))
			for _, w := range workers {
				ids := append([]string(nil), as[w]...)
				sort.Strings(ids)
				rows = append(rows, []string{w, strconv.Itoa(len(ids)), strings.Join(ids, ",")})
			}
			return table(a.stdout, []string{"WORKER ID", "INSTANCES", "ASSIGNED"}, rows)
		},
	}
	outputFlag(cmd, &output, true)
	return cmd
}
