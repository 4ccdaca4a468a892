package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/doctor"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// inspectViaStore handles what the JSONL-path flow of inspect cannot: a
// SQLite-era state dir (no arguments), and a SESSION argument that is not a
// path (key, id or prefix, either era). handled is false when the JSONL flow
// should go on, with args possibly rewritten to the resolved transcript path.
func inspectViaStore(ctx context.Context, g *Globals, opts *inspectOptions, args []string) (handled bool, newArgs []string, err error) {
	if len(args) > 1 {
		return false, args, nil
	}
	if len(args) == 1 && store.IsSQLiteFile(args[0]) {
		// An agent database given as a path is read as the database it is.
		st, err := store.OpenDatabase(ctx, args[0], store.Options{SQLite: sqlitestore.Options{BusyTimeout: opts.BusyTimeout}})
		if err != nil {
			return true, nil, cli.Incomplete(err)
		}
		return true, nil, inspectSQLiteState(ctx, g, opts, st)
	}
	if len(args) == 1 && (store.IsTranscriptPath(args[0]) || isDirPath(args[0]) || store.LooksLikePath(args[0]) && !store.LooksLikeArchiveName(args[0])) {
		return false, args, nil
	}
	st, err := store.Open(g.ResolvedStateDir(), store.Options{SQLite: sqlitestore.Options{BusyTimeout: opts.BusyTimeout}})
	if err != nil {
		return true, nil, cli.Incomplete(err)
	}
	if len(args) == 0 {
		if !st.HasSQLite() {
			return false, args, nil
		}
		return true, nil, inspectSQLiteState(ctx, g, opts, st)
	}
	ses, err := st.Resolve(ctx, args[0])
	if err != nil {
		var amb *store.AmbiguousError
		if errors.As(err, &amb) {
			return true, nil, cli.Exit(cli.ExitUsage, err)
		}
		return true, nil, cli.Incomplete(err)
	}
	if ses.Era == store.EraJSONL {
		return false, []string{ses.Path}, nil
	}
	if ses.Archive != nil {
		return true, nil, inspectOneArchive(ctx, g, st, ses, opts)
	}
	return true, nil, inspectSQLiteSession(ctx, g, opts, st, ses)
}

// inspectSQLiteSession is the report of one SQLite session: the store's
// analysis, replay findings by 2026.9.6's rules unless --openclaw says
// otherwise, and with --tree its branches.
func inspectSQLiteSession(ctx context.Context, g *Globals, opts *inspectOptions, st *store.State, ses store.Session) error {
	rep, err := st.InspectSession(ctx, ses)
	if err != nil {
		return cli.Incomplete(err)
	}
	// One session named: replay findings, by 2026.9.6's rules unless
	// --openclaw says otherwise (the install's era).
	// --tree: the branches of the rows as exported (header first, seq
	// order), lines counted in that order.
	var tree []*transcript.Segment
	if path, cleanup, err := st.ExportToTemp(ctx, ses); err == nil {
		more, _ := replay.ProviderFindings(path, opts.releaseOr(policy.Release96), sessionRef(g, ses, st.Root))
		if opts.Tree {
			tree, _ = transcript.OutlineFile(path, nil)
		}
		cleanup()
		rep.Summary.Findings = append(rep.Summary.Findings, more...)
	}
	sqliteAdvice(rep.Findings)
	ci := inspectCIFromSession(rep, opts.failOn)
	if opts.format.Machine() {
		if err := writeCIReport(g, opts.format, ci.report()); err != nil {
			return err
		}
		return inspectGate(ci)
	}
	if g.JSON {
		return writeSQLiteSessionJSON(g, rep, opts.Tree, tree, ci)
	}
	st2 := g.IO.Styles()
	fmt.Fprintf(g.IO.Out, "%s %s  %s\n", st2.Bold.Render(fmt.Sprintf("%-12s", "Session")), st2.Title.Render(cleanText(rep.Key)), st2.Dim.Render("sqlite, "+cleanText(rep.SessionID)))
	if c := rep.Cache; c != nil && c.Present {
		fmt.Fprintf(g.IO.Out, "%s leaf %s, %d active events, needs_rebuild %v (agrees with 2026.9.6's rules: leaf %v, path %v)\n", st2.Bold.Render(fmt.Sprintf("%-12s", "Cache")), cleanText(c.LeafEventID), c.ActiveEvents, c.NeedsRebuild, c.LeafAgrees, c.ActivePathAgrees)
	}
	if c := rep.Cold; c != nil {
		state := "verified"
		if !c.Verified {
			state = "NOT readable, see the findings"
		}
		fmt.Fprintf(g.IO.Out, "%s %d of %d events from %s (storage %s, %s)\n", st2.Bold.Render(fmt.Sprintf("%-12s", "Cold archive")), c.Events, c.Archive.EventCount, cleanText(c.Path), cleanText(c.Archive.Storage), state)
	}
	printSummary(g.IO.Out, st2, rep.Summary, opts.All)
	if opts.Tree {
		printOutline(g.IO.Out, st2, tree)
	}
	return inspectGate(ci)
}

