package cmd

import (
	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/cli"
)

// Help topics have no Run: cobra lists them under "Additional help topics"
// and `oc help <topic>` prints their text.

func newExitCodesTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "The exit codes every oc command uses",
		Long:  cli.ExitCodesHelp,
	}
}
