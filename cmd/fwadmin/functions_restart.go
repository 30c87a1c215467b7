package main

import (
	"context"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/admin"
	"github.com/spf13/cobra"
)

func restartCmd(a *app) *cobra.Command {
	return controlCmd(a, control{
		verb: "restart", done: "Restarted",
		all: func(f admin.Functions, ctx context.Context, t, ns, name string) error {
			return f.RestartFunctionWithContext(ctx, t, ns, name)
		},
		one: func(f admin.Functions, ctx context.Context, t, ns, name string, id int) error {
			return f.RestartFunctionWithIDWithContext(ctx, t, ns, name, id)
		},
	}, "Restart a function, or one instance",
		`Restart a function's instances (POST .../{name}/restart), or one with
--instance-id (POST .../{name}/{instanceId}/restart).`,
		`  fwadmin functions restart --name sleeper
  fwadmin functions restart --name sleeper --instance-id 2`)
}
