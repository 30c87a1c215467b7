package main

import (
	"context"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/admin"
	"github.com/spf13/cobra"
)

func stopCmd(a *app) *cobra.Command {
	return controlCmd(a, control{
		verb: "stop", done: "Stopped",
		all: func(f admin.Functions, ctx context.Context, t, ns, name string) error {
			return f.StopFunctionWithContext(ctx, t, ns, name)
		},
		one: func(f admin.Functions, ctx context.Context, t, ns, name string, id int) error {
			return f.StopFunctionWithIDWithContext(ctx, t, ns, name, id)
		},
	}, "Stop a function, or one instance",
		`Stop a function's instances (POST .../{name}/stop), or one with --instance-id
(POST .../{name}/{instanceId}/stop). They stay assigned and stopped until
started again.`,
		`  fwadmin functions stop --name sleeper
  fwadmin functions stop --fqfn public/default/sleeper --instance-id 0`)
}
