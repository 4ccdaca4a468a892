package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/pkg/gatewaylock"
	"github.com/openclaw-tools/oc/pkg/repair"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/transcript"
	"github.com/openclaw-tools/oc/pkg/upgrade"
)

type repairOptions struct {
	Check           bool
	DryRun          bool
	Undo            bool
	Rules           string
	BackupDir       string
	CompressBackups bool
	Jobs            int
	Wait            time.Duration
	BreakStaleLocks bool
	Force           bool
	Verbose         bool
	Format          *string
	PruneBackups    bool
	OlderThan       string
}

func newRepairCmd(g *Globals) *cobra.Command {
	opts := &repairOptions{}
	cmd := &cobra.Command{
		Use:   "repair [PATH|SESSION...]",
		Short: "Repair damaged session transcripts, losslessly and crash-safely",
		Long: `Repair session transcripts in place: a transcript file, a sessions folder or a
state dir (default: the state dir). A SESSION (a key such as agent:main:main,
a session id or a unique prefix) names its JSONL transcript, such as one
awaiting OpenClaw's import into SQLite. A SQLite session (OpenClaw 2026.8.1+)
is OpenClaw's and is never written: repair refuses it in one line that says
what to run instead (oc export SESSION to take it out as JSONL, openclaw
doctor --fix for OpenClaw's own repairs), and exits 3.

The default rules are OpenClaw 2026.5.6's (drop lines that do not parse, give
empty assistant error turns a text, replace blank user text), the rules later
OpenClaw releases added, and oc's own: entries glued on one line or hidden
behind garbage are salvaged, a damaged header is rebuilt, and entries whose
parent was lost are re-linked so the conversation keeps its history.
--rules openclaw-2026.5.6 applies exactly that release's rules. See
'oc help repair-rules'.

Nothing is lost: the original is kept as <file>.bak-oc-<stamp> and every
dropped or rewritten line goes to <file>.rejected-<stamp> (JSONL) with its line
number and the reason; a manifest beside the backup records the file it
belongs to and the digests --undo checks. Untouched lines are copied byte for byte. The gateway's
<file>.lock is honoured; the file is replaced atomically (fsync, rename, fsync
of the folder) with its mode and owner. A second run changes nothing.

--check only reports, and exits 1 when a file needs repair (for CI); a file
whose lock a live gateway holds is not read and the exit is 11 (busy, retry
later). --format sarif|junit|github writes the report for CI systems (SARIF
2.1.0 for code scanning, JUnit XML test reports, GitHub workflow-command
annotations); see docs/ci-gates.md.

A run that changes files in the state dir (or uses --backup-dir) records
them in a run manifest in the folder .oc-repair-runs of the state dir (or
of --backup-dir): --undo without FILE undoes the newest run, every file it
changed, each with --undo FILE's checks.
--prune-backups --older-than 30d removes the backups, manifests,
quarantine files and run records repairs made more than 30 days ago (by
the stamp in their names), and only those: it lists them first, and
--dry-run only lists them.`,
		Example: `  oc repair --check                         # CI gate over the default state dir
  oc repair --check --format github         # the same, as GitHub Actions annotations
  oc repair --check --format sarif > oc.sarif
  oc repair ~/.openclaw/agents/main/sessions/0197a3c2-....jsonl
  oc repair --dry-run --state-dir /srv/openclaw
  oc repair --rules openclaw-2026.5.6 --json sessions/
  oc repair --undo sessions/0197a3c2-....jsonl
  oc repair --undo                          # undo the newest run over the state dir
  oc repair --prune-backups --older-than 30d --dry-run`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRepair(cmd.Context(), g, opts, args)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.Check, "check", false, "only report; exit 1 when a file needs repair (never writes)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "print what would change, line by line, without writing")
	f.BoolVar(&opts.Undo, "undo", false, "restore each FILE from its newest oc backup; without FILE, undo the newest repair run")
	f.StringVar(&opts.Rules, "rules", string(repair.RuleSetAll), "rule set: all, or openclaw-2026.5.6 (exactly that release's repair)")
	f.StringVar(&opts.BackupDir, "backup-dir", "", "put backups and quarantine files in DIR instead of beside each file")
	f.BoolVar(&opts.CompressBackups, "compress-backups", false, "zstd-compress backups (<file>.bak-oc-<stamp>.zst)")
	f.IntVar(&opts.Jobs, "jobs", 0, "files processed at once (default: number of CPUs)")
	f.DurationVar(&opts.Wait, "wait", 0, "wait up to DURATION for a live gateway lock to go away instead of reporting the file busy (exit 11)")
	f.BoolVar(&opts.Force, "force", false, "with --undo: restore even if FILE changed since the repair (its current content is backed up first)")
	f.BoolVarP(&opts.Verbose, "verbose", "v", false, "also list the files that need nothing")
	opts.Format = addFormatFlag(cmd)
	addFilterFlags(cmd, g)
	registerRepairCompletions(cmd)
	f.BoolVar(&opts.BreakStaleLocks, "break-stale-locks", false, "remove stale <file>.lock files (dead or recycled pid, older than 30 min)")
	f.BoolVar(&opts.PruneBackups, "prune-backups", false, "remove oc's backups, manifests, quarantine files and run records older than --older-than (listed first; --dry-run only lists)")
	f.StringVar(&opts.OlderThan, "older-than", "", "with --prune-backups: an age such as 30d, 2w or 36h")
	// Removing files is asked for on the command line, never by a config
	// file or an OC_* variable that would turn every repair into a prune.
	for _, name := range []string{"prune-backups", "older-than"} {
		_ = f.SetAnnotation(name, noConfigAnnotation, []string{"true"})
	}
	return cmd
}

// newRepairRulesTopic is `oc help repair-rules`, built from the registry.
func newRepairRulesTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "repair-rules",
		Short: "The rules oc repair applies, where each comes from and why",
		Long:  repairRulesHelp(),
	}
}

