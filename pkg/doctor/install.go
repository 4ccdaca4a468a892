package doctor

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/transcript"
	"github.com/openclaw-tools/oc/pkg/upgrade"
)

// Eras of an install, as doctor's and inspect's reports name them.
const (
	EraJSONL      = "jsonl"       // sessions and cron jobs in JSONL/JSON files
	EraSQLite     = "sqlite"      // sessions and cron jobs in SQLite databases
	EraMidUpgrade = "mid-upgrade" // SQLite databases, and JSONL transcripts not yet imported
	EraEmpty      = "empty"       // nothing of OpenClaw's state yet
)

// Where the items of a report are kept (Finding.Store, CronJob.Store are
// the paths; these are the kinds).
const (
	StoreJSONL  = "jsonl"
	StoreSQLite = "sqlite"
)

// SQLiteState is what doctor reads of an install's SQLite databases: the
// inspect checks of every agent database, the cron_jobs classification and
// the audit of the JSONL import. FoldSQLite makes it part of the report.
type SQLiteState struct {
	Inspect *store.SQLiteReport
	Cron    *SQLiteCronReport
	Audit   *upgrade.Audit
}

// ImportAudit is the audit of OpenClaw's JSONL import in the report:
// archived originals and JSONL files beside SQLite sessions compared with
// the databases. Its findings are in Report.Findings (Section Transcripts).
type ImportAudit struct {
	*upgrade.Audit
	Summary string `json:"summary"`
	// Commands are the way back of each finding that has one, by session.
	Commands map[string][][]string `json:"commands,omitempty"`
}

// Scope is the part of an install a report covers: --agent and --since.
type Scope struct {
	Agent string
	Since time.Time
}

// sessionAgent is the agent of a session key "agent:<id>:..." ("" for
// another shape).
func sessionAgent(key string) string {
	rest, ok := strings.CutPrefix(key, "agent:")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, ":")
	return NormalizeAgentID(id)
}

// pathAgent is the agent whose folder holds p (…/agents/<id>/…), "" when
// p is not under stateDir/agents.
func pathAgent(stateDir, p string) string {
	rel, err := filepath.Rel(filepath.Join(stateDir, "agents"), p)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return ""
	}
	id, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	return NormalizeAgentID(id)
}

// keepAgent reports whether an item of agent a (from its session key or
// its path; "" when it belongs to none) is in the scope.
func (s Scope) keepAgent(a string) bool {
	return s.Agent == "" || a == "" || a == NormalizeAgentID(s.Agent)
}

// ScopeCron keeps the cron jobs of s.Agent (by the agent of their session
// key; a job with no key stays): under --agent, --fix edits only those.
func ScopeCron(c *SQLiteCronReport, s Scope) {
	if c == nil || s.Agent == "" {
		return
	}
	kept := c.Jobs[:0]
	for _, j := range c.Jobs {
		if s.keepAgent(jobAgent(j)) {
			kept = append(kept, j)
		}
	}
	c.Jobs = kept
}

// jobAgent is the agent a cron_jobs row belongs to: its session key's, else
// its job_json agentId ("" when it names none).
func jobAgent(j SQLiteCronJob) string {
	if a := sessionAgent(j.Key); a != "" {
		return a
	}
	var v struct {
		AgentID string `json:"agentId"`
	}
	if json.Unmarshal(j.Stored, &v) == nil && v.AgentID != "" {
		return NormalizeAgentID(v.AgentID)
	}
	return ""
}

// ScopeFindings drops the findings of agents other than s.Agent: a finding
// about a file under agents/<id>/ or a session agent:<id>:… belongs to
// agent <id>. Findings about the install as a whole stay.
func ScopeFindings(r *Report, s Scope) {
	if s.Agent == "" {
		return
	}
	kept := r.Findings[:0]
	for _, f := range r.Findings {
		a := sessionAgent(f.Session)
		if a == "" {
			a = pathAgent(r.StateDir, f.Path)
		}
		if s.keepAgent(a) {
			kept = append(kept, f)
		}
	}
	r.Findings = kept
}

