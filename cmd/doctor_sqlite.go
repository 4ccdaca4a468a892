package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/shellquote"
	"github.com/openclaw-tools/oc/pkg/doctor"
	"github.com/openclaw-tools/oc/pkg/openclawconfig"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/transcript"
	"github.com/openclaw-tools/oc/pkg/upgrade"
)

// sqliteDoctor is what doctor reads of a SQLite-era install: the inspect
// checks of every agent database, the cron classification read from
// cron_jobs and the audit of the JSONL import. doctor.FoldSQLite makes it
// part of the report (one list of findings, one of cron jobs).
type sqliteDoctor struct {
	State *doctor.SQLiteState
	Cron  *doctor.SQLiteCronReport
}

// runSQLiteDoctor checks a SQLite-era state dir. With fix (--fix and --yes
// or a confirmed prompt) the cron fixes are run through the openclaw CLI when
// it is on PATH, pointed at this state dir and only after it has shown that
// its gateway serves it (doctor.CronFixer); oc itself never writes a
// database.
func runSQLiteDoctor(ctx context.Context, g *Globals, fix bool) (*sqliteDoctor, error) {
	st, err := store.Open(g.ResolvedStateDir(), store.Options{})
	if err != nil {
		return nil, err
	}
	if !st.HasSQLite() && !fileExists(st.StateDBPath()) {
		return nil, nil
	}
	sd := &sqliteDoctor{State: &doctor.SQLiteState{}}
	if sd.State.Inspect, err = st.InspectSQLite(ctx, store.InspectOptions{QuickCheck: true}); err != nil {
		return nil, err
	}
	cfg, _ := doctor.LoadConfig(g.ResolvedStateDir(), installConfigEnv(g))
	if sd.Cron, err = doctor.ClassifySQLiteCron(ctx, st, cfg); err != nil {
		// An unreadable state database is a finding, not the end of the run.
		sd.Cron = &doctor.SQLiteCronReport{Jobs: []doctor.SQLiteCronJob{}, Error: oneLine(err.Error())}
	}
	// Under --agent, only that agent's jobs are reported, and fixed.
	if filter, ferr := g.fileFilter(); ferr == nil {
		doctor.ScopeCron(sd.Cron, doctor.Scope{Agent: filter.Agent})
	}
	sd.State.Cron = sd.Cron
	if sd.State.Audit, err = upgrade.AuditImport(ctx, st); err != nil {
		return nil, err
	}
	fixer, err := cronFixer(g)
	if err != nil {
		return nil, err
	}
	if fix {
		fixer.Apply(ctx, sd.Cron)
	} else {
		fixer.Describe(sd.Cron)
	}
	return sd, nil
}

// state is the SQLite part to fold into the report (nil without one).
func (sd *sqliteDoctor) state() *doctor.SQLiteState {
	if sd == nil {
		return nil
	}
	return sd.State
}

