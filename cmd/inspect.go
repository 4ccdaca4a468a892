package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/cireport"
	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/shellquote"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/repair"
	"github.com/openclaw-tools/oc/pkg/replay"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

type inspectOptions struct {
	Tree     bool
	Archived bool
	Jobs     int
	All      bool // every finding in the human report, not the first few
	Replay   bool // provider replay findings for every transcript
	// OpenClaw is --openclaw: whose replay rules the findings follow ("":
	// the install's era).
	OpenClaw string
	// BusyTimeout bounds the wait for a SQLite writer's lock.
	BusyTimeout time.Duration

	release policy.Release // parsed --openclaw ("": the era's)

	// Format and FailOn are --format and --fail-on; format and failOn
	// their values read.
	Format *string
	FailOn string
	format cireport.Format
	failOn cireport.Level
}

func newInspectCmd(g *Globals) *cobra.Command {
	opts := &inspectOptions{}
	cmd := &cobra.Command{
		Use:   "inspect [PATH...]",
		Short: "Show what is in a transcript or a state dir, and what is wrong with it",
		Long: `Inspect one transcript, a sessions folder or a whole state dir (default: the
state dir). For a transcript: its header, counts by entry type, role,
provider, model and api, tool calls and their results, thinking blocks,
images, branches and the active branch (the messages OpenClaw's context holds),
and findings: what repair would change, what providers would reject, and
transcript-ownership problems. For a folder: one line per transcript, totals,
and sessions.json cross-checked with the files.

On a SQLite install (OpenClaw 2026.8.1+) the state dir's report lists the
sessions of every agent database; an agent database given as a PATH
(agents/<id>/agent/openclaw-agent.sqlite, or a copy of one) is read as that
database alone, and --tree draws each session's branches under its row
(or one session's under its summary), in either era. Piped, the
tables print keys and ids whole; on a terminal they are cut only to fit. --archived adds the generations OpenClaw
2026.9.6 keeps of deleted and reset sessions (session_transcript_archives):
each blob checked as 2026.9.6 checks it and analysed as a transcript, and
findings for a damaged blob, a row whose .deleted/.reset file was never
published (with its attempts and last error), and a published file that is
missing or differs from its row. Without it, one line counts them.
SESSIONID@GENERATION (or the archive's name) inspects one.

Inputs may be plain, .gz or .zst; "-" reads a transcript from stdin.`,
		Example: `  oc inspect                                  # the default state dir
  oc inspect ~/.openclaw/agents/main/sessions/0197a3c2.jsonl --tree
  oc inspect --state-dir /srv/openclaw --json | jq .totals`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInspect(cmd.Context(), g, opts, args)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.Tree, "tree", false, "draw the branch structure of each transcript")
	f.BoolVar(&opts.Archived, "archived", false, "also inspect archived transcripts (.reset, .deleted, .bak, checkpoints) in folders; on a SQLite install, the deleted/reset generations in session_transcript_archives")
	f.IntVar(&opts.Jobs, "jobs", 0, "transcripts inspected at once (default: number of CPUs)")
	f.BoolVar(&opts.All, "all-findings", false, "list every finding (default: one line per rule with its count and first lines, errors first)")
	opts.Format = addFormatFlag(cmd)
	addFailOnFlag(cmd, &opts.FailOn, cireport.LevelNever, "by default never: inspect reports, doctor and repair --check gate")
	addFilterFlags(cmd, g)
	f.DurationVar(&opts.BusyTimeout, "busy-timeout", 5*time.Second, "how long to wait for a SQLite database another process holds locked")
	f.BoolVar(&opts.Replay, "replay", false, "replay every transcript for each provider family and report what they would need fixed (default: only when one transcript or session is named and its context is at most 32 MiB)")
	f.StringVar(&opts.OpenClaw, "openclaw", "", "OpenClaw release whose replay rules the replay findings follow: 2026.5.6 or 2026.9.6 (default: the install's era: 2026.5.6 for JSONL transcripts, 2026.9.6 for SQLite sessions)")
	_ = cmd.RegisterFlagCompletionFunc("openclaw", completeValues(releaseCompletions(false)...))
	cmd.ValidArgsFunction = g.completeInspectArgs
	return cmd
}

