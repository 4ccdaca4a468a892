package cmd

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/cli"
)

func newReplayCmd(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use:   "replay",
		Short: "(being built)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return cli.Incomplete(errors.New("replay: not implemented yet"))
		},
	}
}
