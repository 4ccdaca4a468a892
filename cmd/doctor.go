package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/openclaw-tools/oc/internal/cireport"
	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/shellquote"
	"github.com/openclaw-tools/oc/pkg/doctor"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

type doctorOptions struct {
	Fix            bool
	Yes            bool
	NonInteractive bool
	Force          bool
	NoTranscripts  bool
	Format         *string
	FailOn         string
	AllFindings    bool
	// format and failOn are --format and --fail-on, read.
	format cireport.Format
	failOn cireport.Level
}

func newDoctorCmd(g *Globals) *cobra.Command {
	o := &doctorOptions{}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check an OpenClaw install; with --fix, migrate session-bound cron jobs and fix what is safe",
		Long: `oc doctor checks an OpenClaw state directory before and after an upgrade:
the storage era (JSONL, SQLite or mid-upgrade) and layout, the cron store, sessions.json
against the transcript files, stale locks and leftover temp files, transcripts
that 'oc repair --check' would change, and transcript-ownership problems.

Cron jobs with sessionTarget "session:<key>" are classified IN_CHAT (they
deliver to <key>'s chat: left alone), ELSEWHERE (they deliver to another chat
or a webhook) or UNDECIDABLE (reported, left alone). --fix moves ELSEWHERE jobs
to background sessions: sessionTarget "isolated" with the delivery they had
made explicit; schedule, state and next run time are kept. Every changed file
is backed up first as <file>.pre-oc-doctor.<UTC stamp>, and a report
doctor-session-target-migration-<stamp>.json is written beside the store.

Without --fix nothing is written. Writing needs --fix on the command line
(config files and OC_* variables cannot turn it on) and, when there is no
terminal to ask on, --yes. --fix refuses to write while the OpenClaw gateway
runs (its lock in any user's $TMPDIR/openclaw-<uid> or /tmp/openclaw-<uid>,
or a live session lock) unless --force. jobs.json is replaced only if it
still holds what doctor read (another writer's change is never overwritten),
keeping its owner and mode. SOURCE_DATE_EPOCH, when set, fixes the clock used
for timestamps and names.

On a SQLite-era install (cron jobs in SQLite since OpenClaw 2026.6.1,
sessions since 2026.8.1) the report is the same: the sessions of the agent
databases and the cron_jobs rows are checked and reported in the same lists
as JSONL ones, each naming its store. The cron fixes are OpenClaw
commands (oc never writes SQL): --fix runs them through the openclaw on PATH,
pointed at this state dir (OPENCLAW_STATE_DIR, OPENCLAW_CONFIG_PATH; the
variables that would pick another install or gateway are not passed on), and
edits a job only after the gateway openclaw reaches has shown that it serves
this state dir and holds the job as doctor read it. Each job's fix is fixed,
failed, refused (with the reason) or not run; any but fixed exits 3.

--fail-on error|warning|info|never says which findings exit 1 (default
warning); --format sarif|junit|github writes the report for CI systems
(--json is --format json).`,
		Example: `  oc doctor                 # check only; exit 1 when something needs attention
  oc doctor --fix --yes     # apply the safe fixes without asking
  oc doctor --json          # one JSON document`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDoctor(cmd, g, o) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.Fix, "fix", false, "apply the fixes that are safe (default: check only, write nothing)")
	f.BoolVar(&o.Fix, "repair", false, "alias of --fix (OpenClaw's spelling)")
	f.BoolVarP(&o.Yes, "yes", "y", false, "with --fix, do not ask for confirmation (needed when stdin is not a terminal)")
	f.BoolVar(&o.NonInteractive, "non-interactive", false, "never prompt (with --fix, also pass --yes to write)")
	f.BoolVar(&o.Force, "force", false, "write even while the OpenClaw gateway is running")
	f.BoolVar(&o.NoTranscripts, "no-transcripts", false, "skip the transcript checks (repair and ownership scans)")
	f.BoolVar(&o.AllFindings, "all-findings", false, "list every finding (default: at most 3 of one id in a check, errors first, with the count of the others)")
	o.Format = addFormatFlag(cmd)
	addFailOnFlag(cmd, &o.FailOn, cireport.LevelWarning, "by default a warning or an error exits 1")
	addFilterFlags(cmd, g)
	_ = f.MarkHidden("repair")
	return cmd
}

