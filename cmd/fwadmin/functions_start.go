package main

import (
	"context"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/admin"
	"github.com/spf13/cobra"
)

func startCmd(a *app) *cobra.Command {
	return controlCmd(a, control{
		verb: "start", done: "Started",
		all: func(f admin.Functions, ctx context.Context, t, ns, name string) error {
			return f.StartFunctionWithContext(ctx, t, ns, name)
		},
		one: func(f admin.Functions, ctx context.Context, t, ns, name string, id int) error {
			return f.StartFunctionWithIDWithContext(ctx, t, ns, name, id)
		},
	}, "Start a stopped function, or one instance",
		`Start a function's stopped instances (POST .../{name}/start), or one with
--instance-id (POST .../{name}/{instanceId}/start).`,
		`  fwadmin functions start --name sleeper
  fwadmin functions start --name sleeper --instance-id 1`)
}
