package cmd

import (
	"fmt"
	"strings"

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
			return gendocs.Write(root, dir, func(page string) []gendocs.Section {
				return manSections(root, page)
			})
		},
	}
	cmd.Flags().StringVar(&dir, "dir", ".", "repository root: man/man1 and completions/ are written below it")
	return cmd
}

// manSections are the extra sections of a man page: the root page has the
// exit codes, every variable and key, and the files; a command's page has
// its own keys and variables and the files.
func manSections(root *cobra.Command, page string) []gendocs.Section {
	if page == "oc" {
		return []gendocs.Section{
			{Title: "EXIT STATUS", Text: cli.ExitCodesHelp},
			{Title: "ENVIRONMENT", Text: environmentHelp(root)},
			{Title: "FILES", Text: filesHelp},
		}
	}
	prefix := strings.TrimPrefix(strings.ReplaceAll(page, "-", "."), "oc.") + "."
	var b strings.Builder
	b.WriteString("Every flag can also be set by a variable or a config key (flags win, then\nvariables, then the config file; see oc help environment).\n\n")
	for _, k := range configKeys(root) {
		if strings.HasPrefix(k.Key, prefix) || !strings.Contains(k.Key, ".") {
			fmt.Fprintf(&b, "  %-28s %s\n", k.Env, k.Key)
		}
	}
	b.WriteString("\n  OC_CONFIG                    the config file (as --config)\n  OPENCLAW_STATE_DIR           the state dir when --state-dir and OC_STATE_DIR are unset\n  NO_COLOR, TERM=dumb          no colours")
	return []gendocs.Section{
		{Title: "EXIT STATUS", Text: "0 ok, 1 findings in a check mode, 2 usage, 3 could not complete (oc help exit-codes)."},
		{Title: "ENVIRONMENT", Text: b.String()},
		{Title: "FILES", Text: filesHelp},
	}
}