// docWriteFlags are the flags that let doctor write. They count only when
// given on the command line: a config key (doctor.fix) or OC_DOCTOR_FIX set
// them through configure, which does not mark them changed.
var docWriteFlags = []string{"fix", "repair", "yes", "non-interactive", "force"}

func runDoctor(cmd *cobra.Command, g *Globals, o *doctorOptions) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	w := doctorWriteFlags(cmd, g, o)
	var err error
	if o.format, o.failOn, err = readGateFlags(g, *o.Format, o.FailOn); err != nil {
		return err
	}
	g.tuneGCForStreaming(gcLimitRepair)
	opts, filter, err := doctorRunOptions(g, o, w.force)
	if err != nil {
		return err
	}
	interactive, err := doctorAsks(g, w, o.format.Machine())
	if err != nil {
		return err
	}
	opts.Fix = w.fix && !interactive
	rep, err := doctor.Run(ctx, opts)
	if err != nil {
		return cli.Incomplete(err)
	}
	markSkipped(rep, o, filter)
	if interactive {
		// The cron fixes of a SQLite-era install count too: they are what
		// --fix runs through openclaw.
		var checked *sqliteDoctor
		if rep.Era == doctor.EraSQLite {
			if checked, err = runSQLiteDoctor(ctx, g, false); err != nil {
				return cli.Incomplete(err)
			}
		}
		foldInstall(rep, checked, filter)
		n := docCountFixable(rep) + checked.cronFixes()
		if n > 0 {
			renderDoctorWith(g.IO, rep, checked, o.AllFindings)
			if !docConfirm(g.IO, fmt.Sprintf("Apply %s now? [y/N] ", plural(n, "fix"))) {
				fmt.Fprintln(g.IO.Out, "Nothing changed.")
				return doctorExit(rep, checked, o.failOn)
			}
			opts.Fix = true
			if rep, err = doctor.Run(ctx, opts); err != nil {
				return cli.Incomplete(err)
			}
			markSkipped(rep, o, filter)
		} else {
			// nothing to ask about: the report checked is the report
			return writeDoctorReport(g, o, rep, checked)
		}
	}
	var sd *sqliteDoctor
	if rep.Era == doctor.EraSQLite {
		if sd, err = runSQLiteDoctor(ctx, g, opts.Fix); err != nil {
			return cli.Incomplete(err)
		}
	}
	foldInstall(rep, sd, filter)
	return writeDoctorReport(g, o, rep, sd)
}

// foldInstall makes the report one report of the install: the SQLite
// part's findings and cron jobs join the JSONL ones, and --agent/--since
// apply to every item.
func foldInstall(rep *doctor.Report, sd *sqliteDoctor, filter transcript.Filter) {
	scope := doctor.Scope{Agent: filter.Agent, Since: filter.Since}
	doctor.FoldSQLite(rep, sd.state(), scope)
	doctor.ScopeFindings(rep, scope)
	doctor.Recount(rep)
	markScope(rep, filter)
}

// doctorWrite is which of doctor's write flags are on; each counts only when
// given on the command line (docWriteFlags).
type doctorWrite struct {
	fix, yes, nonInteractive, force bool
}

