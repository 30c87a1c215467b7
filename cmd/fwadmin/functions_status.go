package main

import (
	"errors"
	"sort"
	"strconv"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
	"github.com/spf13/cobra"
)

func statusCmd(a *app) *cobra.Command {
	var (
		n        funcName
		instance int
		output   string
	)
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show whether a function's instances run, and where",
		Long: `Show a function's status (GET /admin/v3/functions/{tenant}/{namespace}/{name}/status),
or one instance's with --instance-id: running, error, restarts, counters and
the worker it runs on.`,
		Example: `  fwadmin functions status --name sleeper
  fwadmin functions status --name sleeper -o table
  fwadmin functions status --fqfn public/default/sleeper --instance-id 0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fns, t, ns, name, err := a.target(cmd, &n, instance)
			if err != nil {
				return err
			}
			var st utils.FunctionStatus
			if instance >= 0 {
				one, err := fns.GetFunctionStatusWithInstanceIDWithContext(cmd.Context(), t, ns, name, instance)
				if err != nil {
					return err
				}
				if output == outJSON {
					return printJSON(a.stdout, one)
				}
				st.Instances = []utils.FunctionInstanceStatus{{InstanceID: instance, Status: one}}
			} else {
				if st, err = fns.GetFunctionStatusWithContext(cmd.Context(), t, ns, name); err != nil {
					return err
				}
				if output == outJSON {
					return printJSON(a.stdout, st)
				}
			}
			return statusTable(a, st)
		},
	}
	n.addFlags(cmd)
	instanceFlag(cmd, &instance, "the instance to show")
	outputFlag(cmd, &output, true)
	return cmd
}

func statusTable(a *app, st utils.FunctionStatus) error {
	sort.Slice(st.Instances, func(i, j int) bool { return st.Instances[i].InstanceID < st.Instances[j].InstanceID })
	rows := make([][]string, 0, len(st.Instances))
	for _, in := range st.Instances {
		s := in.Status
		rows = append(rows, []string{
			strconv.Itoa(in.InstanceID), strconv.FormatBool(s.Running), s.WorkerID,
			strconv.FormatInt(s.NumRestarts, 10), strconv.FormatInt(s.NumReceived, 10),
			strconv.FormatInt(s.NumSuccessfullyProcessed, 10),
			strconv.FormatInt(s.NumUserExceptions+s.NumSystemExceptions, 10), s.Err,
		})
	}
	return table(a.stdout, []string{"INSTANCE", "RUNNING", "WORKER ID", "RESTARTS", "RECEIVED", "PROCESSED", "EXCEPTIONS", "ERROR"}, rows)
}

// checkInstance rejects an --instance-id below 0 given explicitly.
func checkInstance(cmd *cobra.Command, instance int) error {
	if cmd.Flags().Changed("instance-id") && instance < 0 {
		return errors.New("--instance-id must be 0 or more")
	}
	return nil
}
