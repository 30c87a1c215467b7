package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func createCmd(a *app) *cobra.Command {
	var f funcConfigFlags
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create a function",
		Long: `Create a function (POST /admin/v3/functions/{tenant}/{namespace}/{name}). A
local --go/--jar/--py file is uploaded; a URL (http://, https://, file:) is
fetched by the worker. --function-config-file gives the whole config in
YAML; flags override it. Defaults as in pulsar-admin: tenant "public",
namespace "default", parallelism 1, autoAck and cleanupSubscription on.`,
		Example: `  fwadmin functions create --name sleeper --go ./sleeper --parallelism 4
  fwadmin functions create --tenant acme --namespace etl --name enrich \
    --jar ./enrich.jar --classname com.acme.Enrich -i persistent://acme/etl/in -o persistent://acme/etl/out
  fwadmin functions create --function-config-file f1.yaml --go https://repo.example/f1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, pkg, err := f.build(cmd, true)
			if err != nil {
				return err
			}
			fns, err := a.functionsAPI()
			if err != nil {
				return err
			}
			if isPackageURL(pkg) {
				err = fns.CreateFuncWithURLWithContext(cmd.Context(), cfg, pkg)
			} else {
				err = fns.CreateFuncWithContext(cmd.Context(), cfg, pkg)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Created %s successfully\n", cfg.Name)
			return nil
		},
	}
	f.addFlags(cmd)
	return cmd
}