// doctorWriteFlags reads the write flags given on the command line, and
// warns about those a config file or OC_* variable turned on.
func doctorWriteFlags(cmd *cobra.Command, g *Globals, o *doctorOptions) doctorWrite {
	flags := cmd.Flags()
	onCommandLine := func(names ...string) bool {
		for _, n := range names {
			if flags.Changed(n) {
				return true
			}
		}
		return false
	}
	var ignored []string
	for _, n := range docWriteFlags {
		if f := flags.Lookup(n); f != nil && !f.Changed && f.Value.String() == "true" && !f.Hidden {
			ignored = append(ignored, "doctor."+n)
		}
	}
	w := doctorWrite{
		fix:            o.Fix && onCommandLine("fix", "repair"),
		yes:            o.Yes && onCommandLine("yes"),
		nonInteractive: o.NonInteractive && onCommandLine("non-interactive"),
		force:          o.Force && onCommandLine("force"),
	}
	if len(ignored) > 0 {
		fmt.Fprintf(g.IO.ErrOut, "oc: ignoring %s from the config file or OC_* environment: writing needs --fix (and --yes without a terminal) on the command line\n", strings.Join(ignored, ", "))
	}
	return w
}

// doctorRunOptions are doctor's options (without Fix) for the state dir,
// and the --agent/--since filter of the transcript checks.
func doctorRunOptions(g *Globals, o *doctorOptions, force bool) (doctor.Options, transcript.Filter, error) {
	// An absolute state dir: the migration report and the JSON report name
	// files by absolute paths, valid wherever they are read from.
	stateDir, err := filepath.Abs(g.ResolvedStateDir())
	if err != nil {
		return doctor.Options{}, transcript.Filter{}, cli.Incomplete(err)
	}
	opts := doctor.Options{
		StateDir: stateDir,
		Force:    force,
		Env:      g.env,
		Now:      docClockFromEnv(g.env),
	}
	filter, err := g.fileFilter()
	if err != nil {
		return doctor.Options{}, transcript.Filter{}, err
	}
	if !o.NoTranscripts {
		opts.Transcripts = []doctor.TranscriptCheck{filteredCheck(doctor.RepairCheck, filter), filteredCheck(doctor.OwnershipCheck, filter), filteredCheck(doctor.UpgradeCheck, filter)}
	}
	return opts, filter, nil
}

// doctorAsks reports whether --fix asks before writing (no --yes); a usage
// error when there is no one to ask.
func doctorAsks(g *Globals, w doctorWrite, machine bool) (bool, error) {
	if !w.fix || w.yes {
		return false, nil
	}
	switch {
	case w.nonInteractive:
		return false, cli.Usagef("--fix with --non-interactive writes nothing without --yes: add --yes to apply the fixes")
	case g.JSON || machine:
		return false, cli.Usagef("--fix with --json or --format cannot ask for confirmation: add --yes to apply the fixes")
	case !docStdinIsTerminal(g.IO.In):
		return false, cli.Usagef("--fix needs --yes when stdin is not a terminal (nothing to ask on): add --yes to apply the fixes")
	}
	return true, nil
}

// writeDoctorReport prints the report (JSON or text) with its SQLite
// section, and returns doctor's exit.
func writeDoctorReport(g *Globals, o *doctorOptions, rep *doctor.Report, sd *sqliteDoctor) error {
	if o.format.Machine() {
		if err := writeCIReport(g, o.format, rep.CIReport(o.failOn)); err != nil {
			return cli.Incomplete(err)
		}
	} else if g.JSON {
		if err := writeJSON(g.IO, rep); err != nil {
			return cli.Incomplete(err)
		}
	} else {
		renderDoctorWith(g.IO, rep, sd, o.AllFindings)
	}
	return doctorExit(rep, sd, o.failOn)
}

// doctorExit is doctor's exit for the report and its SQLite section.
func doctorExit(rep *doctor.Report, sd *sqliteDoctor, failOn cireport.Level) error {
	err := docExitForDoctor(rep, failOn)
	if cli.CodeOf(err) == cli.ExitIncomplete || sd == nil {
		return err
	}
	if run := sd.Cron.Fix; run.NotApplied() > 0 {
		return cli.Incomplete(errors.New(cronFixError(run, sd.Cron.Jobs)))
	}
	return err
}

