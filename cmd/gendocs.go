package cmd

import (
	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/gendocs"
)

//go:generate go run .. gen-docs --dir ..

// newGenDocsCmd is the hidden `oc gen-docs` that writes man/ and completions/
// (restic's `generate`). `go generate ./cmd` runs it for the repository.
func newGenDocsCmd(g *Globals) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:    "gen-docs",
		Short:  "Write man pages and shell completions",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, _ := NewRootCmd(g.IO, g.env)
			return gendocs.Write(root, dir, cli.ExitCodesHelp)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", ".", "repository root: man/man1 and completions/ are written below it")
	return cmd
}
