package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/admin"
	"github.com/spf13/cobra"
)

// Pulsar's defaults for a function's tenant and namespace.
const (
	defaultTenant    = "public"
	defaultNamespace = "default"
)

func functionsCmd(a *app) *cobra.Command {
	cmd := group("functions", "Create, inspect and control functions",
		`Pulsar's functions commands, through the v3 API (/admin/v3/functions), with
pulsar-admin's flag names and defaults (tenant "public", namespace
"default"). A function is named by --tenant/--namespace/--name or by
--fqfn tenant/namespace/name.`,
		`  fwadmin functions create --name f1 --go ./f1 --parallelism 4
  fwadmin functions status --name f1 -o table
  fwadmin functions delete --fqfn public/default/f1`)
	cmd.AddCommand(
		createCmd(a), updateCmd(a), deleteCmd(a), listCmd(a), getCmd(a),
		statusCmd(a), statsCmd(a), startCmd(a), stopCmd(a), restartCmd(a), downloadCmd(a),
	)
	return cmd
}

// funcName holds the naming flags of a function.
type funcName struct {
	tenant, namespace, name, fqfn string
}

func (n *funcName) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&n.tenant, "tenant", "", `the function's tenant (default "public")`)
	fl.StringVar(&n.namespace, "namespace", "", `the function's namespace (default "default")`)
	fl.StringVar(&n.name, "name", "", "the function's name")
	fl.StringVar(&n.fqfn, "fqfn", "", "the Fully Qualified Function Name (FQFN): tenant/namespace/name")
}

// resolve returns tenant, namespace and name; needName: a name is
// required (every command but list).
func (n funcName) resolve(needName bool) (string, string, string, error) {
	if n.fqfn != "" {
		if n.tenant != "" || n.namespace != "" || n.name != "" {
			return "", "", "", errors.New("give either --fqfn or --tenant/--namespace/--name, not both")
		}
		parts := strings.Split(n.fqfn, "/")
		if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
			return "", "", "", fmt.Errorf("--fqfn %q: fully qualified function names (FQFNs) must be of the form tenant/namespace/name", n.fqfn)
		}
		return parts[0], parts[1], parts[2], nil
	}
	t, ns := n.tenant, n.namespace
	if t == "" {
		t = defaultTenant
	}
	if ns == "" {
		ns = defaultNamespace
	}
	if needName && n.name == "" {
		return "", "", "", errors.New("you must specify a name for the function or a Fully Qualified Function Name (FQFN): --name or --fqfn")
	}
	return t, ns, n.name, nil
}

// functionsAPI is the v3 functions client.
func (a *app) functionsAPI() (admin.Functions, error) {
	c, err := a.client()
	if err != nil {
		return nil, err
	}
	return c.v3.Functions(), nil
}

// instanceFlag adds --instance-id; -1 means every instance.
func instanceFlag(cmd *cobra.Command, dst *int, what string) {
	cmd.Flags().IntVar(dst, "instance-id", -1, what+" (default: all instances)")
}

// target resolves the function's name, checks --instance-id (-1: the whole
// function) and opens the v3 client: the common start of every command that
// addresses a function or one of its instances.
func (a *app) target(cmd *cobra.Command, n *funcName, instance int) (admin.Functions, string, string, string, error) {
	t, ns, name, err := n.resolve(true)
	if err != nil {
		return nil, "", "", "", err
	}
	if err := checkInstance(cmd, instance); err != nil {
		return nil, "", "", "", err
	}
	fns, err := a.functionsAPI()
	return fns, t, ns, name, err
}
