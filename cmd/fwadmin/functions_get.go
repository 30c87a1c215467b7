package main

import "github.com/spf13/cobra"

func getCmd(a *app) *cobra.Command {
	var (
		n      funcName
		output string
	)
	cmd := &cobra.Command{
		Use:   "get",
		Short: "Show a function's config",
		Long:  `Show a function's config (GET /admin/v3/functions/{tenant}/{namespace}/{name}).`,
		Example: `  fwadmin functions get --name sleeper
  fwadmin functions get --fqfn public/default/sleeper`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, ns, name, err := n.resolve(true)
			if err != nil {
				return err
			}
			fns, err := a.functionsAPI()
			if err != nil {
				return err
			}
			cfg, err := fns.GetFunctionWithContext(cmd.Context(), t, ns, name)
			if err != nil {
				return err
			}
			return printJSON(a.stdout, cfg)
		},
	}
	n.addFlags(cmd)
	outputFlag(cmd, &output, false)
	return cmd
}
