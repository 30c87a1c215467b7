// Command fworker runs Pulsar Functions workers: `fworker standalone` runs a
// whole cluster of workers in one process, on a local state file.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

var version = "dev"

func main() {
	root := &cobra.Command{
		Use:           "fworker",
		Short:         "A Go control plane for Apache Pulsar Functions workers",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
	}
	root.AddCommand(standaloneCmd(), runCmd())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "fworker:", err)
		os.Exit(1)
	}
}
