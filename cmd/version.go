package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/buildinfo"
)

func newVersionCmd(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print oc's version and the OpenClaw release it follows",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info := buildinfo.Read()
			if g.JSON {
				return writeJSON(g.IO, info)
			}
			_, err := fmt.Fprintln(g.IO.Out, info.String())
			return err
		},
	}
}
