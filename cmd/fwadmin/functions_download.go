package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func downloadCmd(a *app) *cobra.Command {
	var (
		n    funcName
		dest string
	)
	cmd := &cobra.Command{
		Use:   "download",
		Short: "Download a function's package",
		Long: `Download the package a function runs (GET /admin/v3/functions/{tenant}/{namespace}/{name}/download)
into --destination-file. An existing file is not overwritten.`,
		Example: `  fwadmin functions download --name sleeper --destination-file ./sleeper.bin`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, ns, name, err := n.resolve(true)
			if err != nil {
				return err
			}
			if _, err := os.Lstat(dest); err == nil {
				return fmt.Errorf("--destination-file %s already exists; delete it or choose another name", dest)
			} else if !errors.Is(err, os.ErrNotExist) {
				return err
			}
			fns, err := a.functionsAPI()
			if err != nil {
				return err
			}
			if err := fns.DownloadFunctionByNsWithContext(cmd.Context(), dest, t, ns, name); err != nil {
				_ = os.Remove(dest) // no half or empty file left behind
				return err
			}
			fmt.Fprintf(a.stdout, "Downloaded %s to %s successfully\n", name, dest)
			return nil
		},
	}
	n.addFlags(cmd)
	cmd.Flags().StringVar(&dest, "destination-file", "", "the file to write the package to (required)")
	_ = cmd.MarkFlagRequired("destination-file")
	return cmd
}
