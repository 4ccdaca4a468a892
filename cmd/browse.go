package cmd

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/browse"
	"github.com/openclaw-tools/oc/pkg/catalog"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

type browseOptions struct {
	Agent, Since string
	Archived     bool
}

func newBrowseCmd(g *Globals) *cobra.Command {
	opts := &browseOptions{}
	cmd := &cobra.Command{
		Use:   "browse",
		Short: "Browse the sessions of an install in a full-screen terminal view",
		Long: `A full-screen, read-only browser of the state dir's sessions, of either era:
the sessions on the left (/ filters them), the selected conversation in the
middle (oc show's rendering), its branch tree, branches and findings (as oc
inspect reports them) on the right.

Keys: tab switches between the sessions and the conversation; enter opens a
session; in the conversation, arrows, pgup/pgdn scroll, / searches and n/N
go to the next/previous match, b/B show the next/previous branch, t folds or
unfolds tool arguments and results, h shows or hides thinking, f/F jump to
the next/previous finding, r opens the replay view (the stored context
beside what a provider is sent for it, each changed message with the rules
that changed it; p picks the next provider, esc goes back); q or Ctrl-C
quits and restores the terminal.

It needs a terminal (80x24 is enough); oc show and oc grep read sessions in
scripts. Databases are opened read-only.`,
		Example: `  oc browse
  oc browse --agent main --since 7d
  oc browse --archived --state-dir ./backup-state`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBrowse(cmd, g, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Agent, "agent", "", "only the sessions of agent ID")
	f.StringVar(&opts.Since, "since", "", "only sessions active since DURATION ago (90m, 36h, 7d) or since DATE")
	f.BoolVar(&opts.Archived, "archived", false, "also list archived transcripts and archived generations")
	_ = cmd.RegisterFlagCompletionFunc("agent", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return g.agentIDs(), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func runBrowse(cmd *cobra.Command, g *Globals, opts *browseOptions) error {
	since, err := transcript.ParseSince(opts.Since, time.Now())
	if err != nil {
		return cli.Usagef("--since %q: %v", opts.Since, err)
	}
	if !g.IO.IsStdoutTTY() {
		return cli.Usagef("browse needs a terminal (oc show SESSION and oc grep PATTERN read sessions in scripts)")
	}
	st, sessions, err := catalog.Select(cmd.Context(), g.ResolvedStateDir(), "", catalog.Filter{Agent: opts.Agent, Since: since, Archived: opts.Archived})
	if err != nil {
		return cli.Incomplete(err)
	}
	warnSkippedIndexes(g, st)
	m := browse.New(cmd.Context(), st, sessions, st.Root, g.IO.Styles(), g.IO.ColorEnabled())
	defer m.Close()
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(cmd.Context()), tea.WithInput(g.IO.In), tea.WithOutput(g.IO.Out))
	_, err = p.Run()
	switch {
	case cmd.Context().Err() != nil:
		return cli.Incomplete(cmd.Context().Err()) // a signal: exit 3, as every command
	case err != nil:
		return cli.Incomplete(err)
	}
	return nil
}