// runInspect inspects args; cancelling ctx (SIGINT/SIGTERM) leaves what is not
// yet read unread and reports the run as interrupted.
func runInspect(ctx context.Context, g *Globals, opts *inspectOptions, args []string) error {
	if opts.Jobs < 0 {
		return cli.Usagef("--jobs %d: want 1 or more (0: one per CPU)", opts.Jobs)
	}
	filter, err := g.fileFilter()
	if err != nil {
		return err
	}
	if opts.format, opts.failOn, err = readGateFlags(g, *opts.Format, opts.FailOn); err != nil {
		return err
	}
	if err := opts.setRelease(); err != nil {
		return err
	}
	if handled, resolved, err := inspectViaStore(ctx, g, opts, args); handled {
		return err
	} else {
		args = resolved
	}
	paths := args
	if len(paths) == 0 {
		paths = []string{g.ResolvedStateDir()}
	}
	files, _ := transcript.Discover(paths, opts.Archived)
	files, _ = filter.Apply(files)
	single := len(paths) == 1 && len(files) == 1 && files[0].Path != "-" && !isDirPath(paths[0])
	progress, fileDone, byteProgress := inspectProgress(g, files, single)
	withReplay := opts.Replay || single
	if !withReplay {
		// Replay findings hold a transcript's context in memory; without them
		// inspect only streams.
		g.tuneGCForStreaming(gcLimitInspect)
	}
	rep, err := transcript.Inspect(ctx, paths, transcript.InspectOptions{
		Archived: opts.Archived, Jobs: opts.Jobs, Stdin: g.IO.In, Keep: filter.Keep,
		Progress: fileDone, ByteProgress: byteProgress,
		Analyze:      analyzeWithRepairFinding,
		MoreFindings: opts.replayFindings(withReplay),
	})
	progress.Done()
	if err != nil {
		return cli.Incomplete(describeInputError(err))
	}
	if ctx.Err() != nil {
		return cli.Incomplete(errors.New("interrupted: the report is incomplete"))
	}
	if rep.Single && len(rep.Errors) == 1 {
		return cli.Incomplete(errors.New(rep.Errors[0].Error))
	}
	if !rep.Single {
		rep.Era = "jsonl"
		root := g.ResolvedStateDir()
		if len(paths) == 1 && isDirPath(paths[0]) {
			root = paths[0] // a state dir named as the argument
		}
		addSessionKeys(root, rep)
	}
	ci := inspectCIFromJSONL(rep, opts.failOn)
	if opts.format.Machine() {
		if err := writeCIReport(g, opts.format, ci.report()); err != nil {
			return cli.Incomplete(err)
		}
	} else if last, err := writeInspectReport(g, opts, rep, paths, filter); last || err != nil {
		return err
	}
	if err := inspectErrors(g, rep); err != nil {
		return err
	}
	return inspectGate(ci)
}

// replayFindings adds to each JSONL transcript's findings what replaying
// it would change per provider (withReplay: --replay, or one file named),
// by 2026.5.6's rules unless --openclaw says otherwise; a context too large
// to replay unasked gets the finding that says so instead.
func (o *inspectOptions) replayFindings(withReplay bool) func(f transcript.File, s *transcript.Summary) []transcript.Finding {
	if !withReplay {
		return nil
	}
	return func(f transcript.File, s *transcript.Summary) []transcript.Finding {
		if skipped, ok := replay.SkippedFinding(s.Active.ContextBytes, shellquote.Quote(f.Path)); ok && !o.Replay {
			return []transcript.Finding{skipped}
		}
		rctx, err := s.Context()
		if err != nil {
			return nil
		}
		more, _ := replay.ContextFindings(rctx, o.releaseOr(policy.Release56), shellquote.Quote(f.Path))
		return more
	}
}

// inspectGate is inspect's exit for --fail-on once the report is written:
// 1 when a finding reached the level (never, by default).
func inspectGate(ci *inspectCI) error {
	if ci.fails() {
		return cli.Exit(cli.ExitFindings, nil)
	}
	return nil
}

