package main

import "github.com/spf13/cobra"

func statsCmd(a *app) *cobra.Command {
	var (
		n        funcName
		instance int
		output   string
	)
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Show a function's processing stats",
		Long: `Show a function's stats (GET /admin/v3/functions/{tenant}/{namespace}/{name}/stats),
or one instance's with --instance-id.`,
		Example: `  fwadmin functions stats --name sleeper
  fwadmin functions stats --name sleeper --instance-id 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fns, t, ns, name, err := a.target(cmd, &n, instance)
			if err != nil {
				return err
			}
			if instance >= 0 {
				st, err := fns.GetFunctionStatsWithInstanceIDWithContext(cmd.Context(), t, ns, name, instance)
				if err != nil {
					return err
				}
				return printJSON(a.stdout, st)
			}
			st, err := fns.GetFunctionStatsWithContext(cmd.Context(), t, ns, name)
			if err != nil {
				return err
			}
			return printJSON(a.stdout, st)
		},
	}
	n.addFlags(cmd)
	instanceFlag(cmd, &instance, "the instance to show")
	outputFlag(cmd, &output, false)
	return cmd
}