func repairRulesHelp() string {
	var b strings.Builder
	b.WriteString("oc repair applies these rules, in this order. Rule sets:\n\n")
	fmt.Fprintf(&b, "  %-20s every rule below (the default)\n", repair.RuleSetAll)
	fmt.Fprintf(&b, "  %-20s exactly OpenClaw 2026.5.6's repairSessionFileIfNeeded (rules marked *)\n\n", repair.RuleSetOpenClaw)
	for _, r := range repair.Rules() {
		mark := " "
		if r.InOpenClaw {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s %s  [%s, %s]\n    %s\n\n", mark, r.ID, r.Origin, r.Scope, r.Reason)
	}
	b.WriteString(`With the 2026.5.6 rule set a file whose first entry is not a valid session
header is left alone ("invalid session header"), as OpenClaw does; the default
set rebuilds the header instead (OpenClaw would otherwise start the session
over and overwrite the file with a fresh header on its next open).`)
	return b.String()
}

func runRepair(ctx context.Context, g *Globals, opts *repairOptions, args []string) error {
	g.tuneGCForStreaming(gcLimitRepair)
	set, err := repairRuleSet(opts, args)
	if err != nil {
		return err
	}
	filter, err := g.fileFilter()
	if err != nil {
		return err
	}
	format, err := resolveFormat(g, *opts.Format)
	if err != nil {
		return err
	}
	if opts.Undo && format.Machine() {
		return cli.Usagef("--format %s reports a check or a repair; --undo prints text or --json", format)
	}
	apply := repair.ApplyOptions{
		Options:   repair.Options{Rules: set},
		BackupDir: opts.BackupDir,
		Compress:  opts.CompressBackups,
		Lock:      gatewaylock.LockOptions{Wait: opts.Wait, BreakStale: opts.BreakStaleLocks},
		Force:     opts.Force,
	}
	if opts.PruneBackups {
		return runPrune(ctx, g, opts, args)
	}
	if opts.Undo {
		return runUndo(ctx, g, args, apply)
	}
	paths, err := repairPaths(ctx, g, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		paths = []string{g.ResolvedStateDir()}
	}
	files, err := transcript.Discover(paths, false)
	if err != nil {
		return cli.Incomplete(describeInputError(err))
	}
	files, err = filter.Apply(files)
	if err != nil {
		return cli.Incomplete(err)
	}
	if len(files) == 0 {
		if g.JSON {
			return writeJSON(g.IO, repair.Run(ctx, nil, repair.RunOptions{}))
		}
		if format.Machine() {
			return writeCIReport(g, format, repairCIReport(repair.Run(ctx, nil, repair.RunOptions{}), opts, set, opts.Check || opts.DryRun))
		}
		fmt.Fprintf(g.IO.Out, "no transcripts in %s%s: nothing to repair\n", cli.Safe(strings.Join(paths, ", ")), filter.Describe())
		return nil
	}
	doc, err := repairRun(ctx, g, opts, apply, files, runRecordDir(g, opts, len(args) == 0, files))
	if err != nil {
		return err
	}
	switch {
	case g.JSON:
		if err := writeJSON(g.IO, doc); err != nil {
			return err
		}
	case format.Machine():
		if err := writeCIReport(g, format, repairCIReport(doc, opts, set, opts.Check || opts.DryRun)); err != nil {
			return err
		}
	default:
		printRepairReport(g, opts, set, doc)
	}
	return repairExit(g, opts, doc)
}

// repairPaths resolves the SESSION arguments that are not paths (keys, ids,
// prefixes) to their JSONL transcripts; a SQLite session is refused in one
// line with what to run instead (exit 3), an ambiguous one is a usage error.
func repairPaths(ctx context.Context, g *Globals, args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, nil
	}
	st, err := store.Open(g.ResolvedStateDir(), store.Options{})
	if err != nil {
		return nil, cli.Incomplete(err)
	}
	paths, err := st.TranscriptFiles(ctx, args)
	var amb *store.AmbiguousError
	switch {
	case errors.As(err, &amb):
		return nil, cli.Exit(cli.ExitUsage, err)
	case err != nil:
		return nil, cli.Incomplete(err)
	}
	return paths, nil
}