// installConfigEnv is oc's environment for finding the analysed install's
// config file. $OPENCLAW_CONFIG_PATH belongs to the install the environment
// names ($OPENCLAW_STATE_DIR, else ~/.openclaw): when oc was pointed at
// another state dir (--state-dir, OC_STATE_DIR, oc's config), it is set
// aside and that state dir's own openclaw.json is read, the config the
// openclaw children are given too.
func installConfigEnv(g *Globals) func(string) string {
	if g.StateDir == "" {
		return g.env
	}
	home := g.env("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	chosen, err1 := filepath.Abs(g.ResolvedStateDir())
	fromEnv, err2 := filepath.Abs(transcript.DefaultStateDir(g.env, home))
	if err1 == nil && err2 == nil && chosen == fromEnv {
		return g.env
	}
	return func(k string) string {
		if k == openclawconfig.EnvPath {
			return ""
		}
		return g.env(k)
	}
}

// cronFixes is the number of cron jobs with a fix (0 without a report).
func (sd *sqliteDoctor) cronFixes() int {
	if sd == nil {
		return 0
	}
	return cronFixCount(sd.Cron)
}

// cronFixer runs openclaw for the state dir oc analysed, with the config
// file its analysis read, found on the PATH oc was given, inheriting oc's
// environment (less what would pick another install).
func cronFixer(g *Globals) (*doctor.CronFixer, error) {
	stateDir, err := filepath.Abs(g.ResolvedStateDir())
	if err != nil {
		return nil, err
	}
	configPath, err := filepath.Abs(expandHome(openclawconfig.Path(stateDir, installConfigEnv(g))))
	if err != nil {
		return nil, err
	}
	return &doctor.CronFixer{
		StateDir:   stateDir,
		ConfigPath: configPath,
		LookPath:   func(name string) (string, error) { return doctor.LookPath(name, g.env("PATH")) },
		Environ:    os.Environ(),
	}, nil
}

// renderSQLiteDoctor prints what only a SQLite-era install has: its agent
// databases, then the cron_jobs rows with the OpenClaw command that fixes
// each and what --fix did with it. Their findings are in the check list.
func renderSQLiteDoctor(ios *cli.IOStreams, rep *doctor.Report, sd *sqliteDoctor) {
	st := ios.Styles()
	w := ios.Out
	if len(rep.Databases) > 0 {
		archived := 0
		fmt.Fprintf(w, "\n%s\n", st.Heading.Render("Agent databases (OpenClaw 2026.8.1+)"))
		for _, d := range rep.Databases {
			if d.Error != "" {
				docWriteWrapped(w, "  ", "      ", fmt.Sprintf("agent %s: %s", cleanText(d.Agent), cleanText(d.Error)), 80)
				continue
			}
			docWriteWrapped(w, "  ", "      ", fmt.Sprintf("agent %s: schema %d, %d sessions%s, quick_check %s [%s]", cleanText(d.Agent), d.Schema, d.Sessions, archivedGenerations(d), cleanText(d.QuickCheck), cleanText(docRel(d.Path, rep.StateDir))), 80)
			archived += d.ArchivedGenerations
		}
		if archived > 0 {
			// Doctor reads the live sessions; the archived generations are
			// history 2026.9.6 keeps apart, checked by inspect --archived.
			state := ""
			if rep.StateDir != "" {
				state = " --state-dir " + shellquote.Quote(rep.StateDir)
			}
			docWriteWrapped(w, "  ", "    ", fmt.Sprintf("%s not checked here: oc inspect%s --archived lists and checks them", plural(archived, "archived generation"), cli.Safe(state)), 80)
		}
	}
	renderImportAudit(w, st, rep)
	if sd == nil || sd.Cron == nil {
		return
	}
	var jobs []doctor.CronJob
	for _, j := range rep.Cron.Jobs {
		if strings.HasSuffix(j.Store, ".sqlite") {
			jobs = append(jobs, j)
		}
	}
	fmt.Fprintf(w, "\n%s\n", st.Heading.Render("Cron jobs ("+cleanText(docRel(rep.Cron.Store, rep.StateDir))+")"))
	switch {
	case sd.Cron.Error != "":
		fmt.Fprintln(w, "  cron_jobs cannot be read (see Cron above)")
	case len(jobs) == 0:
		fmt.Fprintln(w, "  no cron jobs")
	}
	run := sd.Cron.Fix
	for _, j := range jobs {
		target := ""
		if j.SessionTarget != nil {
			target = *j.SessionTarget
		}
		class := "left alone (" + cleanText(target) + ")"
		if j.Classification != nil {
			class = string(*j.Classification) + "/" + string(*j.Reason)
		}
		if j.Error != "" {
			class = cleanText(j.Error)
		}
		disabled := ""
		if !j.Enabled {
			disabled = " [disabled]"
		}
		docWriteWrapped(w, "  ", "      ", fmt.Sprintf("%s %q%s: %s", cleanText(j.ID), cleanText(j.Name), disabled, class), 80)
		if len(j.Command) > 0 {
			writeCommand(w, st, j.Command)
			renderCronFixResult(w, st, run, j.Fix)
		}
	}
	renderCronFixAdvice(w, st, sd.Cron)
}

// renderCronFixResult prints what --fix did with one job's command.
func renderCronFixResult(w io.Writer, st *cli.Styles, run *doctor.CronFixRun, fix *doctor.CronFixResult) {
	if fix == nil {
		return
	}
	reason := fix.Reason
	if reason == "" && run != nil && run.Problem != "" {
		reason = "see below"
	}
	switch fix.Outcome {
	case doctor.CronFixFixed:
		fmt.Fprintf(w, "      %s\n", st.OK.Render("fixed through "+cleanText(run.OpenClaw)))
	case doctor.CronFixFailed:
		text := st.Error.Render("failed:") + " the command above " + cleanText(reason)
		if fix.Stderr != "" {
			text += "; its stderr:"
		}
		docWriteWrapped(w, "      ", "        ", text, 80)
		lines := strings.Split(fix.Stderr, "\n")
		if fix.Stderr == "" {
			lines = nil
		}
		for i, l := range lines {
			if i == 5 {
				fmt.Fprintf(w, "        %s\n", st.Dim.Render(fmt.Sprintf("[%d more lines of stderr]", len(lines)-i)))
				break
			}
			if l = strings.TrimSpace(l); l != "" {
				docWriteWrapped(w, "        | ", "        | ", cleanText(l), 80)
			}
		}
	case doctor.CronFixRefused:
		docWriteWrapped(w, "      ", "        ", st.Error.Render("refused:")+" "+cleanText(reason), 80)
	default:
		docWriteWrapped(w, "      ", "        ", st.Dim.Render("not run: "+cleanText(reason)), 80)
	}
}

// renderCronFixAdvice says, once, what became of the cron fixes as a whole
// and what to run by hand when oc could not run them.
func renderCronFixAdvice(w io.Writer, st *cli.Styles, cron *doctor.SQLiteCronReport) {
	pending := cronFixCount(cron)
	if pending == 0 {
		return
	}
	fixes, are, were, them := "cron fix above", "is an OpenClaw command", "was", "it"
	if pending > 1 {
		fixes, are, were, them = plural(pending, "cron fix")+" above", "are OpenClaw commands", "were", "them"
	}
	fmt.Fprintln(w)
	run := cron.Fix
	switch {
	case run == nil && cron.OpenClaw != "":
		docWriteWrapped(w, "", "", fmt.Sprintf("The %s %s (oc never writes SQL): `oc doctor --fix` runs %s through %s, once the gateway it reaches has shown that it serves this state dir.", fixes, are, them, cleanText(cron.OpenClaw)), 80)
		return
	case run == nil:
		docWriteWrapped(w, "", "", fmt.Sprintf("The %s %s (oc never writes SQL), and openclaw is not on PATH: run %s by hand where OpenClaw 2026.9.6 is installed, against this install's gateway:", fixes, are, them), 80)
	case run.ProblemKind == doctor.CronFixNoOpenClaw:
		docWriteWrapped(w, "", "", fmt.Sprintf("%s openclaw is not on PATH, so the %s not run (cron_jobs is unchanged). Run %s by hand where OpenClaw 2026.9.6 is installed, against this install's gateway:", st.Error.Render("Not run:"), fixes+" "+were, them), 80)
	case run.ProblemKind == doctor.CronFixInterrupted:
		docWriteWrapped(w, "", "", st.Error.Render("Interrupted:")+" no cron fix was run.", 80)
		return
	case run.Problem != "":
		docWriteWrapped(w, "", "", fmt.Sprintf("%s nothing was edited: %s.", st.Error.Render("Refused ("+plural(pending, "cron fix")+"):"), cleanText(strings.TrimSuffix(run.Problem, "."))), 80)
		switch run.ProblemKind {
		case doctor.CronFixOtherInstall:
			docWriteWrapped(w, "", "", "A copy or a backup of an install has no gateway of its own: its jobs are not the ones that run. To fix the live install, run oc on its state dir.", 80)
		case doctor.CronFixGatewayUnknown:
			docWriteWrapped(w, "", "", "openclaw edits jobs only through the gateway of the install: start this install's gateway, then run doctor --fix again.", 80)
		}
		return
	default:
		docWriteWrapped(w, "", "", fmt.Sprintf("Cron fixes: %s (through %s, on the gateway that serves %s).", cronFixCounts(run), cleanText(run.OpenClaw), cleanText(run.GatewayStore)), 80)
		if len(run.Overridden) > 0 {
			docWriteWrapped(w, "", "", st.Dim.Render("Not passed on to openclaw from oc's environment: "+strings.Join(run.Overridden, ", ")+"."), 80)
		}
		return
	}
	writeManualCronFix(w, st, cron)
}

// cronFixCount is the number of cron jobs with a fix.
func cronFixCount(cron *doctor.SQLiteCronReport) int {
	n := 0
	for _, j := range cron.Jobs {
		if len(j.Command) > 0 {
			n++
		}
	}
	return n
}

// writeManualCronFix prints how to run the cron fixes by hand on this
// install: its environment, the check of the gateway, then the commands.
func writeManualCronFix(w io.Writer, st *cli.Styles, cron *doctor.SQLiteCronReport) {
	writeCommand(w, st, append([]string{"export"}, cron.OpenClawEnv...))
	writeCommand(w, st, append([]string{"unset"}, withoutSet(doctor.InstallSelectors(), cron.OpenClawEnv)...))
	writeCommand(w, st, []string{"openclaw", "automations", "status", "--json"})
	store := "state/openclaw.sqlite in that state dir"
	for _, kv := range cron.OpenClawEnv {
		if v, ok := strings.CutPrefix(kv, "OPENCLAW_STATE_DIR="); ok {
			store = filepath.Join(v, "state", "openclaw.sqlite")
		}
	}
	docWriteWrapped(w, "      ", "      ", st.Dim.Render("then, if its sqlitePath is "+cleanText(store)+", each command above"), 80)
}

// withoutSet is names less those that env (KEY=VALUE) sets.
func withoutSet(names, env []string) []string {
	var out []string
	for _, n := range names {
		set := false
		for _, kv := range env {
			set = set || strings.HasPrefix(kv, n+"=")
		}
		if !set {
			out = append(out, n)
		}
	}
	return out
}

// cronFixCounts is "1 fixed, 2 failed" (the outcomes that occurred; "0
// fixed" too when an openclaw call failed, so that the count of fixes made
// is never left to be guessed).
func cronFixCounts(run *doctor.CronFixRun) string {
	var parts []string
	for _, c := range []struct {
		n    int
		word string
	}{{run.Fixed, "fixed"}, {run.Failed, "failed"}, {run.Refused, "refused"}, {run.NotRun, "not run"}} {
		if c.n > 0 || c.word == "fixed" && run.Failed > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.word))
		}
	}
	return strings.Join(parts, ", ")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// writeCommand prints a command shell-quoted, continued with " \\" so that