// cronFixError is the one-line error of a --fix run that left cron fixes
// unapplied (contract: a fix that failed or was refused exits 3).
func cronFixError(run *doctor.CronFixRun, jobs []doctor.SQLiteCronJob) string {
	msg := fmt.Sprintf("%d of %s not applied (%s)", run.NotApplied(), plural(run.Fixed+run.NotApplied(), "cron fix"), cronFixCounts(run))
	if run.Problem != "" {
		return msg + ": " + run.Problem
	}
	for _, j := range jobs {
		if j.Fix != nil && j.Fix.Outcome != doctor.CronFixFixed && j.Fix.Reason != "" {
			return msg + ": job " + j.ID + ": " + j.Fix.Summary()
		}
	}
	return msg
}

// docExitForDoctor is doctor's exit code (contract §5, oc help exit-codes):
// 11 when --fix refused to write because the gateway runs; 3 when doctor
// could not complete (a fix that failed,
// a store or folder it could not read or parse); in check mode 1 when a
// warning or error remains; with --fix 0 once every fixable finding is
// fixed, even when findings only a person can resolve remain (they are
// listed, and a later check run exits 1 on them).
func docExitForDoctor(rep *doctor.Report, failOn cireport.Level) error {
	if rep.Refused != "" {
		// the only refusal: --fix while the gateway runs (busy, retry later)
		return cli.Busy(errors.New(rep.Refused))
	}
	if rep.Interrupted != "" {
		return cli.Incomplete(errors.New(rep.Interrupted))
	}
	for _, f := range rep.Findings {
		if !f.Fixed && docIncomplete(f) {
			msg := oneLine(f.Message)
			if f.Path != "" && !strings.Contains(msg, f.Path) {
				msg = f.Path + ": " + msg
			}
			return cli.Incomplete(errors.New(msg))
		}
	}
	if rep.Mode == "fix" {
		if docCountFixable(rep) > 0 {
			return cli.Incomplete(fmt.Errorf("%d fixable %s not fixed", docCountFixable(rep), pluralWord(docCountFixable(rep), "finding")))
		}
		return nil
	}
	if rep.Fails(failOn) {
		return cli.Exit(cli.ExitFindings, nil)
	}
	return nil
}

// docIncomplete: a finding that means a check could not be done (a file
// doctor could not read or parse) or a fix failed: exit 3, not 1.
func docIncomplete(f doctor.Finding) bool {
	if strings.HasSuffix(f.ID, "-unreadable") || strings.HasSuffix(f.ID, "-failed") {
		return true // a permission or I/O error: whatever its severity, a check did not run
	}
	if f.Severity != doctor.SevError {
		return false
	}
	for _, suffix := range []string{"-invalid-json", "-not-a-file", "-too-large", "-invalid"} {
		if strings.HasSuffix(f.ID, suffix) {
			return true
		}
	}
	return f.ID == "cron-store-shape"
}

// markSkipped shows the transcript check as skipped under --no-transcripts
// (a check that did not run is not a ✓).
func markSkipped(rep *doctor.Report, o *doctorOptions, _ transcript.Filter) {
	if !o.NoTranscripts {
		return
	}
	rep.NoTranscripts = true
}

// markScope says, on the checks, what they covered: skipped under
// --no-transcripts, and under --agent or --since which transcripts (a ✓
// for one agent is not one for the state dir). The checks are recomputed
// from the findings, so this runs last.
func markScope(rep *doctor.Report, filter transcript.Filter) {
	if !rep.NoTranscripts && filter.IsZero() {
		return
	}
	for i := range rep.Checks {
		if rep.Checks[i].Section != doctor.SectionTranscripts {
			continue
		}
		if rep.NoTranscripts {
			rep.Checks[i].Status = "skipped"
			rep.Checks[i].Detail = "skipped (--no-transcripts)"
			continue
		}
		scope := "only transcripts" + filter.Describe()
		if rep.Checks[i].Detail != "" {
			scope += "; " + rep.Checks[i].Detail
		}
		rep.Checks[i].Detail = scope
	}
}