// repairRuleSet checks repair's flags and arguments (usage errors) and
// returns the rule set --rules names.
func repairRuleSet(opts *repairOptions, args []string) (repair.RuleSet, error) {
	set, err := repair.ParseRuleSet(opts.Rules)
	if err != nil {
		return set, cli.Usagef("--rules %q: unknown rule set; want %s or %s", opts.Rules, repair.RuleSetAll, repair.RuleSetOpenClaw)
	}
	if opts.Check && opts.Undo {
		return set, cli.Usagef("--check and --undo cannot be combined")
	}
	if opts.Force && !opts.Undo {
		return set, cli.Usagef("--force only applies to --undo")
	}
	if err := pruneUsage(opts); err != nil {
		return set, err
	}
	if opts.Jobs < 0 {
		return set, cli.Usagef("--jobs %d: want 1 or more (0: one per CPU)", opts.Jobs)
	}
	for _, a := range args {
		if a == "-" {
			return set, cli.Usagef("repair needs a file: stdin (-) is read-only input (try: oc inspect -)")
		}
	}
	return set, nil
}

// repairRun repairs (or checks) files with a progress line: files done, or
// bytes read for one file.
func repairRun(ctx context.Context, g *Globals, opts *repairOptions, apply repair.ApplyOptions, files []transcript.File, recordIn string) (*repair.Report, error) {
	names := make([]string, len(files))
	explicit := map[string]bool{}
	for i, f := range files {
		names[i] = f.Path
		explicit[f.Path] = f.Explicit
	}
	// transcripts no sessions.json names: what OpenClaw 2026.8+'s import needs to recover them
	recovery, err := upgrade.RecoveryHints(names)
	if err != nil {
		return nil, cli.Incomplete(err)
	}
	progress := (*cli.Progress)(nil)
	fileDone := func() { progress.Add(1) }
	if len(files) > 1 {
		progress = cli.NewProgress(g.IO, "repair", len(files))
	} else if st, err := os.Stat(names[0]); err == nil {
		// One file: progress in bytes read.
		progress = cli.NewByteProgress(g.IO, "repair "+cli.Safe(filepath.Base(names[0])), st.Size(), 1)
		if progress != nil {
			apply.Options.Progress = func(n int) { progress.Add(n) }
		}
		fileDone = func() {}
	}
	readOnly := opts.Check || opts.DryRun
	doc := repair.Run(ctx, names, repair.RunOptions{
		ApplyOptions: apply, ReadOnly: readOnly, Jobs: opts.Jobs, Explicit: explicit,
		Progress: fileDone, Recovery: recovery, RecordIn: recordIn,
	})
	progress.Done()
	return doc, nil
}

