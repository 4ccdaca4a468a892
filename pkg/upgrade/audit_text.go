package upgrade

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Finding ids of the audit.
const (
	// FindingImportLoss: entries of an archived original are not in SQLite.
	FindingImportLoss = "import-loss"
	// FindingImportRewritten: every entry is in SQLite, some under ids the
	// import rewrote (no loss; told so that the oracle's count is explained).
	FindingImportRewritten = "import-ids-rewritten"
	// FindingActiveUnimported: a JSONL file beside a SQLite session holds
	// entries the database does not.
	FindingActiveUnimported = "active-jsonl-unimported"
	// FindingActiveImported: a JSONL file beside a SQLite session is fully
	// in SQLite.
	FindingActiveImported = "active-jsonl-imported"
	// FindingAuditFailed: a file could not be compared.
	FindingAuditFailed = "import-audit-failed"
)

// AuditFinding is one audit result for doctor: an id, a severity
// ("warning" or "info"), the text and the commands that are the way back.
type AuditFinding struct {
	ID       string     `json:"id"`
	Severity string     `json:"severity"`
	Path     string     `json:"path"`
	Session  string     `json:"session"`
	Message  string     `json:"message"`
	Commands [][]string `json:"commands,omitempty"`
	// Compared is the comparison the finding is about.
	Compared *Comparison `json:"-"`
}

// Findings turns the audit into doctor findings: one per archived original
// with entries absent from SQLite (import-loss) or stored under rewritten
// ids, one per JSONL file beside a SQLite session; clean archived originals
// give none.
func (a *Audit) Findings() []AuditFinding {
	out := []AuditFinding{}
	for i := range a.Compared {
		c := &a.Compared[i]
		f := AuditFinding{Path: c.Path, Session: c.label(), Compared: c}
		switch {
		case c.Error != "":
			f.ID, f.Severity = FindingAuditFailed, "warning"
			f.Message = "could not compare with the database: " + printable(c.Error, 200)
		case c.Kind == KindArchived && c.Lost():
			f.ID, f.Severity = FindingImportLoss, "warning"
			f.Message = c.lossText()
			f.Commands = a.wayBack(c)
		case c.Kind == KindArchived && len(c.Rewritten) > 0:
			f.ID, f.Severity = FindingImportRewritten, "info"
			f.Message = fmt.Sprintf("every entry of the archived original is in SQLite; %d %s stored under %s the import rewrote (no loss)",
				len(c.Rewritten), plural(len(c.Rewritten), "entry is", "entries are"), plural(len(c.Rewritten), "an id", "ids"))
		case c.Kind == KindActive && c.Lost():
			f.ID, f.Severity = FindingActiveUnimported, "warning"
			f.Message = fmt.Sprintf("JSONL file beside the SQLite session (OpenClaw's active_sqlite_transcript_jsonl): %d %s absent from SQLite, from line %d on (%d %s)",
				len(c.Absent), plural(len(c.Absent), "entry", "entries"), c.Absent[0], c.AbsentMessages, plural(c.AbsentMessages, "message", "messages"))
			f.Commands = [][]string{
				{"oc", "repair", c.Path},
				{"openclaw", "doctor", "--fix"},
			}
		case c.Kind == KindActive:
			f.ID, f.Severity = FindingActiveImported, "info"
			f.Message = fmt.Sprintf("JSONL file beside the SQLite session (OpenClaw's active_sqlite_transcript_jsonl): fully in SQLite (%d of %d lines compared), safe to archive",
				c.ValidLines, c.Lines)
			f.Commands = [][]string{{"openclaw", "doctor", "--fix"}}
		default:
			continue
		}
		out = append(out, f)
	}
	return out
}

