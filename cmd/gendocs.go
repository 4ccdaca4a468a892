package cmd

import (
	"github.com/spf13/cobra"
)

func newGenDocsCmd(g *Globals) *cobra.Command {
	return &cobra.Command{Use: "gen-docs", Hidden: true, RunE: func(*cobra.Command, []string) error { return nil }}
}
