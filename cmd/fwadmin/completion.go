package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func completionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print a completion script for the shell. Completion covers commands, flags,
--output values and, by asking the cluster, --worker-id values.`,
		Example: `  # bash, this shell only:
  source <(fwadmin completion bash)
  # bash, for good:
  fwadmin completion bash > /etc/bash_completion.d/fwadmin
  # zsh:
  fwadmin completion zsh > "${fpath[1]}/_fwadmin"
  # fish:
  fwadmin completion fish > ~/.config/fish/completions/fwadmin.fish`,
		Args:                  cobra.ExactArgs(1),
		ValidArgs:             []string{"bash", "zsh", "fish", "powershell"},
		DisableFlagsInUseLine: true,
		// No settings are needed to print a script.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, args []string) error {
			root, w := cmd.Root(), cmd.OutOrStdout()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(w, true)
			case "zsh":
				return root.GenZshCompletion(w)
			case "fish":
				return root.GenFishCompletion(w, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(w)
			}
			return fmt.Errorf("unknown shell %q: want bash, zsh, fish or powershell", args[0])
		},
	}
}