// repairExit is the exit code of a repair run (oc help exit-codes): 3 when the
// run was interrupted, when a file could not be processed or, outside --check
// and --dry-run, when a damaged file is one repair cannot fix (so that what
// --check flags is always either fixed or reported with 3); 11 when a file
// was left alone for a live lock; 1 in check mode when a file needs
// attention; 0 otherwise.
func repairExit(g *Globals, opts *repairOptions, doc *repair.Report) error {
	t := doc.Totals
	if t.Interrupted {
		return cli.Incomplete(fmt.Errorf("interrupted: %s repaired, the others left as they were", plural(t.Changed, "file")))
	}
	var failed, busy []string
	for _, r := range doc.Files {
		switch {
		case r.Busy:
			busy = append(busy, r.Error)
		case r.Error != "":
			failed = append(failed, r.Error)
		case r.Unrepairable != "" && !opts.Check && !opts.DryRun:
			failed = append(failed, r.Path+": unrepairable: "+r.Unrepairable)
		}
	}
	switch {
	case len(failed) == 1:
		return cli.Incomplete(errors.New(failed[0]))
	case len(failed) > 1:
		return cli.Incomplete(fmt.Errorf("%s could not be repaired; first: %s", plural(len(failed), "file"), failed[0]))
	case len(busy) > 0:
		// a live lock: the file is fine as far as oc knows; retry later
		return cli.Busy(fmt.Errorf("%s busy (retry later): %s", plural(len(busy), "file"), busy[0]))
	case opts.Check && t.NeedsRepair > 0:
		return cli.Exit(cli.ExitFindings, nil)
	}
	return nil
}

// undone is one file's undo as --undo prints it.
type undone struct {
	*repair.UndoReport
	Error string `json:"error,omitempty"`
	busy  bool   // a live gateway held the file's lock
}

func runUndo(ctx context.Context, g *Globals, args []string, opts repair.ApplyOptions) error {
	if len(args) == 0 {
		return runUndoRun(ctx, g, opts)
	}
	var out []undone
	for _, p := range args {
		r, err := repair.Undo(ctx, p, opts)
		u := undone{UndoReport: r}
		if err != nil {
			u.Error = oneLine(err.Error())
			u.busy = errors.Is(err, gatewaylock.ErrLocked)
			if errors.Is(err, durable.ErrNoBackup) {
				u.Error = noBackupMessage(p, opts.BackupDir)
			}
		}
		out = append(out, u)
	}
	if g.JSON {
		if err := writeJSON(g.IO, map[string]any{"undone": out}); err != nil {
			return err
		}
	} else {
		printUndone(g, out)
	}
	return undoExit(out)
}

// printUndone prints one line per file restored (and what was kept).
func printUndone(g *Globals, out []undone) {
	st := g.IO.Styles()
	for _, u := range out {
		switch {
		case u.Error != "":
		case u.AlreadyRestored:
			fmt.Fprintf(g.IO.Out, "%s %s already holds the content of %s\n", st.OK.Render("unchanged"), cli.Safe(u.Path), cli.Safe(u.RestoredFrom))
		default:
			fmt.Fprintf(g.IO.Out, "%s %s from %s\n", st.OK.Render("restored"), cli.Safe(u.Path), cli.Safe(u.RestoredFrom))
			if u.PreUndoBackup != "" {
				fmt.Fprintf(g.IO.Out, "  %s (%s) kept as %s\n", st.Warn.Render("its content before the undo"), cli.Safe(u.Changed), cli.Safe(u.PreUndoBackup))
			}
			if u.Legacy {
				fmt.Fprintf(g.IO.Out, "  %s %s\n", st.Dim.Render("legacy backup, checked:"), cli.Safe(strings.Join(u.Checked, "; ")))
			}
		}
	}
}

