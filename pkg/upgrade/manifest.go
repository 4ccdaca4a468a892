package upgrade

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openclaw-tools/oc/internal/lazyre"
)

// MigrationRunsDir is SESSION_SQLITE_MIGRATION_RUNS_DIR of
// doctor-session-sqlite-migration-run-*.mjs: one manifest
// `<runId>.json` per import run, under the state dir.
const MigrationRunsDir = "session-sqlite-migration-runs"

// ImportArchiveDir is the folder (beside an agent's sessions/) that 9.6's
// import moves every original it read into (isRestoreMoveWithinTarget,
// doctor-session-sqlite-migration-run-*.mjs).
const ImportArchiveDir = "session-sqlite-import-archive"

// MigrationRun is one manifest, as far as the audit needs it. oc only reads
// manifests: OpenClaw checks the digests they record before a restore.
type MigrationRun struct {
	Path        string `json:"path"`
	RunID       string `json:"runId"`
	StartedAt   string `json:"startedAt,omitempty"`
	CompletedAt string `json:"completedAt,omitempty"`
	FailedAt    string `json:"failedAt,omitempty"`
	Version     string `json:"openClawVersion,omitempty"`
	// Restored: a restore already ran for this manifest (its status).
	Restored string            `json:"restored,omitempty"`
	Targets  []MigrationTarget `json:"targets"`
	// Error: the manifest could not be read (OpenClaw's restore skips it too).
	Error string `json:"error,omitempty"`
}

// MigrationTarget is one agent's part of a run.
type MigrationTarget struct {
	AgentID    string          `json:"agentId"`
	SQLitePath string          `json:"sqlitePath"`
	StorePath  string          `json:"storePath"`
	Moves      []MigrationMove `json:"moves"`
}

// MigrationMove is one file the run moved into the import archive
// (MigrationMoveSchema): completedMoves and plannedMoves, deduplicated.
type MigrationMove struct {
	ArchivePath    string `json:"archivePath"`
	SourcePath     string `json:"sourcePath"`
	Kind           string `json:"kind"` // legacy-store, transcript, trajectory, unreferenced-jsonl
	SessionKey     string `json:"sessionKey,omitempty"`
	Classification string `json:"classification,omitempty"` // imported, repair-original, protected
	Reason         string `json:"reason,omitempty"`
	Disposal       string `json:"disposal,omitempty"` // retained, pending-disposal, disposed
	Completed      bool   `json:"completed"`
}

type rawMove struct {
	ArchivePath string `json:"archivePath"`
	SourcePath  string `json:"sourcePath"`
	Kind        string `json:"kind"`
	SessionKey  string `json:"sessionKey"`
	Artifact    *struct {
		Classification string `json:"classification"`
		Reason         string `json:"reason"`
		Disposal       struct {
			State string `json:"state"`
		} `json:"disposal"`
	} `json:"artifact"`
}

type rawManifest struct {
	RunID       string `json:"runId"`
	StartedAt   string `json:"startedAt"`
	CompletedAt string `json:"completedAt"`
	FailedAt    string `json:"failedAt"`
	Version     string `json:"openClawVersion"`
	Restore     *struct {
		Status string `json:"status"`
	} `json:"restore"`
	Targets []struct {
		AgentID        string    `json:"agentId"`
		SQLitePath     string    `json:"sqlitePath"`
		StorePath      string    `json:"storePath"`
		CompletedMoves []rawMove `json:"completedMoves"`
		PlannedMoves   []rawMove `json:"plannedMoves"`
	} `json:"targets"`
}

// maxManifestBytes bounds one manifest read (a manifest lists one move per
// archived file: a few hundred bytes each).
const maxManifestBytes = 64 << 20

