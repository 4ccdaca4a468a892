package cmd

import (
	"bufio"
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

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/doctor"
)

type doctorOptions struct {
	Fix            bool
	Yes            bool
	NonInteractive bool
	Force          bool
	NoTranscripts  bool
}

func newDoctorCmd(g *Globals) *cobra.Command {
	o := &doctorOptions{}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check an OpenClaw install; with --fix, migrate session-bound cron jobs and fix what is safe",
		Long: `oc doctor checks an OpenClaw state directory before and after an upgrade:
the storage era (JSON or SQLite) and layout, the cron store, sessions.json
against the transcript files, stale locks and leftover temp files, transcripts
that 'oc repair --check' would change, and transcript-ownership problems.

Cron jobs with sessionTarget "session:<key>" are classified IN_CHAT (they
deliver to <key>'s chat: left alone), ELSEWHERE (they deliver to another chat
or a webhook) or UNDECIDABLE (reported, left alone). --fix moves ELSEWHERE jobs
to background sessions: sessionTarget "isolated" with the delivery they had
made explicit; schedule, state and next run time are kept. Every changed file
is backed up first as <file>.pre-oc-doctor.<UTC stamp>, and a report
doctor-session-target-migration-<stamp>.json is written beside the store.

Without --fix nothing is written. --fix refuses to write while the OpenClaw
gateway runs (its lock in $TMPDIR/openclaw-<uid>, or a live session lock)
unless --force. SOURCE_DATE_EPOCH, when set, fixes the clock used for
timestamps and names.`,
		Example: `  oc doctor                 # check only; exit 1 when something needs attention
  oc doctor --fix --yes     # apply the safe fixes without asking
  oc doctor --json          # one JSON document`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDoctor(g, o) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.Fix, "fix", false, "apply the fixes that are safe (default: check only, write nothing)")
	f.BoolVar(&o.Fix, "repair", false, "alias of --fix (OpenClaw's spelling)")
	f.BoolVarP(&o.Yes, "yes", "y", false, "with --fix, do not ask for confirmation")
	f.BoolVar(&o.NonInteractive, "non-interactive", false, "never prompt (with --fix: apply without asking)")
	f.BoolVar(&o.Force, "force", false, "write even while the OpenClaw gateway is running")
	f.BoolVar(&o.NoTranscripts, "no-transcripts", false, "skip the transcript checks (repair and ownership scans)")
	_ = f.MarkHidden("repair")
	return cmd
}

func runDoctor(g *Globals, o *doctorOptions) error {
	g.tuneGCForStreaming()
	opts := doctor.Options{
		StateDir:       g.ResolvedStateDir(),
		Force:          o.Force,
		Env:            g.env,
		Now:            docClockFromEnv(g.env),
		GatewayLockDir: doctor.GatewayLockDir(g.env),
	}
	if !o.NoTranscripts {
		opts.Transcripts = []doctor.TranscriptCheck{doctor.RepairCheck, doctor.OwnershipCheck}
	}
	interactive := o.Fix && !o.Yes && !o.NonInteractive && !g.JSON && docStdinIsTerminal(g.IO.In)
	opts.Fix = o.Fix && !interactive
	rep, err := doctor.Run(opts)
	if err != nil {
		return cli.Incomplete(err)
	}
	if interactive {
		n := docCountFixable(rep)
		if n > 0 {
			renderDoctor(g.IO, rep)
			if !docConfirm(g.IO, fmt.Sprintf("Apply %d fix(es) now? [y/N] ", n)) {
				fmt.Fprintln(g.IO.Out, "Nothing changed.")
				return docExitForDoctor(rep)
			}
			opts.Fix = true
			if rep, err = doctor.Run(opts); err != nil {
				return cli.Incomplete(err)
			}
		}
	}
	var sd *sqliteDoctor
	if rep.Era == "sqlite" {
		if sd, err = runSQLiteDoctor(g, opts.Fix); err != nil {
			return cli.Incomplete(errors.New(oneLine(err.Error())))
		}
	}
	if g.JSON {
		if err := writeJSON(g.IO, doctorJSON{Report: rep, SQLite: sd}); err != nil {
			return cli.Incomplete(err)
		}
	} else {
		renderDoctor(g.IO, rep)
		if sd != nil {
			renderSQLiteDoctor(g.IO, sd)
		}
	}
	if err := docExitForDoctor(rep); err != nil || sd == nil || sd.Problems == 0 {
		return err
	}
	return cli.Exit(cli.ExitFindings, nil)
}

