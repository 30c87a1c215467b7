package main

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/fworker/fworker/drain"
)

func listDrainsCmd(a *app) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "list-drains",
		Short: "List every drain the leader holds",
		Long: `List the drain records the leader holds (GET /admin/v2/worker/drains, an
fworker extension): running drains and finished ones whose worker is still
a member (or left less than drainRecordRetentionSec ago).`,
		Example: `  fwadmin functions-worker list-drains
  fwadmin functions-worker list-drains -o table`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			var recs []drain.Record
			body, err := c.api.get(cmd.Context(), pathDrains, nil, &recs)
			if err != nil {
				return err
			}
			if output == outTable {
				return drainsTable(a.stdout, recs)
			}
			return printRawJSON(a.stdout, body)
		},
	}
	outputFlag(cmd, &output, true)
	return cmd
}

// drainsTable prints drain records, one per line.
func drainsTable(w io.Writer, recs []drain.Record) error {
	rows := make([][]string, 0, len(recs))
	for _, r := range recs {
		rows = append(rows, []string{
			r.Worker, string(r.Status),
			fmt.Sprintf("%d/%d", r.Moved, r.Total), strconv.Itoa(r.Remaining), strconv.Itoa(r.InFlight),
			since(r.StartedAt), clock(r.Deadline), r.Reason, r.LastError,
		})
	}
	return table(w, []string{"WORKER ID", "STATUS", "MOVED", "REMAINING", "IN FLIGHT", "STARTED", "DEADLINE", "REASON", "LAST ERROR"}, rows)
}

// since is a start time as an age: "2m3s ago".
func since(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return time.Since(t).Round(time.Second).String() + " ago"
}

func clock(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format(time.RFC3339)
}