// it stays copy-pasteable within 80 columns.
func writeCommand(w io.Writer, st *cli.Styles, argv []string) {
	line := "      "
	for i, a := range argv {
		word := shellquote.Quote(cleanText(a))
		if i > 0 && len(line)+1+len(word) > 77 {
			fmt.Fprintln(w, st.Key.Render(line+" \\"))
			line = "        "
		} else if i > 0 {
			line += " "
		}
		line += word
	}
	fmt.Fprintln(w, st.Key.Render(line))
}

// renderImportAudit prints the audit of the JSONL import: its summary, and
// the way back of each session that lost entries, as commands. The
// findings themselves are in the check list (Transcripts).
func renderImportAudit(w io.Writer, st *cli.Styles, rep *doctor.Report) {
	ia := rep.Import
	if ia == nil || (len(ia.Compared) == 0 && len(ia.Commands) == 0) {
		return
	}
	fmt.Fprintf(w, "\n%s\n", st.Heading.Render("Import audit (JSONL originals kept by OpenClaw's import)"))
	docWriteWrapped(w, "  ", "      ", cleanText(ia.Summary), 80)
	sessions := make([]string, 0, len(ia.Commands))
	for s := range ia.Commands {
		sessions = append(sessions, s)
	}
	sort.Strings(sessions)
	for _, s := range sessions {
		docWriteWrapped(w, "  ", "      ", cleanText(s)+": "+st.Dim.Render("the way back (stop the gateway first):"), 80)
		for _, c := range ia.Commands[s] {
			writeCommand(w, st, c)
		}
	}
}

// archivedGenerations is ", N archived generations (M unpublished)" for a
// database that holds deleted or reset generations, "" for one that holds
// none.
func archivedGenerations(d *store.DBReport) string {
	if d.ArchivedGenerations == 0 {
		return ""
	}
	s := ", " + plural(d.ArchivedGenerations, "archived generation")
	if d.UnpublishedArchives > 0 {
		s += fmt.Sprintf(" (%d unpublished)", d.UnpublishedArchives)
	}
	return s
}
