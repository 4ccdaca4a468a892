package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/buildinfo"
)

func newVersionCmd(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print oc's version and the OpenClaw releases it follows (2026.5.6, 2026.9.6)",
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

// versionText is what --version prints: `oc version`'s line, or its JSON
// document with --json.
func versionText(c *cobra.Command) string {
	info := buildinfo.Read()
	if f := c.Root().PersistentFlags().Lookup("json"); f != nil && f.Value.String() == "true" {
		b, err := json.MarshalIndent(info, "", "  ")
		if err == nil {
			return string(b) + "\n"
		}
	}
	return info.String() + "\n"
}