// Summary is one line on the archived originals compared.
func (a *Audit) Summary() string {
	n, failed, losses, entries := 0, 0, 0, 0
	for _, c := range a.Compared {
		switch {
		case c.Kind != KindArchived:
		case c.Error != "":
			failed++
		default:
			n++
			if c.Lost() {
				losses++
				entries += len(c.Absent)
			}
		}
	}
	if n+failed == 0 {
		return "no archived originals of a JSONL import (agents/*/" + ImportArchiveDir + ")"
	}
	var s string
	switch {
	case n == 0:
		return fmt.Sprintf("import audit: none of %d archived %s could be compared with SQLite", failed, plural(failed, "original", "originals"))
	case losses == 0:
		s = fmt.Sprintf("import audit: %d archived %s compared with SQLite, all history imported", n, plural(n, "original", "originals"))
	default:
		s = fmt.Sprintf("import audit: %d archived %s compared with SQLite; %d %s of %d %s stayed behind in the import archive",
			n, plural(n, "original", "originals"), entries, plural(entries, "entry", "entries"), losses, plural(losses, "session", "sessions"))
	}
	if failed > 0 {
		s += fmt.Sprintf("; %d could not be compared", failed)
	}
	return s
}

func (c *Comparison) label() string {
	if c.SessionKey != "" {
		return c.SessionKey
	}
	return c.SessionID
}

func (c *Comparison) lossText() string {
	var b strings.Builder
	run := ""
	if c.RunID != "" {
		run = " by run " + printable(c.RunID, 80)
	}
	if !c.InDatabase || c.StoredEvents == 0 {
		fmt.Fprintf(&b, "nothing of this session is in SQLite: the import%s stored no event of it; %d %s (%d %s) from line %d on stayed behind in the import archive",
			run, len(c.Absent), plural(len(c.Absent), "entry", "entries"),
			c.AbsentMessages, plural(c.AbsentMessages, "message", "messages"), c.Absent[0])
	} else {
		fmt.Fprintf(&b, "the import%s stored %d %s; %d %s (%d %s) from line %d on stayed behind in the import archive",
			run, c.StoredEvents, plural(c.StoredEvents, "event", "events"), len(c.Absent), plural(len(c.Absent), "entry", "entries"),
			c.AbsentMessages, plural(c.AbsentMessages, "message", "messages"), c.Absent[0])
	}
	if c.LastMessage != nil {
		fmt.Fprintf(&b, "; the last message that made it is line %d", c.LastMessage.Line)
		if c.LastMessage.Role != "" || c.LastMessage.ID != "" {
			fmt.Fprintf(&b, " (%s)", strings.TrimSpace(printable(c.LastMessage.Role, 20)+" "+printable(c.LastMessage.ID, 40)))
		}
	} else {
		b.WriteString("; no message made it")
	}
	if c.ManifestElsewhere {
		b.WriteString("; the run's manifest names a database at another path (the state dir was moved or copied since): OpenClaw's restore only acts on the state dir where the import ran; here `oc export` reads the original")
	}
	if c.Manifest == "" {
		b.WriteString("; no migration manifest names this file, so OpenClaw's restore cannot put it back: read it with `oc export`")
	}
	return b.String()
}

// wayBack is the way back for an import loss, as commands: OpenClaw's own
// restore of the agent's import runs (it moves every retained original of
// the agent back into sessions/ and records it in the manifest), oc repair
// on the restored file, then OpenClaw's doctor --fix, which imports a JSONL
// file beside a SQLite session (the events still missing) and archives it
// again.
func (a *Audit) wayBack(c *Comparison) [][]string {
	if c.Manifest == "" || c.ManifestElsewhere {
		return [][]string{{"oc", "export", c.Path}}
	}
	src := filepath.Base(c.SourcePath)
	if src == "." || src == "" {
		src = c.SessionID + ".jsonl"
	}
	restored := filepath.Join(a.StateDir, "agents", c.Agent, "sessions", src)
	return [][]string{
		{"openclaw", "doctor", "--session-sqlite", "restore", "--session-sqlite-agent", c.Agent},
		{"oc", "repair", restored},
		{"openclaw", "doctor", "--fix"},
	}
}
