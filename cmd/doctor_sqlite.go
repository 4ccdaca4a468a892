package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/doctor"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/transcript"
	"github.com/openclaw-tools/oc/pkg/upgrade"
)

// importAudit is the audit's part of the --json document.
type importAudit struct {
	*upgrade.Audit
	Summary  string                 `json:"summary"`
	Findings []upgrade.AuditFinding `json:"findings"`
}

// sqliteDoctor is doctor's SQLite-era part: the inspect checks of every
// agent database and the cron classification read from cron_jobs.
type sqliteDoctor struct {
	Inspect *store.SQLiteReport      `json:"inspect"`
	Cron    *doctor.SQLiteCronReport `json:"cron"`
	// Import is the audit of the JSONL import: archived originals and JSONL
	// files beside SQLite sessions compared with the databases.
	Import *importAudit `json:"import"`
	// Problems counts warnings and errors, and cron jobs still needing a fix.
	Problems int `json:"problems"`
}

// doctorJSON is the --json document: the doctor report plus the SQLite part.
type doctorJSON struct {
	*doctor.Report
	SQLite *sqliteDoctor `json:"sqlite,omitempty"`
}

// runSQLiteDoctor checks a SQLite-era state dir. With fix (--fix and --yes
// or a confirmed prompt) the cron fixes are run through the openclaw CLI when
// it is on PATH; oc itself never writes a database.
func runSQLiteDoctor(ctx context.Context, g *Globals, fix bool) (*sqliteDoctor, error) {
	st, err := store.Open(g.ResolvedStateDir(), store.Options{})
	if err != nil {
		return nil, err
	}
	if !st.HasSQLite() && !fileExists(st.StateDBPath()) {
		return nil, nil
	}
	sd := &sqliteDoctor{}
	if sd.Inspect, err = st.InspectSQLite(ctx, store.InspectOptions{QuickCheck: true}); err != nil {
		return nil, err
	}
	cfg, _ := doctor.LoadConfig(g.ResolvedStateDir(), g.env)
	if sd.Cron, err = doctor.ClassifySQLiteCron(ctx, st, cfg); err != nil {
		// An unreadable state database is a finding, not the end of the run.
		sd.Cron = &doctor.SQLiteCronReport{Jobs: []doctor.SQLiteCronJob{}, Error: oneLine(err.Error())}
		sd.Problems++
	}
	audit, err := upgrade.AuditImport(ctx, st)
	if err != nil {
		return nil, err
	}
	sd.Import = &importAudit{Audit: audit, Summary: audit.Summary(), Findings: audit.Findings()}
	for _, f := range sd.Import.Findings {
		if f.Severity != "info" {
			sd.Problems++
		}
	}
	if fix {
		doctor.ApplySQLiteCronFixes(sd.Cron, exec.LookPath, doctor.RunCommand)
	}
	sd.Problems += len(sd.Inspect.Errors)
	for _, s := range sd.Inspect.Sessions {
		e, w, _ := s.Counts()
		sd.Problems += e + w
	}
	for _, f := range sd.Inspect.Findings {
		if f.Severity != transcript.SevInfo {
			sd.Problems++
		}
	}
	for _, j := range sd.Cron.Jobs {
		if len(j.Command) > 0 && (!j.Ran || j.Error != "") {
			sd.Problems++
		}
	}
	return sd, nil
}

