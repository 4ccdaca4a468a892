package cmd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/catalog"
	"github.com/openclaw-tools/oc/pkg/search"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/transcript"
	"github.com/openclaw-tools/oc/pkg/vocab"
)

type grepOptions struct {
	Regexp, IgnoreCase, FilesOnly, Archived bool
	Context                                 int
	Agent, Since, Role, Tool, Model         string
}

func newGrepCmd(g *Globals) *cobra.Command {
	opts := &grepOptions{}
	cmd := &cobra.Command{
		Use:   "grep PATTERN [PATH]",
		Short: "Find the sessions whose messages say something (both eras, archives)",
		Long: `Search the messages of every session of the state dir (or of PATH: a state
dir, a sessions folder or a transcript) for PATTERN, a fixed string (-E: a
regular expression, RE2 syntax; -i: ignore case), in both storage eras and,
with --archived, in archived transcripts (.reset/.deleted/.bak files,
checkpoints, the originals 2026.9.6's import archived) and the deleted or
reset generations of session_transcript_archives.

It reads text, not JSON syntax: the decoded text of messages (text blocks,
thinking, tool call arguments' string values, tool results, compaction and
branch summaries, error messages) is matched line by line, so a match
inside an escaped JSON string is found and one in a key name is not.

Each matching line is printed as SESSION:LINE:ROLE: TEXT, where SESSION is
the session key (else its id, else its path) and LINE the entry's line in
the transcript (the row's position for a SQLite session, as oc show
--from/--to take it); -C N adds N lines of the same text before and after
(as SESSION-LINE-ROLE- TEXT, groups separated by --). -l prints the matching
sessions' names only. --json prints one document: {"matches": [...],
"sessions": [...], "searched": N, "errors": [...]}.

Filters: --agent ID and --since (sessions active since then), --role (user,
assistant, toolResult, custom, compaction, branchSummary), --tool NAME (the
arguments of NAME's calls and NAME's results), --model (a case-insensitive
part of provider/model: an assistant turn's own, else the last one before
the entry in the session).

Sessions are read in parallel; a row is decoded only when its raw bytes may
hold a match. Databases are opened read-only.

Exit status, as grep's: 0 when some session matched, 1 when none did, 2 for
a bad pattern or flag, 3 when a session could not be read (the others are
still searched and printed).`,
		Example: `  oc grep "rate limit"
  oc grep -i -C 2 'permission denied' --role toolResult
  oc grep -E 'rm -rf|git push --force' --tool exec --since 7d
  oc grep -l --model claude-opus invoice
  oc grep --archived --json token | jq -r '.matches[].session'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return cli.Usagef("grep needs PATTERN and at most one PATH")
			}
			if opts.Context < 0 {
				return cli.Usagef("-C %d: want 0 or more lines", opts.Context)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGrep(cmd, g, opts, args)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&opts.Regexp, "extended-regexp", "E", false, "PATTERN is a regular expression (RE2 syntax)")
	f.BoolVarP(&opts.IgnoreCase, "ignore-case", "i", false, "ignore case")
	f.IntVarP(&opts.Context, "context", "C", 0, "print N lines of the message's text around each match")
	f.BoolVarP(&opts.FilesOnly, "files-with-matches", "l", false, "print only the names of the sessions that match")
	f.BoolVar(&opts.Archived, "archived", false, "also search archived transcripts and archived generations")
	f.StringVar(&opts.Agent, "agent", "", "only the sessions of agent ID")
	f.StringVar(&opts.Since, "since", "", "only sessions active since DURATION ago (90m, 36h, 7d) or since DATE (2026-11-30, RFC 3339)")
	f.StringVar(&opts.Role, "role", "", "only messages of this role (user, assistant, toolResult, custom, compaction, branchSummary)")
	f.StringVar(&opts.Tool, "tool", "", "only the calls and results of tool NAME")
	f.StringVar(&opts.Model, "model", "", "only entries under a model whose provider/model contains this")
	_ = cmd.RegisterFlagCompletionFunc("agent", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return g.agentIDs(), cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("role", cobra.FixedCompletions([]string{vocab.RoleUser, vocab.RoleAssistant, vocab.RoleToolResult, vocab.RoleCustom, vocab.TypeCompaction, vocab.RoleBranchSummary}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runGrep(cmd *cobra.Command, g *Globals, opts *grepOptions, args []string) error {
	since, err := transcript.ParseSince(opts.Since, time.Now())
	if err != nil {
		return cli.Usagef("--since %q: %v", opts.Since, err)
	}
	q := search.Query{Pattern: args[0], Regexp: opts.Regexp, IgnoreCase: opts.IgnoreCase, Role: opts.Role, Tool: opts.Tool, Model: opts.Model}
	if _, err := search.Compile(q); err != nil {
		return cli.Usagef("%v", err)
	}
	path := ""
	if len(args) == 2 {
		path = args[1]
	}
	st, sessions, err := catalog.Select(cmd.Context(), g.ResolvedStateDir(), path, catalog.Filter{Agent: opts.Agent, Since: since, Archived: opts.Archived})
	if err != nil {
		return cli.Incomplete(err)
	}
	warnSkippedIndexes(g, st)
	out := bufio.NewWriterSize(g.IO.Out, 64<<10)
	var p grepPrinter = &grepText{w: out, st: g.IO.Styles(), color: g.IO.ColorEnabled(), filesOnly: opts.FilesOnly, context: opts.Context > 0}
	if g.JSON {
		p = &grepJSON{w: out, filesOnly: opts.FilesOnly}
	}
	matched, failed := 0, 0
	p.begin()
	err = search.Run(cmd.Context(), st, sessions, q, search.Options{Context: opts.Context, FirstOnly: opts.FilesOnly}, func(r search.Result) error {
		if r.Err != nil {
			failed++
			p.failed(r.Err)
			if !g.JSON {
				out.Flush()
				fmt.Fprintf(g.IO.ErrOut, "oc: %s\n", cli.Safe(oneLine(r.Err.Error())))
			}
		}
		if len(r.Matches) > 0 {
			matched++
			p.session(r)
		}
		return out.Flush()
	})
	p.end(len(sessions), matched)
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	switch {
	case err != nil && cli.IsClosedPipe(err):
		return nil
	case err != nil:
		return cli.Incomplete(err)
	case failed > 0:
		return cli.Exit(cli.ExitIncomplete, nil)
	case matched == 0:
		return cli.Exit(cli.ExitFindings, nil)
	}
	return nil
}

// grepPrinter writes grep's output.
type grepPrinter interface {
	begin()
	session(search.Result)
	failed(error)
	end(searched, matched int)
}

// grepText is grep's human output: SESSION:LINE:ROLE: TEXT.
type grepText struct {
	w         io.Writer
	st        *cli.Styles
	color     bool
	filesOnly bool
	context   bool
	groups    int
}

func (p *grepText) begin()                    {}
func (p *grepText) failed(error)              {}
func (p *grepText) end(searched, matched int) {}

func (p *grepText) session(r search.Result) {
	label := cli.Safe(sessionName(r.Session))
	if p.filesOnly {
		fmt.Fprintln(p.w, p.st.Number.Render(label))
		return
	}
	for _, m := range r.Matches {
		if p.context && p.groups > 0 {
			fmt.Fprintln(p.w, p.st.Dim.Render("--"))
		}
		p.groups++
		prefix := func(sep string) string {
			role := m.Role
			if m.Tool != "" {
				role += "(" + m.Tool + ")"
			}
			return p.st.Number.Render(label) + sep + p.st.OK.Render(strconv.FormatInt(m.Line, 10)) + sep + p.st.Key.Render(cli.Safe(role)) + sep + " "
		}
		for _, l := range m.Before {
			fmt.Fprintln(p.w, prefix("-")+cli.Safe(l))
		}
		fmt.Fprintln(p.w, prefix(":")+p.highlight(m))
		for _, l := range m.After {
			fmt.Fprintln(p.w, prefix("-")+cli.Safe(l))
		}
	}
}

// highlight is the matching line, its matches in bold red on a terminal.
func (p *grepText) highlight(m search.Match) string {
	if !p.color {
		return cli.Safe(m.Text)
	}
	var b strings.Builder
	last := 0
	for _, r := range m.Ranges {
		if r[0] < last {
			continue
		}
		b.WriteString(cli.Safe(m.Text[last:r[0]]))
		b.WriteString(p.st.Error.Render(cli.Safe(m.Text[r[0]:r[1]])))
		last = r[1]
	}
	b.WriteString(cli.Safe(m.Text[last:]))
	return b.String()
}

// sessionName is how grep names a session: key, else id@generation or id,
// else path; an archived file by its path.
func sessionName(s store.Session) string {
	if s.Era == store.EraJSONL && s.Key == "" {
		return s.Path
	}
	return s.Label()
}

// grepJSON is grep's --json document, matches streamed as found.
type grepJSON struct {
	w         io.Writer
	filesOnly bool
	n         int
	sessions  []grepSession
	errors    []string
}

// grepSession names a session in --json.
type grepSession struct {
	grepName
	Matches int `json:"matches"`
}

type grepName struct {
	Session  string `json:"session"`
	Key      string `json:"key,omitempty"`
	ID       string `json:"sessionId,omitempty"`
	Agent    string `json:"agent,omitempty"`
	Era      string `json:"era"`
	Path     string `json:"path"`
	Archived bool   `json:"archived,omitempty"`
}

type grepMatch struct {
	grepName
	search.Match
}

func (p *grepJSON) begin() { fmt.Fprint(p.w, `{"matches":[`) }

func (p *grepJSON) failed(err error) { p.errors = append(p.errors, oneLine(err.Error())) }

func (p *grepJSON) session(r search.Result) {
	name := grepName{Session: sessionName(r.Session), Key: r.Session.Key, ID: r.Session.ID, Agent: r.Session.Agent, Era: string(r.Session.Era),
		Path: r.Session.Path, Archived: r.Session.Archive != nil || isArchivedFile(r.Session)}
	p.sessions = append(p.sessions, grepSession{name, len(r.Matches)})
	if p.filesOnly {
		return
	}
	for _, m := range r.Matches {
		b, err := json.Marshal(grepMatch{name, m})
		if err != nil {
			continue
		}
		if p.n > 0 {
			fmt.Fprint(p.w, ",")
		}
		fmt.Fprint(p.w, "\n")
		p.w.Write(cli.SafeJSON(b))
		p.n++
	}
}

func (p *grepJSON) end(searched, matched int) {
	doc := struct {
		Sessions []grepSession `json:"sessions"`
		Searched int           `json:"searched"`
		Matched  int           `json:"matched"`
		Errors   []string      `json:"errors"`
	}{p.sessions, searched, matched, p.errors}
	if doc.Sessions == nil {
		doc.Sessions = []grepSession{}
	}
	if doc.Errors == nil {
		doc.Errors = []string{}
	}
	b, _ := json.Marshal(doc)
	// the rest of the document: its members after "matches"
	fmt.Fprintf(p.w, "\n],%s\n", cli.SafeJSON(b[1:]))
}

// isArchivedFile: a JSONL archive (not a live transcript).
func isArchivedFile(s store.Session) bool {
	if s.Era != store.EraJSONL {
		return false
	}
	kind, _ := transcript.ClassifyName(baseName(s.Path))
	return kind == transcript.KindArchived || strings.Contains(s.Path, ".jsonl.imported-")
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