// writeSQLiteSessionJSON writes one SQLite session's --json report (with
// its tree under "tree" when asked) and returns the gate's verdict.
func writeSQLiteSessionJSON(g *Globals, rep *store.SessionReport, withTree bool, tree []*transcript.Segment, ci *inspectCI) error {
	var err error
	if withTree {
		if tree == nil {
			tree = []*transcript.Segment{}
		}
		err = writeJSON(g.IO, struct {
			*store.SessionReport
			Tree []*transcript.Segment `json:"tree"`
		}{rep, tree})
	} else {
		err = writeJSON(g.IO, rep)
	}
	if err != nil {
		return err
	}
	return inspectGate(ci)
}

// inspectSQLiteState is the state-dir report of a SQLite-era install (or of
// one agent database given as a path).
func inspectSQLiteState(ctx context.Context, g *Globals, opts *inspectOptions, st *store.State) error {
	// Each session's rows are dropped after its analysis: collect lazily.
	g.tuneGCForStreaming(gcLimitInspect)
	filter, err := g.fileFilter()
	if err != nil {
		return err
	}
	var since int64
	if !filter.Since.IsZero() {
		since = filter.Since.UnixMilli()
	}
	progress := cli.NewProgress(g.IO, "inspecting", 0)
	rep, err := st.InspectSQLite(ctx, store.InspectOptions{Jobs: opts.Jobs, QuickCheck: true, Archived: opts.Archived, Progress: func() { progress.Add(1) },
		Agent: filter.Agent, Since: since})
	progress.Done()
	if err != nil {
		return cli.Incomplete(err)
	}
	if ctx.Err() != nil {
		return cli.Incomplete(errors.New("interrupted: the report is incomplete"))
	}
	if opts.Replay {
		addSQLiteReplayFindings(ctx, g, st, rep, opts.releaseOr(policy.Release96))
	}
	for _, ses := range rep.Sessions {
		if ses.Summary != nil {
			sqliteAdvice(ses.Findings)
		}
	}
	ci := inspectCIFromSQLite(rep, opts.failOn)
	switch {
	case opts.format.Machine():
		err = writeCIReport(g, opts.format, ci.report())
	case g.JSON:
		err = writeJSON(g.IO, rep)
	default:
		var outlines [][]*transcript.Segment
		if opts.Tree {
			outlines = sqliteOutlines(ctx, g, st, rep)
		}
		printSQLiteReport(g.IO.Out, g.IO.Styles(), rep, tableWidth(g), stateDirArg(g, rep.Root), outlines)
	}
	if err == nil && len(rep.Errors) > 0 {
		if !g.JSON {
			for _, e := range rep.Errors {
				fmt.Fprintf(g.IO.ErrOut, "oc: %s\n", cli.Safe(e.Error))
			}
		}
		return cli.Exit(cli.ExitIncomplete, nil)
	}
	if err != nil {
		return err
	}
	return inspectGate(ci)
}

