package doctor

import (
	"encoding/json"

	"github.com/openclaw-tools/oc/pkg/store"
)

// Severities of a finding. Warnings and errors that remain make check mode exit 1.
const (
	SevInfo    = "info"
	SevWarning = "warning"
	SevError   = "error"
)

// Sections group findings in the human report.
const (
	SectionStateDir    = "State directory"
	SectionGateway     = "Gateway"
	SectionCron        = "Cron"
	SectionSessions    = "Sessions index"
	SectionLocks       = "Locks and temp files"
	SectionTranscripts = "Transcripts"
)

// Finding is one thing doctor noticed.
type Finding struct {
	ID       string `json:"id"`
	Severity string `json:"severity"`
	Path     string `json:"path"`
	Message  string `json:"message"`
	Fix      string `json:"fix"`
	Section  string `json:"section"`
	// Session is the session key the finding is about ("" when it is
	// about a file or the install); Line its line or event (0: none).
	Session string `json:"session,omitempty"`
	Line    int64  `json:"line,omitempty"`
	// Store is the kind of store the finding is about: "jsonl" (a file)
	// or "sqlite" (a database); "" for the install as a whole.
	Store string `json:"store,omitempty"`
	// Fixable: --fix would fix it. Fixed: this run fixed it.
	Fixable bool `json:"fixable"`
	Fixed   bool `json:"fixed"`
}

// Report is the result of one doctor run (the --json document).
type Report struct {
	StateDir string         `json:"stateDir"`
	Era      string         `json:"era"` // "jsonl", "sqlite", "mid-upgrade", "empty"
	Mode     string         `json:"mode"`
	Config   string         `json:"config,omitempty"`
	Gateway  GatewayStatus  `json:"gateway"`
	Findings []Finding      `json:"findings"`
	Cron     CronReport     `json:"cron"`
	Changes  []Change       `json:"changes"`
	Checks   []CheckSummary `json:"checks"`
	// Databases are the agent databases of a SQLite-era install (schema,
	// quick_check, WAL); absent in the JSONL era.
	Databases []*store.DBReport `json:"databases,omitempty"`
	// Import is the audit of OpenClaw's JSONL import (SQLite era).
	Import *ImportAudit `json:"import,omitempty"`
	// Refused is why --fix did not write (gateway running), "" otherwise.
	Refused string `json:"refused,omitempty"`
	// Interrupted says where a cancelled --fix stopped (SIGINT, SIGTERM).
	Interrupted string `json:"interrupted,omitempty"`
	// NoTranscripts: the transcript checks did not run (--no-transcripts).
	NoTranscripts bool `json:"-"`
	// Remaining counts warnings and errors not fixed by this run, of
	// every store.
	Remaining int `json:"remaining"`
}

// CheckSummary is one section's status line.
type CheckSummary struct {
	Section string `json:"section"`
	Status  string `json:"status"` // ok, info, warning, error, skipped
	Detail  string `json:"detail"`
}

// Change is one file doctor wrote, removed or backed up.
type Change struct {
	Action string `json:"action"` // "write", "backup", "remove", "rename", "report"
	Path   string `json:"path"`
	Detail string `json:"detail,omitempty"`
}

// CronReport is the cron part of the report.
type CronReport struct {
	Store     string    `json:"store"`
	StateFile string    `json:"stateFile,omitempty"`
	Layout    string    `json:"layout"` // none, inline-state, state-sidecar, sqlite
	Jobs      []CronJob `json:"jobs"`
	// MigrationReport is the JSON file written beside the store by --fix.
	MigrationReport string   `json:"migrationReport,omitempty"`
	Backups         []string `json:"backups,omitempty"`
	// SQLite era: the openclaw found on PATH, the environment its commands
	// need to act on this install, what --fix did with them, and why
	// cron_jobs could not be read.
	OpenClaw    string      `json:"openclaw,omitempty"`
	OpenClawEnv []string    `json:"openclawEnv,omitempty"`
	Fix         *CronFixRun `json:"fix,omitempty"`
	Error       string      `json:"error,omitempty"`
}

// CronJob is one job as doctor saw it. Classification and Reason are null for
// jobs whose target is not session:<key>; SessionTarget is the value before
// any change.
type CronJob struct {
	ID             string          `json:"id"`
	Name           string          `json:"name"`
	SessionTarget  *string         `json:"sessionTarget"`
	Classification *Classification `json:"classification"`
	Reason         *Reason         `json:"reason"`
	Migrated       bool            `json:"migrated"`
	Enabled        bool            `json:"enabled"`
	// Details for session:<key> jobs.
	Key       string     `json:"key,omitempty"`
	KeyRoute  *Route     `json:"keyRoute,omitempty"`
	Target    *Route     `json:"target,omitempty"`
	Pending   bool       `json:"pending,omitempty"`   // ELSEWHERE, --fix would migrate it
	Blocked   string     `json:"blocked,omitempty"`   // ELSEWHERE but doctor will not migrate it: why
	Migration *Migration `json:"migration,omitempty"` // what --fix changed (or would change)
	// Store is the file or database that holds the job (cron/jobs.json or
	// state/openclaw.sqlite); StoreKey its cron_jobs store_key (SQLite).
	Store    string `json:"store"`
	StoreKey string `json:"storeKey,omitempty"`
	// Command is the OpenClaw command that applies the fix to a SQLite job
	// (argv), Fix what --fix did with it; Error why the row could not be
	// classified.
	Command []string       `json:"command,omitempty"`
	Fix     *CronFixResult `json:"fix,omitempty"`
	Error   string         `json:"error,omitempty"`
}

// Migration records one migrated job (the report file's entries).
type Migration struct {
	ID                string          `json:"id"`
	Name              string          `json:"name"`
	AgentID           string          `json:"agentId,omitempty"`
	Enabled           bool            `json:"enabled"`
	OldSessionTarget  string          `json:"oldSessionTarget"`
	NewSessionTarget  string          `json:"newSessionTarget"`
	Key               string          `json:"key"`
	Classification    Classification  `json:"classification"`
	Reason            Reason          `json:"reason"`
	KeyRoute          Route           `json:"keyRoute"`
	Route             Route           `json:"route"`
	DeliveryBefore    json.RawMessage `json:"deliveryBefore"`
	DeliveryAfter     json.RawMessage `json:"deliveryAfter"`
	RemovedSessionKey string          `json:"removedSessionKey,omitempty"`
	UpdatedAtMs       int64           `json:"updatedAtMs"`
	ContextLoss       string          `json:"contextLoss"`
}

// MigrationFile is the JSON report written beside the store.
type MigrationFile struct {
	Tool      string      `json:"tool"`
	CreatedAt string      `json:"createdAt"`
	StateDir  string      `json:"stateDir"`
	Store     string      `json:"store"`
	StateFile string      `json:"stateFile,omitempty"`
	Backups   []string    `json:"backups"`
	Jobs      []Migration `json:"jobs"`
}