// filteredCheck keeps the findings of a transcript check for the
// transcripts --agent and --since select.
func filteredCheck(check doctor.TranscriptCheck, filter transcript.Filter) doctor.TranscriptCheck {
	if filter.IsZero() {
		return check
	}
	return func(stateDir string) ([]doctor.Finding, error) {
		fs, err := check(stateDir)
		kept := fs[:0:0]
		for _, f := range fs {
			if f.Path == "" || filter.Keep(transcript.File{Path: f.Path, Agent: agentOfPath(f.Path)}) {
				kept = append(kept, f)
			}
		}
		return kept, err
	}
}

// agentOfPath is the agent id of .../agents/<id>/sessions/<file> ("" otherwise).
func agentOfPath(p string) string {
	dir := filepath.Dir(p)
	if filepath.Base(dir) != "sessions" || filepath.Base(filepath.Dir(filepath.Dir(dir))) != "agents" {
		return ""
	}
	return filepath.Base(filepath.Dir(dir))
}

func docCountFixable(rep *doctor.Report) int {
	n := 0
	for _, f := range rep.Findings {
		if f.Fixable && !f.Fixed {
			n++
		}
	}
	return n
}

func docClockFromEnv(env func(string) string) func() time.Time {
	if s := env("SOURCE_DATE_EPOCH"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			t := time.Unix(n, 0).UTC()
			return func() time.Time { return t }
		}
	}
	return time.Now
}