func renderSQLiteDoctor(ios *cli.IOStreams, sd *sqliteDoctor) {
	st := ios.Styles()
	w := ios.Out
	fmt.Fprintf(w, "\n%s\n", st.Heading.Render("SQLite era (OpenClaw 2026.8.1+): databases, sessions, cron_jobs"))
	rep := sd.Inspect
	for _, d := range rep.Databases {
		if d.Error != "" {
			docWriteWrapped(w, "  ", "      ", st.Severity(transcript.SevError)+" "+cleanText(d.Error), 80)
			continue
		}
		docWriteWrapped(w, "  ", "      ", fmt.Sprintf("agent %s: schema %d, %d sessions, quick_check %s", cleanText(d.Agent), d.Schema, d.Sessions, cleanText(d.QuickCheck)), 80)
	}
	for _, f := range rep.Findings {
		docWriteWrapped(w, "  ", "      ", st.Severity(f.Severity)+" "+st.Key.Render(f.Rule)+" "+cleanText(f.Message), 80)
	}
	for _, s := range rep.Sessions {
		for _, f := range s.Findings {
			if f.Severity == transcript.SevInfo {
				continue
			}
			docWriteWrapped(w, "  ", "      ", st.Severity(f.Severity)+" "+st.Key.Render(f.Rule)+" "+cleanText(s.Key)+": "+cleanText(f.Message), 80)
		}
	}
	renderImportAudit(w, st, sd.Import)
	fmt.Fprintf(w, "\n%s\n", st.Heading.Render("Cron jobs (state/openclaw.sqlite)"))
	for _, e := range rep.Errors {
		docWriteWrapped(w, "  ", "      ", st.Severity(transcript.SevError)+" "+cleanText(e.Error), 80)
	}
	switch {
	case sd.Cron.Error != "":
		docWriteWrapped(w, "  ", "      ", st.Severity(transcript.SevError)+" "+cleanText(sd.Cron.Error), 80)
	case len(sd.Cron.Jobs) == 0:
		fmt.Fprintln(w, "  no cron jobs")
	}
	for _, j := range sd.Cron.Jobs {
		class := "left alone (" + cleanText(j.SessionTarget) + ")"
		if j.Classification != "" {
			class = string(j.Classification) + "/" + string(j.Reason)
		}
		disabled := ""
		if !j.Enabled {
			disabled = " [disabled]"
		}
		docWriteWrapped(w, "  ", "      ", fmt.Sprintf("%s %q%s: %s", cleanText(j.ID), cleanText(j.Name), disabled, class), 80)
		if len(j.Command) > 0 {
			writeCommand(w, st, j.Command)
			switch {
			case j.Ran && j.Error != "":
				docWriteWrapped(w, "      ", "        ", st.Error.Render("failed:")+" "+cleanText(j.Error+" "+j.Output), 80)
			case j.Ran:
				fmt.Fprintf(w, "      %s\n", st.OK.Render("applied through "+sd.Cron.OpenClaw))
			}
		}
	}
	pending := 0
	for _, j := range sd.Cron.Jobs {
		if len(j.Command) > 0 && !j.Ran {
			pending++
		}
	}
	if pending > 0 {
		fmt.Fprintln(w)
		docWriteWrapped(w, "", "", fmt.Sprintf("%d cron fix(es) above are OpenClaw commands (oc never writes SQL); `oc doctor --fix --yes` runs them when `openclaw` is on PATH.", pending), 80)
	}
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
		word := doctor.ShellQuote(cleanText(a))
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

// renderImportAudit prints the audit of the JSONL import: one line per
// finding, with the way back as commands.
func renderImportAudit(w io.Writer, st *cli.Styles, ia *importAudit) {
	if ia == nil || (len(ia.Compared) == 0 && len(ia.Findings) == 0) {
		return
	}
	fmt.Fprintf(w, "\n%s\n", st.Heading.Render("Import audit (JSONL originals kept by OpenClaw's import)"))
	docWriteWrapped(w, "  ", "      ", cleanText(ia.Summary), 80)
	for _, f := range ia.Findings {
		sev := transcript.SevInfo
		if f.Severity != "info" {
			sev = transcript.SevWarning
		}
		docWriteWrapped(w, "  ", "      ", st.Severity(sev)+" "+st.Key.Render(f.ID)+" "+cleanText(f.Session)+": "+cleanText(f.Message), 80)
		if f.Severity != "info" || len(f.Commands) > 0 {
			docWriteWrapped(w, "      ", "      ", cleanText(f.Path), 80)
		}
		if len(f.Commands) > 1 {
			fmt.Fprintln(w, "      "+st.Dim.Render("the way back (stop the gateway first):"))
		}
		for _, c := range f.Commands {
			writeCommand(w, st, c)
		}
	}
}