func docExitForDoctor(rep *doctor.Report) error {
	if rep.Refused != "" {
		return cli.Incomplete(errors.New(rep.Refused))
	}
	for _, f := range rep.Findings {
		if strings.HasSuffix(f.ID, "-failed") && f.Severity == doctor.SevError {
			return cli.Incomplete(fmt.Errorf("%s: %s", f.Path, f.Message))
		}
	}
	if rep.Remaining > 0 {
		return cli.Exit(cli.ExitFindings, nil)
	}
	return nil
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

func renderDoctor(ios *cli.IOStreams, rep *doctor.Report) {
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
	fmt.Fprintf(w, "%s\n\n", st.Dim.Render(rep.StateDir))

	mark := func(status string) string {
		switch status {
		case "ok":
			return st.OK.Render("[✓]")
		case doctor.SevInfo:
			return st.Dim.Render("[i]")
		case doctor.SevWarning:
			return st.Warn.Render("[!]")
		default:
			return st.Error.Render("[✗]")
		}
	}
	for _, c := range rep.Checks {
		line := fmt.Sprintf("%s %s", mark(c.Status), st.Bold.Render(c.Section))
		if c.Detail != "" {
			line += st.Dim.Render(" · " + c.Detail)
		}
		fmt.Fprintln(w, line)
		for _, f := range rep.Findings {
			if f.Section != c.Section {
				continue
			}
			sev := f.Severity
			if f.Fixed {
				sev = "fixed"
			}
			head := fmt.Sprintf("%s %s: ", docBullet(st, sev), f.ID)
			docWriteWrapped(w, "    ", "      ", head+f.Message+docPathSuffix(f, rep.StateDir), width)
			if !f.Fixed && f.Fix != "" && f.Severity != doctor.SevInfo {
				docWriteWrapped(w, "      ", "        ", st.Dim.Render("fix: ")+f.Fix, width)
			}
		}
	}

	// The cron section: every session:<key> job and its verdict.
	var session []doctor.CronJob
	for _, j := range rep.Cron.Jobs {
		if j.Classification != nil {
			session = append(session, j)
		}
	}
	if len(session) > 0 {
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
			docWriteWrapped(w, "  "+styled+" ", "              ", fmt.Sprintf("%s %s (%s)%s%s", docQuoteName(j.Name), docShortID(j.ID), *j.Reason, dis, state), width)
		}
	}

	migrated := 0
	for _, j := range rep.Cron.Jobs {
		if j.Migrated {
			migrated++
		}
	}
	if migrated > 0 || len(rep.Changes) > 0 {
		fmt.Fprintf(w, "\n%s\n", st.Heading.Render("Doctor changes"))
		if migrated > 0 {
			docWriteWrapped(w, "  ", "  ", fmt.Sprintf("Migrated %d cron job(s) to background sessions at %s.", migrated, docRel(rep.Cron.Store, rep.StateDir)), width)
			for _, j := range rep.Cron.Jobs {
				if !j.Migrated || j.Migration == nil {
					continue
				}
				m := j.Migration
				docWriteWrapped(w, "  - ", "    ", fmt.Sprintf("%s (%s): %s → %s, delivers to %s", docQuoteName(m.Name), m.ID, m.OldSessionTarget, m.NewSessionTarget, docRouteText(m.Route)), width)
				docWriteWrapped(w, "    ", "    ", st.Dim.Render(m.ContextLoss+docRemovedKeyNote(m)), width)
			}
		}
		for _, c := range rep.Changes {
			if c.Action == "write" && c.Path == rep.Cron.Store {
				continue // said by the "Migrated …" line
			}
			label := map[string]string{"backup": "Backup", "report": "Report", "remove": "Removed", "write": "Wrote"}[c.Action]
			text := fmt.Sprintf("%s: %s", label, docRel(c.Path, rep.StateDir))
			if c.Detail != "" && c.Action != "write" {
				text += " (" + c.Detail + ")"
			}
			docWriteWrapped(w, "  ", "    ", text, width)
		}
	} else if rep.Mode == "check" {
		pending := docCountFixable(rep)
		if pending > 0 {
			var lines []string
			for _, j := range rep.Cron.Jobs {
				if j.Pending && j.Migration != nil {
					lines = append(lines, fmt.Sprintf("%s (%s): %s → isolated, delivers to %s", docQuoteName(j.Name), j.ID, *j.SessionTarget, docRouteText(j.Migration.Route)))
				}
			}
			if len(lines) > 0 {
				fmt.Fprintf(w, "\n%s\n", st.Heading.Render("Planned cron migration"))
				for _, l := range lines {
					docWriteWrapped(w, "  - ", "    ", l, width)
				}
			}
		}
	}

	fmt.Fprintln(w)
	fmt.Fprintln(w, docSummaryLine(st, rep))
	if next := docNextCommand(rep); next != "" {
		docWriteWrapped(w, "", "      ", "Next: "+st.Bold.Render(next), width)
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

func docSummaryLine(st *cli.Styles, rep *doctor.Report) string {
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
	head := st.OK.Render("Doctor: no issues found.")
	if errs+warns > 0 {
		head = st.Warn.Render("Doctor found issues.")
	} else if fixed > 0 {
		head = st.OK.Render("Doctor: fixed everything it could.")
	}
	if rep.Refused != "" {
		head = st.Error.Render("Doctor refused to write: the gateway is running.")
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

func docNextCommand(rep *doctor.Report) string {
	state := ""
	if rep.StateDir != "" {
		state = " --state-dir " + doctor.ShellQuote(rep.StateDir)
	}
	if rep.Refused != "" {
		return "openclaw gateway stop, then oc doctor --fix" + state
	}
	if rep.Mode == "check" && docCountFixable(rep) > 0 {
		return "oc doctor --fix" + state
	}
	for _, f := range rep.Findings {
		if f.Fixed || f.Severity == doctor.SevInfo {
			continue
		}
		if f.ID == "transcript-needs-repair" {
			return "oc repair" + state
		}
	}
	if rep.Remaining > 0 {
		return "resolve the warnings above by hand, then oc doctor" + state
	}
	return ""
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
