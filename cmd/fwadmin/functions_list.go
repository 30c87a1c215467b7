package main

import (
	"sort"

	"github.com/spf13/cobra"
)

func listCmd(a *app) *cobra.Command {
	var (
		n      funcName
		output string
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the functions of a namespace",
		Long:  `List the names of a namespace's functions (GET /admin/v3/functions/{tenant}/{namespace}).`,
		Example: `  fwadmin functions list
  fwadmin functions list --tenant acme --namespace etl -o table`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, ns, _, err := funcName{tenant: n.tenant, namespace: n.namespace}.resolve(false)
			if err != nil {
				return err
			}
			fns, err := a.functionsAPI()
			if err != nil {
				return err
			}
			names, err := fns.GetFunctionsWithContext(cmd.Context(), t, ns)
			if err != nil {
				return err
			}
			if names == nil {
				names = []string{}
			}
			if output == outJSON {
				return printJSON(a.stdout, names)
			}
			sort.Strings(names)
			rows := make([][]string, 0, len(names))
			for _, name := range names {
				rows = append(rows, []string{t, ns, name})
			}
			return table(a.stdout, []string{"TENANT", "NAMESPACE", "NAME"}, rows)
		},
	}
	cmd.Flags().StringVar(&n.tenant, "tenant", "", `the tenant (default "public")`)
	cmd.Flags().StringVar(&n.namespace, "namespace", "", `the namespace (default "default")`)
	outputFlag(cmd, &output, true)
	return cmd
}