// FoldSQLite makes the SQLite part of an install part of the report: its
// sessions' findings, its databases and its cron jobs join the JSONL ones
// in the same lists (each item names its store), the era says whether JSONL
// transcripts still wait for import, and the totals and checks count
// everything. Only what s covers is kept.
func FoldSQLite(r *Report, sq *SQLiteState, s Scope) {
	if sq == nil {
		Recount(r)
		return
	}
	if sq.Inspect != nil {
		foldInspect(r, sq.Inspect, s)
	}
	if sq.Cron != nil {
		foldCron(r, sq.Cron, s)
	}
	if sq.Audit != nil {
		foldAudit(r, sq.Audit, s)
	}
	Recount(r)
}

// SortBySeverity returns the findings errors first, then warnings, then
// info, each in its original order.
func SortBySeverity(fs []Finding) []Finding {
	rank := map[string]int{SevError: 0, SevWarning: 1}
	out := append([]Finding(nil), fs...)
	sort.SliceStable(out, func(i, j int) bool {
		ri, ok := rank[out[i].Severity]
		if !ok {
			ri = 2
		}
		rj, ok := rank[out[j].Severity]
		if !ok {
			rj = 2
		}
		return ri < rj
	})
	return out
}

// Recount sets Remaining and the checks from the findings.
func Recount(r *Report) {
	r.Remaining = 0
	for _, f := range r.Findings {
		if !f.Fixed && (f.Severity == SevWarning || f.Severity == SevError) {
			r.Remaining++
		}
	}
	r.Checks = summarize(r)
}

func foldInspect(r *Report, in *store.SQLiteReport, s Scope) {
	if in.Era == EraMidUpgrade {
		r.Era = EraMidUpgrade
	}
	for _, d := range in.Databases {
		if !s.keepAgent(NormalizeAgentID(d.Agent)) {
			continue
		}
		r.Databases = append(r.Databases, d)
		if d.Error != "" {
			r.Findings = append(r.Findings, Finding{ID: "sqlite-database-unreadable", Severity: SevError, Path: d.Path, Section: SectionSessions,
				Store: StoreSQLite, Message: "agent " + d.Agent + "'s database cannot be read: " + oneLine(d.Error),
				Fix: "check the file's permissions and `openclaw doctor`; restore it from a backup if it is damaged"})
		}
	}
	for _, e := range in.Errors {
		if !s.keepAgent(pathAgent(r.StateDir, e.Path)) {
			continue
		}
		r.Findings = append(r.Findings, Finding{ID: "sqlite-session-unreadable", Severity: SevError, Path: e.Path, Section: SectionTranscripts,
			Store: StoreSQLite, Message: oneLine(e.Error), Fix: "check the database with `oc inspect` and `openclaw doctor`"})
	}
	for _, f := range in.Findings {
		if !s.keepAgent(pathAgent(r.StateDir, f.Path)) {
			continue
		}
		fd := Finding{ID: f.Rule, Severity: f.Severity, Path: f.Path, Section: SectionSessions, Store: StoreSQLite, Message: f.Message}
		if f.Rule == "jsonl-awaiting-import" {
			fd.Store, fd.Section = StoreJSONL, SectionTranscripts
			fd.Message = "JSONL transcript " + filepath.Base(f.Path) + " is still in the sessions folder: not imported into SQLite yet"
			fd.Fix = "`openclaw doctor --fix` imports it; `oc repair` first keeps what the import would leave behind"
		}
		r.Findings = append(r.Findings, fd)
	}
	sessions := append([]*store.SessionReport(nil), in.Sessions...)
	sort.SliceStable(sessions, func(i, j int) bool { return sessions[i].Key < sessions[j].Key })
	for _, ses := range sessions {
		if !s.keepAgent(NormalizeAgentID(ses.Agent)) {
			continue
		}
		if !s.Since.IsZero() && ses.LastActivity < s.Since.UnixMilli() {
			continue
		}
		if ses.Summary == nil {
			continue
		}
		for _, f := range ses.Findings {
			if f.Severity == transcript.SevInfo {
				continue
			}
			msg, fix := SQLiteAdvice(f.Rule, f.Message)
			r.Findings = append(r.Findings, Finding{ID: f.Rule, Severity: f.Severity, Path: ses.Path, Session: ses.Key, Line: f.Line,
				Section: SectionTranscripts, Store: StoreSQLite, Message: ses.Key + ": " + msg, Fix: fix})
		}
	}
}