// cleanText drops control characters from untrusted text before printing.
// cleanText makes text from a database safe for a terminal (cli.Safe).
func cleanText(s string) string { return cli.Safe(s) }

// printSQLiteReport prints a SQLite state dir's report; width is the
// terminal's (0 when piped: nothing is cut).
// stateArg is the --state-dir the commands it suggests need ("" when they
// look there by default); outlines, when set (--tree), are the branches of
// each session, drawn under its row.
func printSQLiteReport(w io.Writer, st *cli.Styles, rep *store.SQLiteReport, width int, stateArg string, outlines [][]*transcript.Segment) {
	era := "SQLite (OpenClaw 2026.8.1+)"
	if rep.Era == "mid-upgrade" {
		era = "mid-upgrade: SQLite databases and JSONL transcripts not yet imported"
	}
	fmt.Fprintf(w, "%s %s  %s\n", st.Bold.Render("State dir:"), cleanText(rep.Root), st.Dim.Render(era))
	for _, d := range rep.Databases {
		if d.Error != "" {
			fmt.Fprintf(w, "  %s %s: %s\n", st.Severity(transcript.SevError), d.Agent, cleanText(d.Error))
			continue
		}
		extra := ""
		if d.ColdArchives > 0 {
			extra += fmt.Sprintf("; %d in cold storage", d.ColdArchives)
		}
		if d.CopyReason != "" {
			extra += "; read from a private copy"
		}
		fmt.Fprintf(w, "  agent %-8s schema %d, %s, %d sessions, quick_check %s, journal %s, -wal %s%s\n", cleanText(d.Agent), d.Schema, humanBytes(d.DBBytes), d.Sessions, cleanText(d.QuickCheck), d.JournalMode, humanBytes(d.WALBytes), extra)
	}
	// Keys and ids are printed whole when piped (the Next line's KEY can
	// be followed); on a terminal the table fits its width.
	rows := make([][]string, 0, len(rep.Sessions))
	for _, s := range rep.Sessions {
		key := cleanText(s.Key)
		if key == "" {
			key = "(no key)"
		}
		last := "-"
		if s.LastActivity > 0 {
			last = time.UnixMilli(s.LastActivity).UTC().Format("2006-01-02 15:04")
		}
		rows = append(rows, []string{cleanText(s.Agent), key, cleanText(s.SessionID), strconv.Itoa(s.Events), strconv.Itoa(s.Active.Messages), humanBytes(s.Size), last, findingCounts(st, s)})
	}
	table, rows := sessionTable.Layout(rows, width)
	if len(rows) > 0 {
		fmt.Fprintf(w, "\n%s\n", table.Header(st))
	}
	for i, r := range rows {
		fmt.Fprintln(w, table.Row(r...))
		if outlines != nil {
			printOutline(w, st, outlines[i])
		}
	}
	printArchives(w, st, rep, width)
	if len(rep.Findings) > 0 {
		fmt.Fprintf(w, "\n%s\n", st.Heading.Render(fmt.Sprintf("State findings (%d)", len(rep.Findings))))
		for _, f := range rep.Findings {
			where := ""
			if f.Path != "" && !strings.Contains(f.Message, f.Path) {
				// the file or database it is about (jsonl-awaiting-import:
				// which transcript waits), as --json names it
				where = " [" + cleanText(docRel(f.Path, rep.Root)) + "]"
			}
			fmt.Fprintf(w, "  %s %s %s%s\n", st.Severity(fmt.Sprintf("%-7s", f.Severity)), st.Key.Render(cleanText(f.Rule)), cleanText(f.Message), where)
		}
	}
	t := rep.Totals
	archived := ""
	if rep.Archives != nil {
		archived = ", " + plural(len(rep.Archives), "archived generation")
	}
	fmt.Fprintf(w, "\n%s %d sessions%s, %d entries, %d context messages, %s; findings: %d error, %d warning, %d info\n",
		st.Bold.Render("Totals:"), t.Transcripts, archived, t.Entries, t.Messages, humanBytes(t.Bytes), t.Findings[transcript.SevError], t.Findings[transcript.SevWarning], t.Findings[transcript.SevInfo])
	stateArg = cli.Safe(stateArg)
	fmt.Fprintf(w, "%s oc inspect KEY%s shows one session; oc export KEY%s writes it as JSONL.\n", st.Dim.Render("Next:"), stateArg, stateArg)
	if n, pending := archivedCount(rep); n > 0 && rep.Archives == nil {
		unpublished := ""
		if pending > 0 {
			unpublished = fmt.Sprintf(" (%d unpublished)", pending)
		}
		fmt.Fprintf(w, "%s %s of deleted or reset sessions in session_transcript_archives%s: oc inspect%s --archived lists and checks them.\n", st.Dim.Render("Archived:"), plural(n, "generation"), unpublished, stateArg)
	} else if len(rep.Archives) > 0 {
		fmt.Fprintf(w, "%s oc inspect SESSIONID@GENERATION%s shows one; oc export SESSIONID@GENERATION%s writes it as JSONL.\n", st.Dim.Render("Archived:"), stateArg, stateArg)
	}
}

