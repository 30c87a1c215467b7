package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func deleteCmd(a *app) *cobra.Command {
	var n funcName
	cmd := &cobra.Command{
		Use:   "delete",
		Short: "Delete a function",
		Long: `Delete a function (DELETE /admin/v3/functions/{tenant}/{namespace}/{name}):
its instances stop and its package is removed.`,
		Example: `  fwadmin functions delete --name sleeper
  fwadmin functions delete --fqfn public/default/sleeper`,
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
			if err := fns.DeleteFunctionWithContext(cmd.Context(), t, ns, name); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Deleted %s successfully\n", name)
			return nil
		},
	}
	n.addFlags(cmd)
	return cmd
}