// undoExit is 3 with the first file's error when a file was not undone,
// 11 (busy) when every failure was a live gateway's lock.
func undoExit(out []undone) error {
	failed, busy := 0, 0
	var first error
	for _, u := range out {
		if u.Error != "" {
			failed++
			if u.busy {
				busy++
			}
			if first == nil {
				first = errors.New(u.Error)
			}
		}
	}
	switch {
	case failed == 0:
		return nil
	case failed == busy:
		return cli.Busy(first)
	default:
		return cli.Incomplete(first)
	}
}

// noBackupMessage says where undo looked for a backup, and that a repair
// made with --backup-dir needs the same flag to be undone.
func noBackupMessage(file, backupDir string) string {
	dir := backupDir
	if dir == "" {
		dir = filepath.Dir(file)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	msg := fmt.Sprintf("%s: no oc backup found in %s (looked for %s.bak-oc-<stamp>)", file, dir, filepath.Base(file))
	if backupDir == "" {
		msg += "; if the repair used --backup-dir DIR, pass the same --backup-dir DIR"
	}
	return msg
}

// printRepairReport prints the human report: one block per file that needs
// or got a repair (every file with -v), then a totals line.
func printRepairReport(g *Globals, opts *repairOptions, set repair.RuleSet, doc *repair.Report) {
	w := g.IO.Out
	st := g.IO.Styles()
	checking := opts.Check || opts.DryRun
	for _, r := range doc.Files {
		attention := r.Plan != nil && r.Plan.NeedsAttention()
		if r.Error == "" && !attention && !r.Changed && r.Skipped != repair.SkipNotTranscript && len(r.Warnings) == 0 {
			if opts.Verbose {
				fmt.Fprintf(w, "%s %s\n", st.OK.Render("ok"), cli.Safe(r.Path))
			}
			continue
		}
		printRepairFile(w, st, opts, r, checking)
	}
	fmt.Fprintln(w, repairTotalsLine(doc, set, checking))
	switch {
	case doc.RunManifest != "":
		fmt.Fprintf(w, "%s oc repair --undo puts back every file this run changed\n", st.Dim.Render("recorded:"))
	case doc.RunManifestError != "":
		fmt.Fprintf(w, "%s this run is not recorded for oc repair --undo (%s); undo a file with oc repair --undo FILE\n", st.Warn.Render("warning:"), cli.Safe(doc.RunManifestError))
	}
}

// printRepairFile prints one file's block: its status, the rules that hit
// with their lines (each change under --dry-run), warnings, and the lock,
// backup and quarantine it touched.
func printRepairFile(w io.Writer, st *cli.Styles, opts *repairOptions, r *repair.FileReport, checking bool) {
	fmt.Fprintf(w, "%s  %s\n", st.Bold.Render(cli.Safe(r.Path)), repairStatus(st, r, checking))
	if r.Error != "" {
		fmt.Fprintf(w, "  %s\n", cli.Safe(r.Error))
	}
	if r.Unrepairable != "" && (r.Changed || r.Error != "") {
		fmt.Fprintf(w, "  %s %s\n", st.Error.Render("still unrepairable:"), cli.Safe(r.Unrepairable))
	}
	ids := make([]string, 0, len(r.Rules))
	for id := range r.Rules {
		ids = append(ids, id)
	}
	repair.SortRuleIDs(ids)
	for _, id := range ids {
		fmt.Fprintf(w, "  %-34s %5d  %s\n", id, r.Rules[id], lineList(r.Lines[id], 5))
	}
	if opts.DryRun && r.Plan != nil {
		for _, c := range r.Plan.Changes {
			fmt.Fprintf(w, "    line %d: %s: %s\n", c.Line, strings.Join(c.Rules, ", "), cli.Safe(c.Detail))
		}
	}
	for _, warning := range r.Warnings {
		fmt.Fprintf(w, "  %s %s\n", st.Warn.Render("warning:"), cli.Safe(warning))
	}
	if r.StaleLockBroken != nil {
		fmt.Fprintf(w, "  %s removed stale lock (%s)\n", st.Dim.Render("lock:"), cli.Safe(strings.Join(r.StaleLockBroken.StaleReasons, ", ")))
	}
	if r.Backup != "" {
		fmt.Fprintf(w, "  %s %s\n", st.Dim.Render("backup:    "), cli.Safe(r.Backup))
	}
	if r.Quarantine != "" {
		fmt.Fprintf(w, "  %s %s\n", st.Dim.Render("quarantine:"), cli.Safe(r.Quarantine))
	}
}

// repairStatus is a file's status word in the human report.
func repairStatus(st *cli.Styles, r *repair.FileReport, checking bool) string {
	switch {
	case r.Busy:
		return st.Warn.Render("busy (a live process holds its lock; retry later)")
	case r.Error != "":
		return st.Error.Render("error")
	case r.Changed:
		return st.OK.Render("repaired")
	case r.Unrepairable != "":
		return st.Error.Render("unrepairable: " + cli.Safe(r.Unrepairable))
	case r.Skipped != "":
		return st.Dim.Render("skipped: " + cli.Safe(r.Skipped))
	case checking:
		return st.Warn.Render("needs repair (oc repair fixes it)")
	default:
		return st.Warn.Render("not repaired")
	}
}

// repairTotalsLine is the human report's last line: files checked, repaired
// or needing repair, skipped, errors, and the count of each rule.
func repairTotalsLine(doc *repair.Report, set repair.RuleSet, checking bool) string {
	t := doc.Totals
	var line string
	if checking {
		line = fmt.Sprintf("%s checked with rules %s: %d %s", plural(t.Files, "file"), set, t.NeedsRepair, pluralVerb(t.NeedsRepair, "needs", "need")+" repair")
		if t.Unrepairable > 0 {
			line += fmt.Sprintf(" (%d fixable, %d unrepairable)", t.NeedsRepair-t.Unrepairable, t.Unrepairable)
		}
	} else {
		line = fmt.Sprintf("%s checked with rules %s: %d repaired", plural(t.Files, "file"), set, t.Changed)
		if n := t.NeedsRepair - t.Changed; n > 0 {
			line += fmt.Sprintf(", %d not repaired", n)
		}
	}
	skipped := 0
	for _, r := range doc.Files {
		if r.Skipped != "" && r.Unrepairable == "" {
			skipped++
		}
	}
	if n := skipped; n > 0 {
		line += fmt.Sprintf(", %d skipped", n)
	}
	if t.Busy > 0 {
		line += fmt.Sprintf(", %d busy", t.Busy)
	}
	if t.Errors > 0 {
		line += ", " + plural(t.Errors, "error")
	}
	if len(t.Rules) > 0 {
		ids := make([]string, 0, len(t.Rules))
		for id := range t.Rules {
			ids = append(ids, id)
		}
		repair.SortRuleIDs(ids)
		parts := make([]string, len(ids))
		for i, id := range ids {
			parts[i] = fmt.Sprintf("%s %d", id, t.Rules[id])
		}
		line += " (" + strings.Join(parts, ", ") + ")"
	}
	return line
}

// lineList renders the first n line numbers: "lines 3, 7, 12 (+4 more)".
func lineList(lines []int64, n int) string {
	if len(lines) == 0 {
		return ""
	}
	s := append([]int64(nil), lines...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	word := "line "
	if len(s) > 1 {
		word = "lines "
	}
	parts := []string{}
	for i, l := range s {
		if i == n {
			parts = append(parts, fmt.Sprintf("(+%d more)", len(s)-n))
			break
		}
		parts = append(parts, fmt.Sprint(l))
	}
	return word + strings.Join(parts, ", ")
}