// archivedCount adds up the databases' archived generations, and those not
// published.
func archivedCount(rep *store.SQLiteReport) (n, unpublished int) {
	for _, d := range rep.Databases {
		n += d.ArchivedGenerations
		unpublished += d.UnpublishedArchives
	}
	return n, unpublished
}

// archiveTable is the table of archived generations in `oc inspect
// --archived` on a SQLite store, one generation a row.
var archiveTable = cli.Table{Columns: []cli.Column{
	{Title: "AGENT", Width: colAgent}, {Title: "SESSION KEY", Width: 30, Min: 20, CutMiddle: true}, {Title: "ID", Width: 13, Min: 13}, {Title: "GENERATION", Width: 10, Min: 10},
	{Title: "REASON", Width: 7}, {Title: "ENC", Width: 8}, {Title: "STORED", Width: 9, Right: true}, {Title: "ENTRIES", Width: 7, Right: true},
	{Title: "CREATED", Width: 16, Gap: 1}, {Title: "PUBLISHED", Width: 17}, {Title: "FINDINGS"},
}}

// printArchives lists the archived generations (inspect --archived): a row
// each, and under it the findings of its row and derived file.
func printArchives(w io.Writer, st *cli.Styles, rep *store.SQLiteReport, width int) {
	if rep.Archives == nil {
		return
	}
	fmt.Fprintf(w, "\n%s\n", st.Heading.Render(fmt.Sprintf("Archived generations (%d)", len(rep.Archives))))
	if len(rep.Archives) == 0 {
		fmt.Fprintln(w, "  none")
		return
	}
	rows := make([][]string, 0, len(rep.Archives))
	for _, a := range rep.Archives {
		r := a.Row
		published := "no (never tried)"
		switch {
		case r.PublishedAt != nil:
			published = minute(*r.PublishedAt)
		case r.PublishAttempts > 0:
			published = "no (" + plural(int(r.PublishAttempts), "attempt") + ")"
		}
		key := cleanText(r.SessionKey)
		if key == "" {
			key = "(no key)"
		}
		rows = append(rows, []string{shortenMiddle(cleanText(a.Agent), colAgent), key, cleanText(r.SessionID),
			cleanText(r.Generation), cleanText(r.Reason), cleanText(r.Encoding), humanBytes(r.BlobBytes), strconv.Itoa(a.Entries),
			minute(r.CreatedAt), published, findingCounts(st, a)})
	}
	table, rows := archiveTable.Layout(rows, width)
	fmt.Fprintln(w, table.Header(st))
	for i, a := range rep.Archives {
		fmt.Fprintln(w, table.Row(rows[i]...))
		for _, f := range a.Findings {
			if strings.HasPrefix(f.Rule, "sqlite-archive-") && f.Severity != transcript.SevInfo {
				fmt.Fprintf(w, "    %s %s %s\n", st.Severity(fmt.Sprintf("%-7s", f.Severity)), st.Key.Render(cleanText(f.Rule)), cleanText(f.Message))
			}
		}
	}
}

