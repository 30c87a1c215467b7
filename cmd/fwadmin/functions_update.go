package main

import (
	"fmt"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
	"github.com/spf13/cobra"
)

func updateCmd(a *app) *cobra.Command {
	var (
		f              funcConfigFlags
		updateAuthData bool
	)
	cmd := &cobra.Command{
		Use:   "update",
		Short: "Update a function",
		Long: `Update a function (PUT /admin/v3/functions/{tenant}/{namespace}/{name}). Only
what is given changes: the worker keeps every other field, and the package
unless --go/--jar/--py is given.`,
		Example: `  fwadmin functions update --name sleeper --parallelism 2
  fwadmin functions update --fqfn public/default/sleeper --go ./sleeper-v2
  fwadmin functions update --name enrich --user-config '{"threshold": 3}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, pkg, err := f.build(cmd, false)
			if err != nil {
				return err
			}
			fns, err := a.functionsAPI()
			if err != nil {
				return err
			}
			var opts *utils.UpdateOptions
			if cmd.Flags().Changed("update-auth-data") {
				opts = &utils.UpdateOptions{UpdateAuthData: updateAuthData}
			}
			if isPackageURL(pkg) {
				err = fns.UpdateFunctionWithURLWithContext(cmd.Context(), cfg, pkg, opts)
			} else {
				err = fns.UpdateFunctionWithContext(cmd.Context(), cfg, pkg, opts)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Updated %s successfully\n", cfg.Name)
			return nil
		},
	}
	f.addFlags(cmd)
	cmd.Flags().BoolVar(&updateAuthData, "update-auth-data", false, "update the function's authentication data")
	return cmd
}