// SQLiteAdvice is a finding's message without advice that holds only for
// JSONL files, and what fixes it on a SQLite session: what 2026.9.6 does
// itself when it reads the session, or what to run.
func SQLiteAdvice(rule, msg string) (message, fix string) {
	// "(oc repair …)" and "; run `oc repair` …" are JSONL advice: oc
	// never writes a database.
	if i := strings.Index(msg, " (oc repair"); i >= 0 {
		msg = msg[:i]
	}
	if i := strings.Index(msg, "; run `oc repair`"); i >= 0 {
		msg = msg[:i]
	}
	if i := strings.Index(msg, "; `oc repair`"); i >= 0 {
		msg = msg[:i]
	}
	switch rule {
	case "empty-assistant-error", "blank-user":
		// "…; Bedrock rejects …" is true of the JSONL era's replay only:
		// 2026.9.6 drops the turn before any provider sees it.
		if i := strings.Index(msg, "; "); i >= 0 {
			msg = msg[:i]
		}
	}
	switch rule {
	case "empty-assistant-error":
		return msg, "nothing to run: OpenClaw 2026.9.6 drops a failed empty assistant turn when it builds a request (`oc replay SESSION --explain` shows it); SQLite sessions are OpenClaw's, oc does not repair them"
	case "blank-user":
		return msg, "nothing to run: OpenClaw 2026.9.6 drops blank user text when it builds a request (`oc replay SESSION --explain` shows it); SQLite sessions are OpenClaw's, oc does not repair them"
	case "no-transcript":
		return msg, "nothing in the database to recover: `oc inspect` of the archived original in the agent's session-sqlite-import-archive folder, if there is one, shows what the import left behind"
	case "sqlite-needs-rebuild", "sqlite-cached-leaf-disagrees", "sqlite-cached-path-disagrees":
		return msg, "nothing to run: OpenClaw 2026.9.6 rebuilds its cached navigation when it next reads the session"
	}
	return msg, "SQLite sessions are OpenClaw's (oc never writes a database): `oc export SESSION` takes a copy as JSONL; `openclaw doctor` checks the database"
}