// minute is a millisecond time as the tables show it.
func minute(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04") }

// inspectOneArchive is `oc inspect SESSIONID@GENERATION` (or the archive's
// name): the row, its publication and derived file, and the transcript's
// summary with replay findings by 2026.9.6's rules.
func inspectOneArchive(ctx context.Context, g *Globals, st *store.State, ses store.Session, opts *inspectOptions) error {
	rep, err := st.InspectArchive(ctx, ses)
	if err != nil {
		return cli.Incomplete(err)
	}
	if rep.Verified {
		if path, cleanup, err := st.ExportToTemp(ctx, ses); err == nil {
			more, _ := replay.ProviderFindings(path, opts.releaseOr(policy.Release96), sessionRef(g, ses, st.Root))
			cleanup()
			rep.Summary.AddFindings(more)
		}
	}
	if g.JSON {
		return writeJSON(g.IO, rep)
	}
	w, st2 := g.IO.Out, g.IO.Styles()
	label := func(l string) string { return st2.Bold.Render(fmt.Sprintf("%-12s", l)) }
	r := rep.Row
	fmt.Fprintf(w, "%s %s  %s\n", label("Archived"), st2.Title.Render(cleanText(r.Spec())), st2.Dim.Render(cleanText(r.SessionKey)))
	check := "sha256 verified"
	if !rep.Verified {
		check = st2.Error.Render("NOT readable, see the findings")
	}
	fmt.Fprintf(w, "%s %s %s, %s, %s stored, %s decoded; %s\n", label("Row"), cleanText(r.Reason), stampUTC(r.CreatedAt), cleanText(r.Encoding), humanBytes(r.BlobBytes), humanBytes(rep.DecodedBytes), check)
	published := "no, never attempted"
	if r.PublishAttempts > 0 {
		published = "no: " + plural(int(r.PublishAttempts), "attempt")
	}
	if r.LastPublishAttemptAt != nil {
		published += ", the last " + stampUTC(*r.LastPublishAttemptAt)
	}
	if r.LastPublishError != nil && *r.LastPublishError != "" {
		published += ", failed: " + cleanText(oneLine(*r.LastPublishError))
	}
	if r.PublishedAt != nil {
		published = stampUTC(*r.PublishedAt)
	}
	fmt.Fprintf(w, "%s %s\n", label("Published"), published)
	derived := rep.DerivedFile.State
	if rep.DerivedFile.Detail != "" {
		derived += " (" + rep.DerivedFile.Detail + ")"
	}
	fmt.Fprintf(w, "%s %s: %s\n", label("Derived file"), cleanText(rep.DerivedFile.Path), cleanText(derived))
	printSummary(w, st2, rep.Summary, opts.All)
	return nil
}

// stampUTC is a millisecond time to the second.
func stampUTC(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05Z") }

// eachReportedSession calls fn for every session of a state dir's report,
// in its order, with a JSONL file of it: a SQLite session's rows exported
// to a temporary file (removed when fn returns; header first, seq order, as
// `oc inspect KEY` reads them), a JSONL transcript awaiting import as its
// own file. what names the work on the progress line. Sessions that cannot
// be read are passed over; so is the rest once ctx is done.
func eachReportedSession(ctx context.Context, g *Globals, st *store.State, rep *store.SQLiteReport, what string, fn func(i int, s *store.SessionReport, ses store.Session, path string)) {
	sessions, _ := st.SQLiteSessions(ctx)
	byID := map[string]store.Session{}
	for _, ses := range sessions {
		byID[ses.Agent+"\x00"+ses.ID] = ses
	}
	progress := cli.NewProgress(g.IO, what, len(rep.Sessions))
	defer progress.Done()
	for i, s := range rep.Sessions {
		progress.Add(1)
		if ctx.Err() != nil {
			return
		}
		if s.Summary == nil {
			continue // not read: its error is the report's
		}
		if s.Era == store.EraJSONL {
			fn(i, s, store.Session{Era: store.EraJSONL, Agent: s.Agent, ID: s.SessionID, Path: s.Path}, s.Path)
			continue
		}
		ses, ok := byID[s.Agent+"\x00"+s.SessionID]
		if !ok {
			continue
		}
		path, cleanup, err := st.ExportToTemp(ctx, ses)
		if err != nil {
			continue
		}
		fn(i, s, ses, path)
		cleanup()
	}
}

// sqliteOutlines reads the branches of every session of a state dir's
// report (--tree), in its order; nil marks one that could not be read.
func sqliteOutlines(ctx context.Context, g *Globals, st *store.State, rep *store.SQLiteReport) [][]*transcript.Segment {
	out := make([][]*transcript.Segment, len(rep.Sessions))
	eachReportedSession(ctx, g, st, rep, "drawing branches", func(i int, _ *store.SessionReport, _ store.Session, path string) {
		out[i], _ = transcript.OutlineFile(path, nil)
	})
	return out
}

// addSQLiteReplayFindings replays every SQLite session of a report
// (inspect --replay) and adds the replay findings to it and to its totals.
func addSQLiteReplayFindings(ctx context.Context, g *Globals, st *store.State, rep *store.SQLiteReport, rel policy.Release) {
	eachReportedSession(ctx, g, st, rep, "replaying", func(_ int, s *store.SessionReport, ses store.Session, path string) {
		if ses.Era != store.EraSQLite {
			return
		}
		more, _ := replay.ProviderFindings(path, rel, sessionRef(g, ses, st.Root))
		s.Summary.Findings = append(s.Summary.Findings, more...)
		for _, f := range more {
			rep.Totals.Findings[f.Severity]++
		}
	})
}

// sessionTable is the state-dir table of `oc inspect` on a SQLite store, one
// session a row.
var sessionTable = cli.Table{Columns: []cli.Column{
	{Title: "AGENT", Width: colAgent}, {Title: "SESSION KEY", Width: colName, Min: 24, CutMiddle: true}, {Title: "ID", Width: 13, Min: 13},
	{Title: "EVENTS", Width: 7, Right: true}, {Title: "MSGS", Width: 6, Right: true}, {Title: "SIZE", Width: 9, Right: true},
	{Title: "LAST ACTIVITY", Width: 16, Gap: 1}, {Title: "FINDINGS"},
}}

// tableWidth is the width a table fits on a terminal, 0 when stdout is
// piped (tables are then never cut).
func tableWidth(g *Globals) int {
	if !g.IO.IsStdoutTTY() {
		return 0
	}
	return g.IO.Width()
}

// sqliteAdvice rewrites a SQLite session's findings with the advice that is
// true for it (doctor.SQLiteAdvice): never `oc repair`, which does not
// write databases, but what 2026.9.6 does at read time or what to run.
func sqliteAdvice(fs []transcript.Finding) {
	for i := range fs {
		if !strings.Contains(fs[i].Message, "oc repair") && !strings.Contains(fs[i].Message, "Bedrock rejects") {
			continue
		}
		msg, fix := doctor.SQLiteAdvice(fs[i].Rule, fs[i].Message)
		fs[i].Message = msg + "; " + fix
	}
}
