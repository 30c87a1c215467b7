// Command fwadmin administers fworker (and Pulsar) Functions workers over
// their REST API, the way pulsar-admin does: `fwadmin functions-worker ...`
// for the cluster and drains, `fwadmin functions ...` for functions.
//
// Exit codes: 0 success, 1 any error (the server's reason is printed to
// stderr), 2 `drain --wait` gave up at --timeout while the drain goes on.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/rest"
	"github.com/spf13/cobra"
)

var version = "dev"

// Exit codes.
const (
	exitOK      = 0
	exitError   = 1
	exitTimeout = 2
)

// exitCodeError ends the command with a given exit code; err (may be nil)
// is printed first.
type exitCodeError struct {
	code int
	err  error
}

func (e *exitCodeError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit code %d", e.code)
	}
	return e.err.Error()
}

func (e *exitCodeError) Unwrap() error { return e.err }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a := &app{stdout: stdout, stderr: stderr}
	root := newRoot(a)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := exitError
	if ec, ok := errors.AsType[*exitCodeError](err); ok {
		code = ec.code
		err = ec.err
	}
	if err != nil {
		printError(stderr, err)
	}
	return code
}

// printError prints err as pulsarctl does: the server's status code and
// the reason from its {"reason": ...} body, or the plain message.
func printError(w io.Writer, err error) {
	if re, ok := errors.AsType[rest.Error](err); ok {
		fmt.Fprintf(w, "[✖]  code: %d reason: %s\n", re.Code, re.Reason)
		return
	}
	if re, ok := errors.AsType[*rest.Error](err); ok {
		fmt.Fprintf(w, "[✖]  code: %d reason: %s\n", re.Code, re.Reason)
		return
	}
	fmt.Fprintf(w, "[✖]  %v\n", err)
}

func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "fwadmin",
		Short: "Administer Pulsar Functions workers (fworker or Pulsar)",
		Long: `fwadmin talks to a Functions Worker's REST API like pulsar-admin does.

Settings come from flags, then the environment (FWADMIN_ADMIN_URL,
FWADMIN_AUTH_TOKEN, FWADMIN_AUTH_TOKEN_FILE, FWADMIN_TLS_TRUST_CERT_PATH,
FWADMIN_TLS_ALLOW_INSECURE, ...), then a YAML config file (--config, or
~/.config/fwadmin/config.yaml if present) with the flag names as keys:

  admin-url: https://worker-1:6751
  auth-token-file: /etc/fwadmin/token
  tls-trust-cert-path: /etc/fwadmin/ca.pem

Exit codes: 0 success, 1 error (the server's reason goes to stderr),
2 "drain --wait" stopped waiting at --timeout.`,
		Example: `  fwadmin functions-worker get-cluster -o table
  fwadmin --admin-url http://worker-2:6750 functions-worker drain --worker-id w-1 --wait
  fwadmin functions create --name f1 --go ./f1 --parallelism 4
  FWADMIN_ADMIN_URL=http://worker-1:6750 fwadmin functions list`,
		SilenceUsage:      true,
		SilenceErrors:     true,
		Version:           version,
		Args:              cobra.NoArgs,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return a.load(cmd) },
	}
	a.addFlags(root.PersistentFlags())
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath())
	})
	root.AddCommand(workerCmd(a), functionsCmd(a), completionCmd())
	return root
}

// group makes a parent command: help without a subcommand, an error (exit
// 1) for an unknown one.
func group(use, short, long, example string, aliases ...string) *cobra.Command {
	return &cobra.Command{
		Use:     use,
		Aliases: aliases,
		Short:   short,
		Long:    long,
		Example: example,
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unknown command %q for %q\nRun '%s --help' for usage.", args[0], cmd.CommandPath(), cmd.CommandPath())
			}
			return cmd.Help()
		},
	}
}