// ReadMigrationRuns reads every manifest of a state dir
// (listSessionSqliteMigrationManifestPaths: `*.json` but not
// `*.failure.json`), newest run id first.
func ReadMigrationRuns(stateDir string) []MigrationRun {
	dir := filepath.Join(stateDir, MigrationRunsDir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []MigrationRun
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".failure.json") || !e.Type().IsRegular() {
			continue
		}
		out = append(out, readMigrationRun(filepath.Join(dir, n)))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path > out[j].Path })
	return out
}

func readMigrationRun(path string) MigrationRun {
	run := MigrationRun{Path: path, RunID: strings.TrimSuffix(filepath.Base(path), ".json")}
	st, err := os.Stat(path)
	if err != nil {
		run.Error = err.Error()
		return run
	}
	if st.Size() > maxManifestBytes {
		run.Error = "manifest larger than 64 MiB: not read"
		return run
	}
	data, err := os.ReadFile(path)
	if err != nil {
		run.Error = err.Error()
		return run
	}
	var m rawManifest
	if err := json.Unmarshal(data, &m); err != nil {
		run.Error = "not a migration manifest: " + err.Error()
		return run
	}
	if m.RunID != "" {
		run.RunID = m.RunID
	}
	run.StartedAt, run.CompletedAt, run.FailedAt, run.Version = m.StartedAt, m.CompletedAt, m.FailedAt, m.Version
	if m.Restore != nil {
		run.Restored = m.Restore.Status
	}
	for _, t := range m.Targets {
		mt := MigrationTarget{AgentID: t.AgentID, SQLitePath: t.SQLitePath, StorePath: t.StorePath}
		// uniqueRestoreMoves: completed then planned, keyed by source\0archive
		seen := map[string]int{}
		add := func(list []rawMove, completed bool) {
			for _, rm := range list {
				mv := MigrationMove{ArchivePath: rm.ArchivePath, SourcePath: rm.SourcePath, Kind: rm.Kind, SessionKey: rm.SessionKey, Completed: completed}
				if rm.Artifact != nil {
					mv.Classification, mv.Reason, mv.Disposal = rm.Artifact.Classification, rm.Artifact.Reason, rm.Artifact.Disposal.State
				}
				k := rm.SourcePath + "\x00" + rm.ArchivePath
				if i, ok := seen[k]; ok {
					mv.Completed = mv.Completed || mt.Moves[i].Completed
					mt.Moves[i] = mv
					continue
				}
				seen[k] = len(mt.Moves)
				mt.Moves = append(mt.Moves, mv)
			}
		}
		add(t.CompletedMoves, true)
		add(t.PlannedMoves, false)
		run.Targets = append(run.Targets, mt)
	}
	return run
}

// archiveNameRE is the name planSessionJsonlArchiveMove
// (doctor-session-sqlite-*.mjs) gives an archived file:
// `${keySlug}.${baseName}.imported-${Date.now()}` plus `.${attempt}` on a clash.
var archiveNameRE = lazyre.New(`^(.+)\.imported-(\d+)(?:\.\d+)?$`)

// IsArchivedOriginal reports whether name is an archived transcript
// (`<key>.<file>.jsonl.imported-<ms>`): not the archived sessions.json, a
// trajectory or a compaction checkpoint, which 9.6 never imports.
func IsArchivedOriginal(name string) bool {
	m := archiveNameRE().FindStringSubmatch(name)
	if m == nil || !strings.HasSuffix(m[1], ".jsonl") {
		return false
	}
	base := m[1]
	return !strings.HasSuffix(base, ".trajectory.jsonl") && !strings.Contains(base, ".checkpoint.")
}

// archivedSessionID is the session id an archived original's name carries:
// the source file name without `.jsonl`, that is the last dot-separated part
// before `.jsonl` (session ids have no dots: readLegacyPrimaryTranscriptIdentity).
func archivedSessionID(name string) string {
	m := archiveNameRE().FindStringSubmatch(name)
	if m == nil {
		return ""
	}
	base := strings.TrimSuffix(m[1], ".jsonl")
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		base = base[i+1:]
	}
	return base
}
