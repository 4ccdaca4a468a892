package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/cli"
)

//go:generate go run ./gen-docs -dir ..

// ManSection is one extra section of a man page: its title (EXIT STATUS,
// ENVIRONMENT, FILES) and its text, printed as it is. The man pages and
// completions are written by cmd/gen-docs, a program of its own: oc does
// not link the man page renderer (cobra/doc, go-md2man and blackfriday,
// whose package initialisation compiling regular expressions was 1.3 ms of
// every oc run).
type ManSection struct {
	Title, Text string
}

// ManSections are the extra sections of man page page ("oc", "oc-repair"):
// the root page has the exit codes, every variable and key, and the files;
// a command's page has its own keys and variables and the files.
func ManSections(root *cobra.Command, page string) []ManSection {
	if page == "oc" {
		return []ManSection{
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
	return []ManSection{
		{Title: "EXIT STATUS", Text: "0 ok, 1 findings in a check mode, 2 usage, 3 could not complete (oc help exit-codes)."},
		{Title: "ENVIRONMENT", Text: b.String()},
		{Title: "FILES", Text: filesHelp},
	}
}
