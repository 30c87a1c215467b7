package main

import (
	"context"
	"fmt"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/admin"
	"github.com/spf13/cobra"
)

// control is one of start, stop and restart.
type control struct {
	verb, done string
	all        func(f admin.Functions, ctx context.Context, t, ns, name string) error
	one        func(f admin.Functions, ctx context.Context, t, ns, name string, id int) error
}

// controlCmd builds start, stop or restart.
func controlCmd(a *app, c control, short, long, example string) *cobra.Command {
	var (
		n        funcName
		instance int
	)
	cmd := &cobra.Command{
		Use:     c.verb,
		Short:   short,
		Long:    long,
		Example: example,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fns, t, ns, name, err := a.target(cmd, &n, instance)
			if err != nil {
				return err
			}
			if instance >= 0 {
				if err := c.one(fns, cmd.Context(), t, ns, name, instance); err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "%s instanceID[%d] of Pulsar Functions[%s] successfully\n", c.done, instance, name)
				return nil
			}
			if err := c.all(fns, cmd.Context(), t, ns, name); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s %s successfully\n", c.done, name)
			return nil
		},
	}
	n.addFlags(cmd)
	instanceFlag(cmd, &instance, "the instance to "+c.verb)
	return cmd
}