// setRelease takes the one release --openclaw names, if any.
func (o *inspectOptions) setRelease() error {
	rels, err := parseReleases(o.OpenClaw)
	if err != nil {
		return err
	}
	if len(rels) > 1 {
		return cli.Usagef("--openclaw %q: inspect follows one release (oc replay SESSION --provider P --openclaw A,B compares two)", o.OpenClaw)
	}
	if len(rels) == 1 {
		o.release = rels[0]
	}
	return nil
}

// inspectProgress is the progress bar of an inspection and its two ticks:
// per file, or for a single file in bytes, over the analysis and the repair
// check (each reads the file once).
func inspectProgress(g *Globals, files []transcript.File, single bool) (progress *cli.Progress, fileDone func(), byteProgress func(int)) {
	fileDone = func() { progress.Add(1) }
	if single {
		if st, err := os.Stat(files[0].Path); err == nil {
			progress = cli.NewByteProgress(g.IO, "inspecting "+cli.Safe(filepath.Base(files[0].Path)), st.Size(), 2)
			if progress != nil {
				byteProgress = func(n int) { progress.Add(n) }
			}
			fileDone = func() {}
		}
	} else {
		progress = cli.NewProgress(g.IO, "inspecting", len(files))
	}
	return progress, fileDone, byteProgress
}

// inspectOutlines reads the outline of every transcript for --tree.
func inspectOutlines(g *Globals, rep *transcript.Report) map[string][]*transcript.Segment {
	outlines := map[string][]*transcript.Segment{}
	for _, s := range rep.Transcripts {
		segs, err := transcript.OutlineFile(s.Path, g.IO.In)
		if err == nil {
			outlines[s.Path] = segs
		}
	}
	return outlines
}

// writeInspectReport writes the report as JSON or for a person: one
// transcript's summary, or the state directory's report. last is true when
// nothing more is to be said (one transcript's JSON with its tree).
func writeInspectReport(g *Globals, opts *inspectOptions, rep *transcript.Report, paths []string, filter transcript.Filter) (last bool, err error) {
	var outlines map[string][]*transcript.Segment
	if opts.Tree {
		outlines = inspectOutlines(g, rep)
	}
	if g.JSON {
		if rep.Single && len(rep.Transcripts) == 1 {
			if opts.Tree {
				return true, writeJSON(g.IO, struct {
					*transcript.Summary
					Tree []*transcript.Segment `json:"tree"`
				}{rep.Transcripts[0], outlines[rep.Transcripts[0].Path]})
			}
			return false, writeJSON(g.IO, rep.Transcripts[0])
		}
		return false, writeJSON(g.IO, rep)
	}
	st := g.IO.Styles()
	w := g.IO.Out
	if rep.Single && len(rep.Transcripts) == 1 {
		printSummary(w, st, rep.Transcripts[0], opts.All)
		if opts.Tree {
			printOutline(w, st, outlines[rep.Transcripts[0].Path])
		}
	} else if len(rep.Transcripts) == 0 && len(rep.Errors) == 0 {
		fmt.Fprintf(w, "no transcripts in %s%s\n", cli.Safe(strings.Join(paths, ", ")), filter.Describe())
		printIndex(w, st, rep)
	} else {
		printStateReport(w, st, rep, opts, outlines)
	}
	return false, nil
}

// inspectErrors reports the transcripts that could not be read.
func inspectErrors(g *Globals, rep *transcript.Report) error {
	if len(rep.Errors) == 0 {
		return nil
	}
	if len(rep.Errors) == 1 {
		return cli.Incomplete(errors.New(rep.Errors[0].Error))
	}
	if g.JSON {
		return cli.Incomplete(fmt.Errorf("%d transcripts could not be read; first: %s", len(rep.Errors), rep.Errors[0].Error))
	}
	for _, e := range rep.Errors {
		fmt.Fprintf(g.IO.ErrOut, "oc: %s\n", cli.Safe(e.Error))
	}
	return cli.Exit(cli.ExitIncomplete, nil)
}

