package cmd

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/repair"
	"github.com/openclaw-tools/oc/pkg/transcript"
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
}

func newRepairCmd(g *Globals) *cobra.Command {
	opts := &repairOptions{}
	cmd := &cobra.Command{
		Use:   "repair [PATH...]",
		Short: "Repair damaged session transcripts, losslessly and crash-safely",
		Long: `Repair session transcripts in place: a transcript file, a sessions folder or a
state dir (default: the state dir).

The default rules are OpenClaw 2026.5.6's (drop lines that do not parse, give
empty assistant error turns a text, replace blank user text), the rules later
OpenClaw releases added, and oc's own: entries glued on one line or hidden
behind garbage are salvaged, a damaged header is rebuilt, and entries whose
parent was lost are re-linked so the conversation keeps its history.
--rules openclaw-2026.5.6 applies exactly that release's rules. See
'oc help repair-rules'.

Nothing is lost: the original is kept as <file>.bak-oc-<stamp> and every
dropped or rewritten line goes to <file>.rejected-<stamp> with its line
number and the reason. Untouched lines are copied byte for byte. The gateway's
<file>.lock is honoured; the file is replaced atomically (fsync, rename, fsync
of the folder) with its mode and owner. A second run changes nothing.

--check only reports, and exits 1 when a file needs repair (for CI).`,
		Example: `  oc repair --check                         # CI gate over the default state dir
  oc repair ~/.openclaw/agents/main/sessions/0197a3c2-....jsonl
  oc repair --dry-run --state-dir /srv/openclaw
  oc repair --rules openclaw-2026.5.6 --json sessions/
  oc repair --undo sessions/0197a3c2-....jsonl`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRepair(g, opts, args)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.Check, "check", false, "only report; exit 1 when a file needs repair (never writes)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "print what would change, line by line, without writing")
	f.BoolVar(&opts.Undo, "undo", false, "restore each FILE from its newest oc backup")
	f.StringVar(&opts.Rules, "rules", string(repair.RuleSetAll), "rule set: all, or openclaw-2026.5.6 (exactly that release's repair)")
	f.StringVar(&opts.BackupDir, "backup-dir", "", "put backups and quarantine files in DIR instead of beside each file")
	f.BoolVar(&opts.CompressBackups, "compress-backups", false, "zstd-compress backups (<file>.bak-oc-<stamp>.zst)")
	f.IntVar(&opts.Jobs, "jobs", 0, "files processed at once (default: number of CPUs)")
	f.DurationVar(&opts.Wait, "wait", 0, "wait up to DURATION for a live gateway lock instead of skipping the file")
	f.BoolVar(&opts.BreakStaleLocks, "break-stale-locks", false, "remove stale <file>.lock files (dead or recycled pid, older than 30 min)")
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

func runRepair(g *Globals, opts *repairOptions, args []string) error {
	g.tuneGCForStreaming()
	set, err := repair.ParseRuleSet(opts.Rules)
	if err != nil {
		return cli.Usagef("--rules: %v", err)
	}
	if opts.Check && opts.Undo {
		return cli.Usagef("--check and --undo cannot be combined")
	}
	if opts.Jobs < 0 {
		return cli.Usagef("--jobs must be at least 1")
	}
	apply := repair.ApplyOptions{
		Options:   repair.Options{Rules: set},
		BackupDir: opts.BackupDir,
		Compress:  opts.CompressBackups,
		Lock:      jsonl.LockOptions{Wait: opts.Wait, BreakStale: opts.BreakStaleLocks},
	}
	if opts.Undo {
		return runUndo(g, args, apply)
	}
	paths := args
	if len(paths) == 0 {
		paths = []string{g.ResolvedStateDir()}
	}
	files, err := transcript.Discover(paths, false)
	if err != nil {
		return cli.Incomplete(describeInputError(err))
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Path
	}
	progress := (*cli.Progress)(nil)
	if len(files) > 1 {
		progress = cli.NewProgress(g.IO, "repair", len(files))
	}
	doc := repair.Run(names, repair.RunOptions{
		ApplyOptions: apply, ReadOnly: opts.Check || opts.DryRun, Jobs: opts.Jobs,
		Progress: func() { progress.Add(1) },
	})
	progress.Done()

	if g.JSON {
		if err := writeJSON(g.IO, doc); err != nil {
			return err
		}
	} else {
		printRepairReport(g, opts, set, doc)
	}
	switch errs := doc.Totals.Errors; {
	case errs > 0 && g.JSON:
		return cli.Exit(cli.ExitIncomplete, nil)
	case errs == 1:
		return cli.Incomplete(errors.New(doc.FirstError()))
	case errs > 1:
		return cli.Incomplete(fmt.Errorf("%d file(s) could not be processed; first: %s", errs, doc.FirstError()))
	case opts.Check && doc.Totals.NeedsRepair > 0:
		return cli.Exit(cli.ExitFindings, nil)
	}
	return nil
}

func runUndo(g *Globals, args []string, opts repair.ApplyOptions) error {
	if len(args) == 0 {
		return cli.Usagef("--undo needs the transcript FILE(s) to restore")
	}
	type undone struct {
		Path   string `json:"path"`
		Backup string `json:"restoredFrom,omitempty"`
		Error  string `json:"error,omitempty"`
	}
	var out []undone
	failed := 0
	for _, p := range args {
		b, err := repair.Undo(p, opts)
		u := undone{Path: p, Backup: b}
		if err != nil {
			u.Error = oneLine(err.Error())
			failed++
		}
		out = append(out, u)
	}
	if g.JSON {
		if err := writeJSON(g.IO, map[string]any{"undone": out}); err != nil {
			return err
		}
	} else {
		st := g.IO.Styles()
		for _, u := range out {
			if u.Error == "" {
				fmt.Fprintf(g.IO.Out, "%s %s from %s\n", st.OK.Render("restored"), u.Path, u.Backup)
			}
		}
	}
	if failed > 0 {
		for _, u := range out {
			if u.Error != "" {
				if g.JSON {
					return cli.Exit(cli.ExitIncomplete, nil)
				}
				return cli.Incomplete(errors.New(u.Error))
			}
		}
	}
	return nil
}

// printRepairReport prints the human report: one block per file that needs
// or got a repair (every file with -v), then a totals line.
func printRepairReport(g *Globals, opts *repairOptions, set repair.RuleSet, doc *repair.Report) {
	w := g.IO.Out
	st := g.IO.Styles()
	for _, r := range doc.Files {
		attention := r.Plan != nil && r.Plan.NeedsAttention()
		if r.Error == "" && !attention && !r.Changed {
			if g.Verbose {
				fmt.Fprintf(w, "%s %s\n", st.OK.Render("ok"), r.Path)
			}
			continue
		}
		status := ""
		switch {
		case r.Error != "":
			status = st.Error.Render("error")
		case r.Changed:
			status = st.OK.Render("repaired")
		case r.Skipped != "":
			status = st.Warn.Render("skipped: " + r.Skipped)
		case opts.Check || opts.DryRun:
			status = st.Warn.Render("needs repair")
		default:
			status = st.Warn.Render("not repaired")
		}
		fmt.Fprintf(w, "%s  %s\n", st.Bold.Render(r.Path), status)
		if r.Error != "" {
			fmt.Fprintf(w, "  %s\n", r.Error)
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
				fmt.Fprintf(w, "    line %d: %s: %s\n", c.Line, strings.Join(c.Rules, ", "), c.Detail)
			}
		}
		if r.StaleLockBroken != nil {
			fmt.Fprintf(w, "  %s removed stale lock (%s)\n", st.Dim.Render("lock:"), strings.Join(r.StaleLockBroken.StaleReasons, ", "))
		}
		if r.Backup != "" {
			fmt.Fprintf(w, "  %s %s\n", st.Dim.Render("backup:    "), r.Backup)
		}
		if r.Quarantine != "" {
			fmt.Fprintf(w, "  %s %s\n", st.Dim.Render("quarantine:"), r.Quarantine)
		}
	}
	t := doc.Totals
	verb := "repaired"
	if opts.Check || opts.DryRun {
		verb = "need repair"
	}
	n := t.Changed
	if opts.Check || opts.DryRun {
		n = t.NeedsRepair
	}
	line := fmt.Sprintf("%d file(s) checked with rules %s: %d %s", t.Files, set, n, verb)
	if !opts.Check && !opts.DryRun && t.NeedsRepair > t.Changed {
		line += fmt.Sprintf(", %d not repaired", t.NeedsRepair-t.Changed)
	}
	if t.Skipped > 0 {
		line += fmt.Sprintf(", %d skipped", t.Skipped)
	}
	if t.Errors > 0 {
		line += fmt.Sprintf(", %d error(s)", t.Errors)
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
	fmt.Fprintln(w, line)
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
