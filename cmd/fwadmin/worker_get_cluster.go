package main

import (
	"sort"
	"strconv"

	"github.com/spf13/cobra"
)

func getClusterCmd(a *app) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "get-cluster",
		Short: "List the workers of the cluster",
		Long: `List the current members of the cluster (GET /admin/v2/worker/cluster):
workerId, workerHostname and port of each. The table also marks the leader.`,
		Example: `  fwadmin functions-worker get-cluster
  fwadmin functions-worker get-cluster -o table`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			w := c.v2.FunctionsWorker()
			members, err := w.GetClusterWithContext(cmd.Context())
			if err != nil {
				return err
			}
			if output == outJSON {
				return printJSON(a.stdout, members)
			}
			leader := ""
			if l, err := w.GetClusterLeaderWithContext(cmd.Context()); err == nil {
				leader = l.WorkerID
			}
			sort.Slice(members, func(i, j int) bool { return members[i].WorkerID < members[j].WorkerID })
			rows := make([][]string, 0, len(members))
			for _, m := range members {
				mark := ""
				if m.WorkerID == leader {
					mark = "yes"
				}
				rows = append(rows, []string{m.WorkerID, m.WorkerHostname, strconv.Itoa(m.Port), mark})
			}
			return table(a.stdout, []string{"WORKER ID", "HOSTNAME", "PORT", "LEADER"}, rows)
		},
	}
	outputFlag(cmd, &output, true)
	return cmd
}