// cronStoreLabel is the store relative to the state dir.
func relTo(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

func foldCron(r *Report, c *SQLiteCronReport, s Scope) {
	db := filepath.Join(r.StateDir, "state", "openclaw.sqlite")
	if len(r.Cron.Jobs) == 0 || r.Cron.Layout == "none" || r.Cron.Layout == "sqlite" {
		r.Cron.Store, r.Cron.Layout = db, "sqlite"
	}
	r.Cron.OpenClaw, r.Cron.OpenClawEnv, r.Cron.Fix, r.Cron.Error = c.OpenClaw, c.OpenClawEnv, c.Fix, c.Error
	if c.Error != "" {
		r.Findings = append(r.Findings, Finding{ID: "cron-store-unreadable", Severity: SevError, Path: db, Section: SectionCron, Store: StoreSQLite,
			Message: "cron_jobs cannot be read: " + c.Error, Fix: "check state/openclaw.sqlite with `openclaw doctor`"})
	}
	for _, j := range c.Jobs {
		if !s.keepAgent(jobAgent(j)) {
			continue
		}
		cj := CronJob{ID: j.ID, Name: j.Name, Enabled: j.Enabled, Store: db, StoreKey: j.StoreKey, Key: j.Key,
			Command: j.Command, Fix: j.Fix, Error: j.Error}
		if j.SessionTarget != "" || j.Error == "" {
			st := j.SessionTarget
			cj.SessionTarget = &st
		}
		if j.Classification != "" {
			cl, rs := j.Classification, j.Reason
			cj.Classification, cj.Reason = &cl, &rs
			t := j.Target
			cj.Target = &t
		}
		fixed := j.Fix != nil && j.Fix.Outcome == CronFixFixed
		cj.Pending = len(j.Command) > 0 && !fixed
		cj.Migrated = fixed
		r.Cron.Jobs = append(r.Cron.Jobs, cj)
		label := jobLabel(j.Name, j.ID)
		how := "`oc doctor --fix` runs the OpenClaw command printed with the job, through " + c.OpenClaw
		switch {
		case j.Fix != nil && (j.Fix.Outcome == CronFixFailed || j.Fix.Outcome == CronFixRefused):
			// the fix was just tried: advising it again would send the
			// operator round in a circle
			how = "the OpenClaw command printed with the job was tried and " + string(j.Fix.Outcome) + " (the reason is shown with it): resolve that, then run the command again"
		case c.OpenClaw == "":
			how = "run the OpenClaw command printed with the job by hand, where OpenClaw 2026.9.6 is installed, against this install's gateway"
		}
		switch {
		case j.Error != "":
			r.Findings = append(r.Findings, Finding{ID: "cron-job-invalid", Severity: SevWarning, Path: db, Section: SectionCron, Store: StoreSQLite,
				Message: label + ": " + j.Error, Fix: "check the job with `openclaw automations show " + j.ID + "`"})
		case j.Classification == Elsewhere:
			r.Findings = append(r.Findings, Finding{ID: "cron-session-target-elsewhere", Severity: SevWarning, Path: db, Section: SectionCron, Store: StoreSQLite, Fixed: fixed,
				Message: fmt.Sprintf("%s: %s delivers to %s, not to that chat (%s)", label, j.SessionTarget, j.Target.String(), j.Reason), Fix: how})
		case j.Classification == InChat && len(j.Command) > 0:
			r.Findings = append(r.Findings, Finding{ID: "cron-session-target-in-chat", Severity: SevWarning, Path: db, Section: SectionCron, Store: StoreSQLite, Fixed: fixed,
				Message: fmt.Sprintf("%s: %s delivers to that chat (%s); OpenClaw 2026.9.6 runs it as sessionTarget \"current\" with that session key", label, j.SessionTarget, j.Reason), Fix: how})
		case j.Classification == Undecidable:
			r.Findings = append(r.Findings, Finding{ID: "cron-session-target-undecidable", Severity: SevWarning, Path: db, Section: SectionCron, Store: StoreSQLite,
				Message: fmt.Sprintf("%s: %s: cannot tell where it delivers (%s); left unchanged", label, j.SessionTarget, j.Reason), Fix: undecidableHint(j.Reason)})
		}
	}
}

func foldAudit(r *Report, a *upgrade.Audit, s Scope) {
	ia := &ImportAudit{Audit: a, Summary: a.Summary()}
	for _, f := range a.Findings() {
		agent := sessionAgent(f.Session)
		if agent == "" {
			agent = pathAgent(r.StateDir, f.Path)
		}
		if !s.keepAgent(agent) {
			continue
		}
		sev := SevInfo
		if f.Severity != "info" {
			sev = SevWarning
		}
		fix := ""
		if len(f.Commands) > 0 {
			if ia.Commands == nil {
				ia.Commands = map[string][][]string{}
			}
			ia.Commands[f.Session] = f.Commands
			fix = "the way back, printed under the import audit (import.commands in --json): restore the archived original, repair it, let OpenClaw import it again"
		}
		r.Findings = append(r.Findings, Finding{ID: f.ID, Severity: sev, Path: f.Path, Session: f.Session, Section: SectionTranscripts,
			Store: StoreJSONL, Message: f.Session + ": " + f.Message, Fix: fix})
	}
	if len(a.Compared) > 0 || len(ia.Commands) > 0 {
		r.Import = ia
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
