package cmd

import (
	"errors"
	"io"
	"regexp"

	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/catalog"
	"github.com/openclaw-tools/oc/pkg/conversation"
	"github.com/openclaw-tools/oc/pkg/render"
	"github.com/openclaw-tools/oc/pkg/show"
	"github.com/openclaw-tools/oc/pkg/store"
)

type showOptions struct {
	Format   string
	Branch   string
	All      bool
	From, To string
	Grep     string
	Full     bool
	Thinking bool
	NoPager  bool
}

func newShowCmd(g *Globals) *cobra.Command {
	opts := &showOptions{}
	cmd := &cobra.Command{
		Use:   "show SESSION",
		Short: "Read a conversation: messages, tool calls and results, summaries (either era)",
		Long: `Show one session as a conversation: the active branch in order, each message
with its role and time (and model for assistant turns), text as written, tool
calls with their arguments and their results under them (folded to a few
lines; --full shows all), thinking folded (--thinking shows it), images as a
placeholder with type, size and dimensions, compaction and branch summaries
and custom messages marked as such, model changes and failed turns
(stopReason "error") as notes.

SESSION is a transcript path ("-" for stdin; .gz and .zst are read), a
session key, a session id or a unique prefix of one, an archived original
(.reset/.deleted/.imported-* file) or an archived generation as
SESSIONID@GENERATION, in a state dir of either era. The active branch is
chosen by the rules of the session's era: OpenClaw 2026.5.6's for a JSONL
transcript, 2026.9.6's for a SQLite session and an archived generation.

--branch LEAF shows the branch ending at another entry (an entry id or a line
number; oc browse lists the leaves); --all shows every line in file order
with the fork points and the active branch marked; --from and --to bound the
entries shown, by entry id or line number. --grep TEXT highlights TEXT
(case-insensitive).

--format text (default; styled on a terminal, plain when piped), markdown
(for tickets and wikis: a heading naming the session, tool output in fences
their content cannot close), html (one self-contained file: inline CSS, no
script, no external request) or json (--json: {"session", "messages", "count"},
the messages in order with every text whole). Everything read from the
session is untrusted: control characters are shown as escapes in every
format, HTML is escaped.

On a terminal the output goes through $PAGER (default "less -R", with
LESS=FRX unless LESS is set), as git does; --no-pager or a pipe turns it off.
The session is streamed: a first pass keeps each entry's id, parent and
offset, a second reads the shown entries one at a time, so a transcript of
any size starts printing after one read and is never held in memory. A
SQLite session, an archived generation and a compressed file are copied to a
private temporary file first, removed at the end. Databases are opened
read-only.`,
		Example: `  oc show agent:main:main
  oc show 0197d2a4 --full --thinking
  oc show ~/.openclaw/agents/main/sessions/0197d2a4.jsonl --all
  oc show agent:main:main --format markdown > ticket.md
  oc show agent:main:main --format html > session.html
  oc show agent:main:main --json | jq -r '.messages[] | select(.role=="user") | .content[0].text'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cli.Usagef("show needs exactly one SESSION")
			}
			if opts.All && opts.Branch != "" {
				return cli.Usagef("--all and --branch cannot be used together")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runShow(cmd, g, opts, args[0])
		},
	}
	cmd.ValidArgsFunction = g.completeSessions
	f := cmd.Flags()
	f.StringVar(&opts.Format, "format", "text", "output format: text, markdown, html or json")
	f.StringVar(&opts.Branch, "branch", "", "show the branch ending at LEAF (an entry id or a line number)")
	f.BoolVar(&opts.All, "all", false, "show every entry in file order, fork points marked")
	f.StringVar(&opts.From, "from", "", "start at this entry (an entry id or a line number)")
	f.StringVar(&opts.To, "to", "", "end at this entry (an entry id or a line number)")
	f.StringVar(&opts.Grep, "grep", "", "highlight TEXT (case-insensitive)")
	f.BoolVar(&opts.Full, "full", false, "show tool arguments, results and long texts whole (not folded)")
	f.BoolVar(&opts.Thinking, "thinking", false, "show thinking blocks (folded to one line otherwise)")
	f.BoolVar(&opts.NoPager, "no-pager", false, "never page the output")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(show.Formats(), cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// gcLimitShow is show's memory budget (see tuneGCForStreaming): its
// skeleton is 24 bytes an entry and its rendering streams, so that a
// transcript of 1 GiB (1.7 million entries) stays under it.
const gcLimitShow = 64 << 20

func runShow(cmd *cobra.Command, g *Globals, opts *showOptions, arg string) error {
	format := opts.Format
	if g.JSON {
		format = "json"
	}
	if _, err := show.NewRenderer(format, io.Discard, nil, render.Options{}); err != nil {
		return cli.Usagef("--format: %v", err)
	}
	g.tuneGCForStreaming(gcLimitShow)
	st, err := store.Open(g.ResolvedStateDir(), store.Options{})
	if err != nil {
		return cli.Incomplete(err)
	}
	warnSkippedIndexes(g, st)
	ses, err := catalog.Resolve(cmd.Context(), st, arg)
	if err != nil {
		return sessionError(err)
	}
	o := show.Options{
		Format:    format,
		Selection: conversation.Selection{Branch: opts.Branch, All: opts.All, From: opts.From, To: opts.To},
		Render:    render.Options{Full: opts.Full, Thinking: opts.Thinking, Color: g.IO.ColorEnabled()},
		Styles:    g.IO.Styles(),
		Stdin:     g.IO.In,
	}
	if opts.Grep != "" {
		o.Render.Highlight = regexp.MustCompile("(?i)" + regexp.QuoteMeta(opts.Grep))
	}
	out, done := g.pagedOutput(opts.NoPager)
	err = show.Write(cmd.Context(), st, ses, out, o)
	if perr := done(); err == nil && perr != nil {
		err = perr
	}
	switch {
	case err == nil || cli.IsClosedPipe(err):
		return nil
	case errors.Is(err, conversation.ErrNoSuchEntry):
		return cli.Exit(cli.ExitUsage, err)
	}
	return cli.Incomplete(err)
}

// sessionError is the exit of a SESSION that does not resolve: a usage
// error when it is ambiguous, else could not complete.
func sessionError(err error) error {
	var amb *store.AmbiguousError
	if errors.As(err, &amb) {
		return cli.Exit(cli.ExitUsage, err)
	}
	return cli.Incomplete(err)
}

// pagedOutput is stdout, through $PAGER when stdout is a terminal (and
// neither noPager nor --json asks otherwise). done closes the pager and
// waits for the reader to quit it.
func (g *Globals) pagedOutput(noPager bool) (out io.Writer, done func() error) {
	if noPager || !g.IO.IsStdoutTTY() {
		return g.IO.Out, func() error { return nil }
	}
	p, err := cli.StartPager(g.env, g.IO.Out, g.IO.ErrOut)
	if err != nil || p == nil {
		return g.IO.Out, func() error { return nil }
	}
	return p, func() error {
		_ = p.Close() // the pager's own exit status is the reader's business
		return nil
	}
}