func docStdinIsTerminal(in io.Reader) bool {
	f, ok := in.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func docConfirm(ios *cli.IOStreams, prompt string) bool {
	fmt.Fprint(ios.Out, prompt)
	line, _ := bufio.NewReader(ios.In).ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}

// ---------------------------------------------------------------- rendering

// renderDoctorWith prints the report and, on a SQLite-era install, the SQLite
// section (sd) before the summary, so that the summary counts it too.
func renderDoctorWith(ios *cli.IOStreams, rep *doctor.Report, sd *sqliteDoctor, all bool) {
	st := ios.Styles()
	w := ios.Out
	width := ios.Width()
	if width < 40 {
		width = 40
	}
	mode := "check only, nothing written"
	if rep.Mode == "fix" {
		mode = "fix"
	}
	fmt.Fprintf(w, "%s %s\n", st.Title.Render("oc doctor"), st.Dim.Render("("+mode+")"))
	fmt.Fprintf(w, "%s\n\n", st.Dim.Render(cli.Safe(rep.StateDir)))

	docRenderChecks(w, st, rep, width, all)
	docRenderSessionJobs(w, st, rep, width)
	if migrated := docCountMigrated(rep); migrated > 0 || len(rep.Changes) > 0 {
		docRenderChanges(w, st, rep, migrated, width)
	} else if rep.Mode == "check" {
		docRenderPlannedMigration(w, st, rep, width)
	}

	var cronFix *doctor.CronFixRun
	if sd != nil {
		renderSQLiteDoctor(ios, rep, sd)
		cronFix = sd.Cron.Fix
	}
	fmt.Fprintln(w)
	docWriteWrapped(w, "", "", docSummaryLine(st, rep, cronFix), width)
	if why, next := docNextCommand(rep); next != "" {
		// The command on a line of its own, unstyled and never wrapped, so
		// that it can be copied and pasted.
		fmt.Fprintf(w, "Next: %s:\n  %s\n", why, cli.Safe(next))
	}
}

// docCheckMark is the mark in front of a check with this status.
func docCheckMark(st *cli.Styles, status string) string {
	switch status {
	case "ok":
		return st.OK.Render("[✓]")
	case doctor.SevInfo:
		return st.Dim.Render("[i]")
	case doctor.SevWarning:
		return st.Warn.Render("[!]")
	case "skipped":
		return st.Dim.Render("[-]")
	default:
		return st.Error.Render("[✗]")
	}
}

// docRenderChecks writes each check with its findings under it.
func docRenderChecks(w io.Writer, st *cli.Styles, rep *doctor.Report, width int, all bool) {
	for _, c := range rep.Checks {
		line := fmt.Sprintf("%s %s", docCheckMark(st, c.Status), st.Bold.Render(c.Section))
		if c.Detail != "" {
			line += st.Dim.Render(" · " + cli.Safe(c.Detail))
		}
		fmt.Fprintln(w, line)
		shown, hidden, order := map[string]int{}, map[string]int{}, []string{}
		for _, f := range doctor.SortBySeverity(rep.Findings) {
			if f.Section != c.Section {
				continue
			}
			// many findings of one id (a rule over many sessions): the
			// first few, then their count; errors come first
			if shown[f.ID] == docFindingsPerID && !all {
				if hidden[f.ID] == 0 {
					order = append(order, f.ID)
				}
				hidden[f.ID]++
				continue
			}
			shown[f.ID]++
			sev := f.Severity
			if f.Fixed {
				sev = "fixed"
			}
			head := fmt.Sprintf("%s %s: ", docBullet(st, sev), cli.Safe(f.ID))
			docWriteWrapped(w, "    ", "      ", head+cli.Safe(f.Message+docPathSuffix(f, rep.StateDir)), width)
			if !f.Fixed && f.Fix != "" && f.Severity != doctor.SevInfo {
				docWriteWrapped(w, "      ", "        ", st.Dim.Render("fix: ")+cli.Safe(f.Fix), width)
			}
		}
		for _, id := range order {
			docWriteWrapped(w, "    ", "      ", st.Dim.Render(fmt.Sprintf("… and %d more %s (--all-findings lists them, --json has them all)", hidden[id], cli.Safe(id))), width)
		}
	}
}

// docFindingsPerID is how many findings of one id a check lists without
// --all-findings.
const docFindingsPerID = 3

// docRenderSessionJobs writes the cron section: every session:<key> job and
// its verdict.
func docRenderSessionJobs(w io.Writer, st *cli.Styles, rep *doctor.Report, width int) {
	var session []doctor.CronJob
	for _, j := range rep.Cron.Jobs {
		if j.Classification != nil && !strings.HasSuffix(j.Store, ".sqlite") { // SQLite jobs: renderSQLiteDoctor
			session = append(session, j)
		}
	}
	if len(session) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n", st.Heading.Render("Cron jobs with sessionTarget session:<key>"))
	for _, j := range session {
		cls := string(*j.Classification)
		styled := st.OK.Render(fmt.Sprintf("%-11s", cls))
		switch *j.Classification {
		case doctor.Elsewhere:
			styled = st.Warn.Render(fmt.Sprintf("%-11s", cls))
		case doctor.Undecidable:
			styled = st.Error.Render(fmt.Sprintf("%-11s", cls))
		}
		state := ""
		switch {
		case j.Migrated:
			state = " → migrated"
		case j.Pending:
			state = " → --fix migrates it"
		case j.Blocked != "":
			state = " → not migrated"
		}
		dis := ""
		if !j.Enabled {
			dis = " [disabled]"
		}
		docWriteWrapped(w, "  "+styled+" ", "              ", cli.Safe(fmt.Sprintf("%s %s (%s)%s%s", docQuoteName(j.Name), docShortID(j.ID), *j.Reason, dis, state)), width)
	}
}

// docCountMigrated counts the cron jobs the run migrated.
func docCountMigrated(rep *doctor.Report) int {
	migrated := 0
	for _, j := range rep.Cron.Jobs {
		if j.Migrated {
			migrated++
		}
	}
	return migrated
}

// docRenderChanges writes what the run changed: the migrated cron jobs,
// then every other file written, backed up, renamed or removed.
func docRenderChanges(w io.Writer, st *cli.Styles, rep *doctor.Report, migrated, width int) {
	fmt.Fprintf(w, "\n%s\n", st.Heading.Render("Doctor changes"))
	if migrated > 0 {
		docWriteWrapped(w, "  ", "  ", cli.Safe(fmt.Sprintf("Migrated %s to background sessions at %s.", plural(migrated, "cron job"), docRel(rep.Cron.Store, rep.StateDir))), width)
		for _, j := range rep.Cron.Jobs {
			if !j.Migrated || j.Migration == nil {
				continue
			}
			m := j.Migration
			docWriteWrapped(w, "  - ", "    ", cli.Safe(fmt.Sprintf("%s (%s): %s → %s, delivers to %s", docQuoteName(m.Name), m.ID, m.OldSessionTarget, m.NewSessionTarget, docRouteText(m.Route))), width)
			docWriteWrapped(w, "    ", "    ", st.Dim.Render(cli.Safe(m.ContextLoss+docRemovedKeyNote(m))), width)
		}
	}
	for _, c := range rep.Changes {
		if c.Action == "write" && c.Path == rep.Cron.Store {
			continue // said by the "Migrated …" line
		}
		label := map[string]string{"backup": "Backup", "report": "Report", "remove": "Removed", "rename": "Renamed", "write": "Wrote"}[c.Action]
		text := fmt.Sprintf("%s: %s", label, docRel(c.Path, rep.StateDir))
		if c.Detail != "" && c.Action != "write" {
			text += " (" + c.Detail + ")"
		}
		docWriteWrapped(w, "  ", "    ", cli.Safe(text), width)
	}
}

// docRenderPlannedMigration writes, in check mode, the cron migrations
// --fix would make.
func docRenderPlannedMigration(w io.Writer, st *cli.Styles, rep *doctor.Report, width int) {
	if docCountFixable(rep) <= 0 {
		return
	}
	var lines []string
	for _, j := range rep.Cron.Jobs {
		if j.Pending && j.Migration != nil {
			lines = append(lines, cli.Safe(fmt.Sprintf("%s (%s): %s → isolated, delivers to %s", docQuoteName(j.Name), j.ID, *j.SessionTarget, docRouteText(j.Migration.Route))))
		}
	}
	if len(lines) > 0 {
		fmt.Fprintf(w, "\n%s\n", st.Heading.Render("Planned cron migration"))
		for _, l := range lines {
			docWriteWrapped(w, "  - ", "    ", l, width)
		}
	}
}

func docBullet(st *cli.Styles, sev string) string {
	switch sev {
	case doctor.SevError:
		return st.Error.Render("✗")
	case doctor.SevWarning:
		return st.Warn.Render("!")
	case "fixed":
		return st.OK.Render("✓")
	default:
		return st.Dim.Render("·")
	}
}

func docPathSuffix(f doctor.Finding, stateDir string) string {
	if f.Path == "" || strings.Contains(f.Message, f.Path) {
		return ""
	}
	return " [" + docRel(f.Path, stateDir) + "]"
}

func docRel(p, base string) string {
	if r, err := filepath.Rel(base, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

func docQuoteName(n string) string {
	if n == "" {
		return "(unnamed)"
	}
	return strconv.Quote(n)
}

func docShortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	if id == "" {
		return "(no id)"
	}
	return id
}

func docRouteText(r doctor.Route) string {
	if r.Channel == "webhook" {
		return "webhook " + r.To
	}
	return r.String()
}

func docRemovedKeyNote(m *doctor.Migration) string {
	if m.RemovedSessionKey != "" {
		return "; sessionKey (equal to the key) removed"
	}
	return ""
}

// docSummaryLine is the last line: the counts of findings, the cron fixes
// run through openclaw (cronFix, nil when none ran), and the SQLite
// section's problems.
func docSummaryLine(st *cli.Styles, rep *doctor.Report, cronFix *doctor.CronFixRun) string {
	var errs, warns, infos, fixed int
	for _, f := range rep.Findings {
		switch {
		case f.Fixed:
			fixed++
		case f.Severity == doctor.SevError:
			errs++
		case f.Severity == doctor.SevWarning:
			warns++
		default:
			infos++
		}
	}
	parts := []string{}
	if fixed > 0 {
		parts = append(parts, st.OK.Render(fmt.Sprintf("%d fixed", fixed)))
	}
	parts = append(parts, docCountWord(st.Error, errs, "error"), docCountWord(st.Warn, warns, "warning"), fmt.Sprintf("%d note%s", infos, docPlural(infos)))
	if cronFix != nil {
		text := "cron fixes: " + cronFixCounts(cronFix)
		if cronFix.NotApplied() > 0 {
			text = st.Error.Render(text)
		}
		parts = append(parts, text)
	}
	head := st.OK.Render("Doctor: no issues found.")
	if errs+warns > 0 {
		head = st.Warn.Render("Doctor found issues.")
	} else if fixed > 0 {
		head = st.OK.Render("Doctor: fixed everything it could.")
	}
	if cronFix.NotApplied() > 0 {
		head = st.Error.Render("Doctor could not apply every fix.")
	}
	if rep.Refused != "" {
		head = st.Error.Render("Doctor refused to write: the gateway is running.")
	}
	if rep.Interrupted != "" {
		head = st.Error.Render("Doctor was interrupted: " + rep.Interrupted + ".")
	}
	return head + " " + strings.Join(parts, ", ") + "."
}

func docCountWord(s interface{ Render(...string) string }, n int, word string) string {
	t := fmt.Sprintf("%d %s%s", n, word, docPlural(n))
	if n == 0 {
		return t
	}
	return s.Render(t)
}

func docPlural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// docNextCommand is what to run next and why ("" when nothing is left).
func docNextCommand(rep *doctor.Report) (why, command string) {
	state := ""
	if rep.StateDir != "" {
		state = " --state-dir " + shellquote.Quote(rep.StateDir)
	}
	if rep.Refused != "" {
		return "stop the gateway, then fix", "openclaw gateway stop && oc doctor --fix" + state
	}
	if rep.Mode == "check" && docCountFixable(rep) > 0 {
		return "apply the fixes", "oc doctor --fix" + state
	}
	var warns, errs int
	for _, f := range rep.Findings {
		if f.Fixed || f.Severity == doctor.SevInfo {
			continue
		}
		if f.ID == "transcript-needs-repair" {
			return "repair the transcripts", "oc repair" + state
		}
		if f.Severity == doctor.SevError {
			errs++
		} else {
			warns++
		}
	}
	if errs+warns == 0 {
		return "", ""
	}
	what := "the warnings"
	switch {
	case errs > 0 && warns > 0:
		what = "the errors and warnings"
	case errs > 0:
		what = "the errors"
	}
	if errs+warns == 1 {
		what = strings.TrimSuffix(what, "s")
	}
	return "resolve " + what + " above by hand, then check again", "oc doctor" + state
}

// writeWrapped writes text word-wrapped to width; first and rest are the
// indents of the first and following lines. Styled (ANSI) runs count as
// their visible width.
func docWriteWrapped(w io.Writer, first, rest, text string, width int) {
	indent := first
	line := indent
	lineLen := docVisibleLen(indent)
	empty := true
	for _, word := range strings.Fields(text) {
		wl := docVisibleLen(word)
		if !empty && lineLen+1+wl > width {
			fmt.Fprintln(w, line)
			indent = rest
			line, lineLen, empty = indent, docVisibleLen(indent), true
		}
		if !empty {
			line += " "
			lineLen++
		}
		line += word
		lineLen += wl
		empty = false
	}
	fmt.Fprintln(w, line)
}

func docVisibleLen(s string) int {
	n, esc := 0, false
	for _, r := range s {
		switch {
		case r == '\x1b':
			esc = true
		case esc:
			if (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
				esc = false
			}
		default:
			n++
		}
	}
	return n
}