// releaseOr is --openclaw's release, else the era's default.
func (o *inspectOptions) releaseOr(era policy.Release) policy.Release {
	if o.release != "" {
		return o.release
	}
	return era
}

// analyzeWithRepairFinding analyses one transcript and adds what `oc repair`
// (default rules) would change in it, as one finding, planned from the same
// read of the file; compressed files, stdin and files whose plan fails get
// none.
func analyzeWithRepairFinding(f transcript.File, stdin io.Reader, progress func(int)) (*transcript.Summary, error) {
	s, plan, err := repair.AnalyzeFile(f, stdin, progress, repair.Options{})
	if err != nil {
		return nil, err
	}
	if plan != nil {
		if fd, ok := plan.Finding(); ok {
			s.AddFindings([]transcript.Finding{fd})
		}
	}
	return s, nil
}

func isDirPath(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// describeInputError turns a discovery error into one line naming the path.
func describeInputError(err error) error {
	return err
}

func printSummary(w io.Writer, st *cli.Styles, s *transcript.Summary, all bool) {
	label := func(l string) string { return st.Bold.Render(fmt.Sprintf("%-12s", l)) }
	safe := cli.Safe
	where := []string{}
	if s.Agent != "" {
		where = append(where, "agent "+safe(s.Agent))
	}
	kind := string(s.Kind)
	if s.Archive != "" {
		kind += " (" + s.Archive + ")"
	}
	if kind != "" {
		where = append(where, kind)
	}
	where = append(where, humanBytes(s.Size))
	if s.Compression != "plain" && s.Compression != string(s.Kind) {
		where = append(where, s.Compression)
	}
	what := "Transcript"
	if s.Kind == "sqlite" {
		what = "Database" // a SQLite session's transcript is rows of its agent database
	}
	fmt.Fprintf(w, "%s %s  %s\n", label(what), st.Title.Render(safe(s.Path)), st.Dim.Render(strings.Join(where, ", ")))
	if h := s.Header; h != nil {
		v := string(h.Version)
		if v == "" {
			v = "1"
		}
		fmt.Fprintf(w, "%s session %s  v%s  %s  %s\n", label("Header"), safe(h.ID), safe(v), safe(h.Timestamp), st.Dim.Render("cwd "+safe(h.Cwd)))
	} else if s.Kind == "sqlite" && s.Lines == 0 {
		// A SQLite session with no rows has nothing to be damaged.
		fmt.Fprintf(w, "%s %s\n", label("Header"), st.Warn.Render("none: the session has no transcript rows"))
	} else {
		fmt.Fprintf(w, "%s %s\n", label("Header"), st.Error.Render("missing or damaged: OpenClaw would start this session over"))
	}
	lines := fmt.Sprintf("%d", s.Lines)
	var extra []string
	if s.BlankLines > 0 {
		extra = append(extra, fmt.Sprintf("%d blank", s.BlankLines))
	}
	if n := len(s.Malformed); n > 0 {
		extra = append(extra, st.Error.Render(fmt.Sprintf("%d malformed", n)))
	}
	if len(extra) > 0 {
		lines += " (" + strings.Join(extra, ", ") + ")"
	}
	fmt.Fprintf(w, "%s %s\n", label("Lines"), lines)
	if len(s.ByType) == 0 {
		fmt.Fprintf(w, "%s %d\n", label("Entries"), s.Entries)
	} else {
		fmt.Fprintf(w, "%s %d: %s\n", label("Entries"), s.Entries, countList(s.ByType))
	}
	if len(s.ByRole) > 0 {
		fmt.Fprintf(w, "%s %s\n", label("Roles"), countList(s.ByRole))
	}
	if len(s.Providers) > 0 {
		fmt.Fprintf(w, "%s %s\n", label("Providers"), countList(s.Providers))
		fmt.Fprintf(w, "%s %s\n", label("Models"), countList(s.Models))
	}
	if len(s.APIs) > 0 {
		fmt.Fprintf(w, "%s %s\n", label("APIs"), countList(s.APIs))
	}
	tc := s.ToolCalls
	fmt.Fprintf(w, "%s %d total, %d paired, %d missing result, %s, %s\n", label("Tool calls"), tc.Total, tc.Paired, tc.MissingResult, plural(tc.OrphanResults, "orphan result"), plural(tc.DuplicateIDs, "duplicate id"))
	if s.Thinking.Blocks > 0 {
		fmt.Fprintf(w, "%s %s, %d signed, %d redacted\n", label("Thinking"), plural(s.Thinking.Blocks, "block"), s.Thinking.Signed, s.Thinking.Redacted)
	}
	if s.Images.Count > 0 {
		fmt.Fprintf(w, "%s %d (%s)\n", label("Images"), s.Images.Count, humanBytes(s.Images.Bytes))
	}
	fmt.Fprintf(w, "%s %s, %s, %s; %s; %s, %d aborted\n", label("Branches"), plural(s.Branches.Roots, "root"), plural(s.Branches.Leaves, "leaf"), plural(s.Branches.Forks, "fork"), plural(s.Compactions, "compaction"), plural(s.Errors, "error"), s.Aborted)
	if s.Active.Leaf != "" || s.Active.Entries > 0 {
		fmt.Fprintf(w, "%s leaf %s (line %d): %s, %s\n", label("Active"), safe(s.Active.Leaf), s.Active.LeafLine, plural(s.Active.Entries, "entry"), st.Bold.Render(plural(s.Active.Messages, "message")+" in context"))
	}
	printFindings(w, st, s.Findings, all)
}

// printFindings prints a transcript's findings, errors first: one line per
// rule with its count and first lines (`rule ×5,400 (lines 12, 40, …)`),
// or with all (--all-findings) every finding on a line of its own.
func printFindings(w io.Writer, st *cli.Styles, findings []transcript.Finding, all bool) {
	if len(findings) == 0 {
		fmt.Fprintf(w, "\n%s no findings\n", st.OK.Render("✓"))
		return
	}
	fmt.Fprintf(w, "\n%s\n", st.Heading.Render(fmt.Sprintf("Findings (%d)", len(findings))))
	if all {
		for _, f := range transcript.SortBySeverity(findings) {
			where := "        "
			if f.Line > 0 {
				where = fmt.Sprintf("line %-3d", f.Line)
			}
			fmt.Fprintf(w, "  %s %s %s %s\n", st.Severity(fmt.Sprintf("%-7s", f.Severity)), st.Dim.Render(where), st.Key.Render(cli.Safe(f.Rule)), cli.Safe(f.Message))
		}
		return
	}
	groups := transcript.GroupFindings(findings, 3)
	for _, g := range groups {
		where := "        "
		switch {
		case g.Count > 1:
			where = ""
		case g.Lines != nil:
			where = fmt.Sprintf("line %-3d", g.Lines[0])
		}
		head := cli.Safe(g.Rule)
		if g.Count > 1 {
			head += " ×" + groupCount(g.Count) + " (" + g.Where() + ")"
		}
		if where != "" {
			where = st.Dim.Render(where) + " "
		}
		fmt.Fprintf(w, "  %s %s%s %s\n", st.Severity(fmt.Sprintf("%-7s", g.Severity)), where, st.Key.Render(head), cli.Safe(g.First.Message))
	}
	if len(groups) < len(findings) {
		fmt.Fprintf(w, "  %s\n", st.Dim.Render("(--all-findings lists every one, --json has them all)"))
	}
}

// groupCount is n with thousands separated (5,400).
func groupCount(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func printOutline(w io.Writer, st *cli.Styles, segs []*transcript.Segment) {
	fmt.Fprintf(w, "\n%s\n", st.Heading.Render("Branches"))
	if len(segs) == 0 {
		fmt.Fprintf(w, "  %s\n", st.Dim.Render("none"))
	}
	var walk func(segs []*transcript.Segment, prefix string)
	walk = func(segs []*transcript.Segment, prefix string) {
		for i, s := range segs {
			last := i == len(segs)-1
			branch, next := "├─ ", "│  "
			if last {
				branch, next = "└─ ", "   "
			}
			lines := fmt.Sprintf("line %d", s.FirstLine)
			if s.LastLine != s.FirstLine {
				lines = fmt.Sprintf("lines %d–%d", s.FirstLine, s.LastLine)
			}
			text := fmt.Sprintf("%s %s … %s  %s", lines, cli.Safe(s.FirstID), cli.Safe(s.LastID), cli.Safe(s.Kinds))
			if s.Active {
				text = st.Bold.Render(text)
			} else {
				text = st.Dim.Render(text)
			}
			mark := ""
			if s.Leaf {
				mark = " " + st.OK.Render("◀ active leaf")
			}
			fmt.Fprintf(w, "%s%s%s%s\n", prefix, branch, text, mark)
			walk(s.Children, prefix+next)
		}
	}
	walk(segs, "  ")
}

// Column widths of the state-dir tables (visible characters).
const (
	colAgent = 8
	colName  = 44
)

// transcriptTable is the state-dir table of `oc inspect`, one transcript a row.
var transcriptTable = cli.Table{Columns: []cli.Column{
	{Title: "AGENT", Width: colAgent}, {Title: "TRANSCRIPT", Width: colName}, {Title: "ENTRIES", Width: 8, Right: true},
	{Title: "MSGS", Width: 6, Right: true}, {Title: "SIZE", Width: 9, Right: true}, {Title: "FINDINGS", Gap: 1},
}}

// findingCounts is the FINDINGS cell of a table row: errors, warnings and
// infos in their styles, or "ok".
func findingCounts(st *cli.Styles, s interface{ Counts() (int, int, int) }) string {
	errs, warnings, infos := s.Counts()
	var parts []string
	if errs > 0 {
		parts = append(parts, st.Error.Render(plural(errs, "error")))
	}
	if warnings > 0 {
		parts = append(parts, st.Warn.Render(plural(warnings, "warning")))
	}
	if infos > 0 {
		parts = append(parts, st.Dim.Render(fmt.Sprintf("%d info", infos)))
	}
	if len(parts) == 0 {
		return st.OK.Render("ok")
	}
	return strings.Join(parts, ", ")
}

func printStateReport(w io.Writer, st *cli.Styles, rep *transcript.Report, opts *inspectOptions, outlines map[string][]*transcript.Segment) {
	if len(rep.Transcripts) > 0 {
		fmt.Fprintln(w, transcriptTable.Header(st))
	}
	for _, s := range rep.Transcripts {
		agent := cli.Safe(s.Agent)
		if agent == "" {
			agent = "-"
		}
		fmt.Fprintln(w, transcriptTable.Row(shortenMiddle(agent, colAgent), shortenName(cli.Safe(filepath.Base(s.Path)), colName),
			strconv.Itoa(s.Entries), strconv.Itoa(s.Active.Messages), humanBytes(s.Size), findingCounts(st, s)))
		if opts.Tree {
			printOutline(w, st, outlines[s.Path])
		}
	}
	t := rep.Totals
	fmt.Fprintf(w, "\n%s %s, %s, %d context %s, %s; findings: %s, %s, %d info",
		st.Bold.Render("Totals:"), plural(t.Transcripts, "transcript"), plural(t.Entries, "entry"), t.Messages, pluralWord(t.Messages, "message"), humanBytes(t.Bytes),
		plural(t.Findings[transcript.SevError], "error"), plural(t.Findings[transcript.SevWarning], "warning"), t.Findings[transcript.SevInfo])
	if t.Failed > 0 {
		fmt.Fprintf(w, "; %s", st.Error.Render(fmt.Sprintf("%d could not be read", t.Failed)))
	}
	fmt.Fprintln(w)
	printIndex(w, st, rep)
	if t.Findings[transcript.SevError] > 0 {
		// The commands on lines of their own, unstyled: copy and paste.
		fmt.Fprintf(w, "\nNext: one transcript's findings, then repair what can be repaired:\n  oc inspect FILE\n  oc repair\n")
	}
}

// printIndex prints the sessions.json cross-check of a state-dir report.
func printIndex(w io.Writer, st *cli.Styles, rep *transcript.Report) {
	ix := rep.Index
	if ix == nil {
		return
	}
	if len(ix.Checked) == 0 {
		fmt.Fprintf(w, "%s no sessions.json found\n", st.Bold.Render("Index:"))
	} else {
		fmt.Fprintf(w, "%s %d sessions.json checked: %s, %s, %s\n",
			st.Bold.Render("Index:"), len(ix.Checked), plural(len(ix.MissingFiles), "missing file"), plural(len(ix.OrphanFiles), "orphan transcript"), plural(len(ix.Dangling), "dangling sessionFile"))
		for _, m := range ix.MissingFiles {
			// info, as doctor's session-file-missing: an entry whose
			// transcript was never written or was removed is not damage
			fmt.Fprintf(w, "  %s %s: %s (%s)\n", st.Severity(transcript.SevInfo), cli.Safe(m.Key), cli.Safe(m.Reason), cli.Safe(m.Path))
		}
		for _, o := range ix.OrphanFiles {
			fmt.Fprintf(w, "  %s orphan transcript (no sessions.json entry): %s\n", st.Severity(transcript.SevInfo), cli.Safe(o))
		}
		for _, d := range ix.Dangling {
			fmt.Fprintf(w, "  %s %s: %s\n", st.Severity(transcript.SevWarning), cli.Safe(d.Key), cli.Safe(d.Reason))
		}
	}
	for _, e := range ix.Errors {
		fmt.Fprintf(w, "  %s %s\n", st.Severity(transcript.SevError), cli.Safe(e.Error))
	}
}

// shortenName fits a transcript file name into n columns, keeping what
// tells files apart: the suffix from ".jsonl" on (".jsonl.reset.<stamp>",
// ".jsonl.bak-oc-<stamp>") stays whole and the session id is shortened in
// its middle.
func shortenName(name string, n int) string {
	r := []rune(name)
	if len(r) <= n {
		return name
	}
	i := strings.Index(name, ".jsonl")
	if i < 0 {
		return shortenMiddle(name, n)
	}
	stem, suffix := []rune(name[:i]), []rune(name[i:])
	room := n - len(suffix) - 1 // columns left for the id and the "…"
	if room < 4 {
		return shortenMiddle(name, n)
	}
	head := (room + 1) / 2
	return string(stem[:head]) + "…" + string(stem[len(stem)-(room-head):]) + string(suffix)
}

// shortenMiddle fits s into n columns with "…" in the middle.
func shortenMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := (n - 1) / 2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}

// padRight pads s with spaces to n visible columns (styled text counts
// as its visible width).
func padRight(s string, n int) string {
	if w := lipgloss.Width(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

func countList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", cli.Safe(k), m[k])
	}
	return strings.Join(parts, ", ")
}

// pluralWord is the noun alone: pluralWord(1, "message") is "message".
func pluralWord(n int, word string) string {
	return strings.TrimPrefix(plural(n, word), fmt.Sprintf("%d ", n))
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	switch word {
	case "leaf":
		return fmt.Sprintf("%d leaves", n)
	case "entry":
		return fmt.Sprintf("%d entries", n)
	}
	if strings.HasSuffix(word, "x") || strings.HasSuffix(word, "s") || strings.HasSuffix(word, "ch") {
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// pluralVerb picks the verb form for a count: pluralVerb(1, "has", "have").
func pluralVerb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// addSessionKeys gives each JSONL transcript of a state-dir report the
// session key its sessions.json names it by (as a SQLite session has its
// key), when the state dir's index names it.
func addSessionKeys(root string, rep *transcript.Report) {
	st, err := store.Open(root, store.Options{})
	if err != nil {
		return
	}
	js, err := st.JSONLSessions()
	if err != nil {
		return
	}
	keys := map[string]string{}
	for _, s := range js {
		if abs, err := filepath.Abs(s.Path); err == nil && s.Key != "" {
			keys[abs] = s.Key
		}
	}
	for _, s := range rep.Transcripts {
		if abs, err := filepath.Abs(s.Path); err == nil {
			s.Key = keys[abs]
		}
	}
}
