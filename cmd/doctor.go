package cmd

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/cli"
)

func newDoctorCmd(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "(being built)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return cli.Incomplete(errors.New("doctor: not implemented yet"))
		},
	}
}
