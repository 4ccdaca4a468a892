package upgrade

// The audit after the upgrade: 2026.9.6's import moved every original it
// read into agents/<id>/session-sqlite-import-archive/ and recorded the move
// in a manifest under session-sqlite-migration-runs/. Each archived original
// is compared with the events stored for its session, by entry id, as the
// 9.6 oracle's import report matches them (a header by `session:<id>`): a
// valid line whose id is not stored either was stored under another id (a
// known import rewrite: header id set to the session id, generated v1 ids)
// or stayed behind. oc reads the database, the archive and the manifests and
// never writes them: OpenClaw checks their digests before a restore.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
)

// Comparison kinds.
const (
	// KindArchived: an original in the import archive.
	KindArchived = "archived-original"
	// KindActive: a JSONL file still in sessions/ beside a SQLite-backed
	// session (9.6's doctor issue active_sqlite_transcript_jsonl).
	KindActive = "active-jsonl"
)

// Comparison is one JSONL file compared line by line with the events of
// its session in the agent database.
type Comparison struct {
	Kind       string `json:"kind"`
	Agent      string `json:"agent"`
	SessionKey string `json:"sessionKey,omitempty"`
	SessionID  string `json:"sessionId,omitempty"`
	Path       string `json:"path"`
	// From the manifest that moved the file (archived originals).
	RunID          string `json:"runId,omitempty"`
	Manifest       string `json:"manifest,omitempty"`
	SourcePath     string `json:"sourcePath,omitempty"`
	Classification string `json:"classification,omitempty"`
	Reason         string `json:"reason,omitempty"`
	Disposal       string `json:"disposal,omitempty"`
	// ManifestElsewhere: the manifest names another database path (the state
	// dir was moved or copied after the import): OpenClaw's restore matches
	// runs by path and will not act on this copy.
	ManifestElsewhere bool `json:"manifestElsewhere,omitempty"`
	// InDatabase: the database has a session with this id.
	InDatabase   bool `json:"inDatabase"`
	StoredEvents int  `json:"storedEvents"`
	// Lines counts the file's lines; ValidLines those JSON.parse accepts.
	Lines      int64 `json:"lines"`
	ValidLines int   `json:"validLines"`
	// NotImported: valid lines whose entry id is not among the stored
	// events (the oracle's validLinesNotImported). Rewritten are those whose
	// entry is stored under another id by a known import rewrite; Absent the
	// rest: history that is not in SQLite.
	NotImported    []int64     `json:"notImported,omitempty"`
	Rewritten      []int64     `json:"rewritten,omitempty"`
	Absent         []int64     `json:"absent,omitempty"`
	AbsentMessages int         `json:"absentMessages,omitempty"`
	LastMessage    *MessageRef `json:"lastMessage,omitempty"`
	Error          string      `json:"error,omitempty"`
}

// Lost reports whether entries of the file are not in SQLite.
func (c *Comparison) Lost() bool { return len(c.Absent) > 0 }

// Audit is the comparison of a SQLite-era state dir with what its import left.
type Audit struct {
	StateDir string         `json:"stateDir"`
	Runs     []MigrationRun `json:"runs,omitempty"`
	// Compared lists every comparison made: archived originals, then JSONL
	// files beside SQLite sessions.
	Compared []Comparison `json:"compared"`
}

// Losses returns the comparisons with entries absent from SQLite.
func (a *Audit) Losses() []Comparison {
	var out []Comparison
	for _, c := range a.Compared {
		if c.Lost() {
			out = append(out, c)
		}
	}
	return out
}

// Count returns how many files of a kind were compared.
func (a *Audit) Count(kind string) int {
	n := 0
	for _, c := range a.Compared {
		if c.Kind == kind {
			n++
		}
	}
	return n
}

type moveRef struct {
	run  *MigrationRun
	tgt  *MigrationTarget
	move MigrationMove
}

// AuditImport compares every archived original and every JSONL file beside
// a SQLite-backed session of st with the agent databases.
//
// A database or folder that cannot be read makes the comparisons that need
// it fail (Comparison.Error), not the audit.
func AuditImport(ctx context.Context, st *store.State) (*Audit, error) {
	a := &Audit{StateDir: st.Root, Runs: ReadMigrationRuns(st.Root), Compared: []Comparison{}}
	sessions, err := st.SQLiteSessions(ctx)
	if err != nil {
		// a database that cannot be read: every comparison with it fails
		// below and says so; the others are still made
		sessions = nil
	}
	au := newImportAuditor(st, a.Runs, sessions)
	defer au.close()

	agentDirs, _ := filepath.Glob(filepath.Join(st.Root, "agents", "*", ImportArchiveDir))
	sort.Strings(agentDirs)
	for _, dir := range agentDirs {
		a.Compared = au.compareArchiveDir(ctx, a.Compared, dir)
	}
	for _, ses := range sessions {
		path := activeTranscript(st.Root, ses)
		if path == "" {
			continue
		}
		c := Comparison{Kind: KindActive, Agent: ses.Agent, SessionKey: ses.Key, SessionID: ses.ID, Path: path, InDatabase: true}
		au.compare(ctx, &c)
		a.Compared = append(a.Compared, c)
	}
	return a, nil
}

// importAuditor holds what AuditImport looks files up in: the moves the
// migration runs recorded, the imported sessions, and the agent databases
// opened so far.
type importAuditor struct {
	st *store.State
	// archive file name per agent -> the move that put it there (paths in
	// a manifest are absolute at import time; a copied state dir keeps them)
	moves map[string]moveRef
	byKey map[string]store.Session
	byID  map[string]store.Session
	dbs   map[string]*sqlitestore.DB
}

func newImportAuditor(st *store.State, runs []MigrationRun, sessions []store.Session) *importAuditor {
	au := &importAuditor{st: st, moves: map[string]moveRef{}, byKey: map[string]store.Session{},
		byID: map[string]store.Session{}, dbs: map[string]*sqlitestore.DB{}}
	for i := range runs {
		r := &runs[i]
		for j := range r.Targets {
			t := &r.Targets[j]
			for _, mv := range t.Moves {
				k := t.AgentID + "\x00" + filepath.Base(mv.ArchivePath)
				if _, ok := au.moves[k]; !ok { // newest run first
					au.moves[k] = moveRef{run: r, tgt: t, move: mv}
				}
			}
		}
	}
	for _, s := range sessions {
		au.byKey[s.Agent+"\x00"+s.Key] = s
		if _, ok := au.byID[s.Agent+"\x00"+s.ID]; !ok {
			au.byID[s.Agent+"\x00"+s.ID] = s
		}
	}
	return au
}

func (au *importAuditor) close() {
	for _, db := range au.dbs {
		db.Close()
	}
}

// openDB opens the agent's database once (nil, nil when it has none).
func (au *importAuditor) openDB(ctx context.Context, agent string) (*sqlitestore.DB, error) {
	for _, d := range au.st.AgentDBs {
		if d.Agent != agent {
			continue
		}
		if db, ok := au.dbs[d.Path]; ok {
			return db, nil
		}
		db, err := au.st.OpenAgentDB(ctx, d.Path)
		if err != nil {
			return nil, err
		}
		au.dbs[d.Path] = db
		return db, nil
	}
	return nil, nil
}

// compare compares c's file with its agent's database.
func (au *importAuditor) compare(ctx context.Context, c *Comparison) {
	if db, err := au.openDB(ctx, c.Agent); err != nil {
		// an unreadable database is doctor's finding elsewhere; here
		// the file could not be compared
		c.Error = err.Error()
	} else {
		compareFile(ctx, c, db)
	}
}

// compareArchiveDir appends the comparison of every archived original in
// one agent's import archive directory.
func (au *importAuditor) compareArchiveDir(ctx context.Context, compared []Comparison, dir string) []Comparison {
	agent := filepath.Base(filepath.Dir(dir))
	ents, err := os.ReadDir(dir)
	if err != nil {
		return append(compared, Comparison{Kind: KindArchived, Agent: agent, Path: dir, Error: err.Error()})
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || !IsArchivedOriginal(e.Name()) {
			continue
		}
		c, ok := au.archived(agent, dir, e.Name())
		if !ok {
			continue
		}
		au.compare(ctx, &c)
		compared = append(compared, c)
	}
	return compared
}

// archived describes an archived original: the move that put it there and
// the session it was imported as. ok is false for the files a move archived
// that are no transcripts (trajectories, legacy stores).
func (au *importAuditor) archived(agent, dir, name string) (c Comparison, ok bool) {
	c = Comparison{Kind: KindArchived, Agent: agent, Path: filepath.Join(dir, name)}
	id := archivedSessionID(name)
	if ref, ok := au.moves[agent+"\x00"+name]; ok {
		if ref.move.Kind == "trajectory" || ref.move.Kind == "legacy-store" {
			return c, false
		}
		c.RunID, c.Manifest = ref.run.RunID, ref.run.Path
		c.SourcePath, c.SessionKey = ref.move.SourcePath, ref.move.SessionKey
		c.Classification, c.Reason, c.Disposal = ref.move.Classification, ref.move.Reason, ref.move.Disposal
		c.ManifestElsewhere = !samePath(ref.tgt.SQLitePath, filepath.Join(au.st.Root, "agents", agent, "agent", store.AgentDBName))
		id = strings.TrimSuffix(filepath.Base(ref.move.SourcePath), ".jsonl")
	}
	ses, ok := au.byKey[agent+"\x00"+c.SessionKey]
	if c.SessionKey == "" || !ok {
		ses, ok = au.byID[agent+"\x00"+id]
	}
	if ok {
		c.SessionKey, c.SessionID, c.InDatabase = ses.Key, ses.ID, true
	} else {
		c.SessionID = id
	}
	return c, true
}

// activeTranscript is resolveActiveSqliteTranscriptFile of
// doctor-session-sqlite-*.mjs: the session's JSONL file (sessionFile of
// its entry, else <sessionId>.jsonl) when it exists in the agent's sessions
// folder; "" otherwise.
func activeTranscript(root string, ses store.Session) string {
	if ses.Key == "" || ses.ID == "" {
		return ""
	}
	dir := filepath.Join(root, "agents", ses.Agent, "sessions")
	name := ses.ID + ".jsonl"
	var entry struct {
		SessionFile string `json:"sessionFile"`
	}
	if len(ses.Index) > 0 && json.Unmarshal(ses.Index, &entry) == nil && entry.SessionFile != "" {
		name = entry.SessionFile
	}
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	if !strings.HasSuffix(p, ".jsonl") || filepath.Dir(filepath.Clean(p)) != filepath.Clean(dir) {
		return ""
	}
	if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return p
}

func samePath(a, b string) bool {
	ca, err1 := filepath.EvalSymlinks(filepath.Dir(a))
	cb, err2 := filepath.EvalSymlinks(filepath.Dir(b))
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return filepath.Join(ca, filepath.Base(a)) == filepath.Join(cb, filepath.Base(b))
}

// srcLine is one valid line of a compared file.
type srcLine struct {
	line    int64
	key     string
	message bool
	role    string
	id      string
}

// compareFile fills c's line counts from the file at c.Path and the stored
// events of c.SessionID (db may be nil: no database for the agent).
func compareFile(ctx context.Context, c *Comparison, db *sqlitestore.DB) {
	lines, srcKeys, err := readSourceLines(c)
	if err != nil {
		c.Error = err.Error()
		return
	}
	c.ValidLines = len(lines)
	stored := map[string]struct{}{}
	extra := map[string]int{} // fingerprints of stored rows no source line's id names
	if db != nil && c.InDatabase {
		if err := readStoredKeys(ctx, c, db, srcKeys, stored, extra); err != nil {
			c.Error = err.Error()
			return
		}
	}
	want := map[int64]bool{}
	for _, sl := range lines {
		if _, ok := stored[sl.key]; !ok {
			c.NotImported = append(c.NotImported, sl.line)
			want[sl.line] = true
		}
	}
	if len(want) > 0 && len(extra) > 0 {
		if err := splitRewritten(c, want, extra); err != nil {
			c.Error = err.Error()
			return
		}
	} else {
		c.Absent = c.NotImported
	}
	lastImportedMessage(c, lines)
}

// readSourceLines reads the valid lines of c's file (counting all of them
// in c.Lines) and the set of their id keys.
func readSourceLines(c *Comparison) ([]srcLine, map[string]struct{}, error) {
	var lines []srcLine
	srcKeys := map[string]struct{}{}
	err := store.JSONLRows(c.Path, nil, func(n int64, raw []byte) error {
		c.Lines = n
		if n == 1 {
			raw = bytes.TrimPrefix(raw, []byte("\ufeff")) // 9.6 tolerates a BOM
		}
		if jsonl.IsBlank(raw) || !jsonl.Valid(raw) {
			return nil
		}
		sl := srcLine{line: n, key: lineIDKey(raw, "o", n)}
		if isMessage(raw) {
			sl.message = true
			jsonl.Members(raw, func(k, v []byte) bool {
				switch string(k) {
				case "message":
					sl.role, _ = messageInfo(v)
				case "id":
					sl.id, _ = jsonl.StringValue(v)
				}
				return true
			})
		}
		lines = append(lines, sl)
		srcKeys[sl.key] = struct{}{}
		return nil
	})
	return lines, srcKeys, err
}

// readStoredKeys reads the session's stored events into stored (their id
// keys) and extra (the fingerprints of those no source line names).
func readStoredKeys(ctx context.Context, c *Comparison, db *sqlitestore.DB, srcKeys, stored map[string]struct{}, extra map[string]int) error {
	reset := func() {
		c.StoredEvents = 0
		clear(stored)
		clear(extra)
	}
	_, err := db.Events(ctx, c.SessionID, reset, func(ev sqlitestore.Event) error {
		c.StoredEvents++
		if !jsonl.Valid(ev.JSON) {
			return nil
		}
		k := lineIDKey(ev.JSON, "s", ev.Seq)
		stored[k] = struct{}{}
		if _, ok := srcKeys[k]; !ok {
			extra[fingerprint(ev.JSON)]++
		}
		return nil
	})
	return err
}

// splitRewritten sorts the lines not imported (want) into those stored
// rewritten by the import (an extra stored row matches them once its
// rewrites are undone) and those absent.
func splitRewritten(c *Comparison, want map[int64]bool, extra map[string]int) error {
	rewritten := map[int64]bool{}
	err := store.JSONLRows(c.Path, nil, func(n int64, raw []byte) error {
		if !want[n] {
			return nil
		}
		if n == 1 {
			raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
		}
		if fp := fingerprint(store.UndoImportRewrites(raw)); extra[fp] > 0 {
			extra[fp]--
			rewritten[n] = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, n := range c.NotImported {
		if rewritten[n] {
			c.Rewritten = append(c.Rewritten, n)
		} else {
			c.Absent = append(c.Absent, n)
		}
	}
	return nil
}

// lastImportedMessage counts the absent messages and finds the last message
// before the first absent line.
func lastImportedMessage(c *Comparison, lines []srcLine) {
	first := int64(-1)
	if len(c.Absent) > 0 {
		first = c.Absent[0]
	}
	absent := map[int64]bool{}
	for _, n := range c.Absent {
		absent[n] = true
	}
	for _, sl := range lines {
		if !sl.message {
			continue
		}
		if absent[sl.line] {
			c.AbsentMessages++
			continue
		}
		if first < 0 || sl.line < first {
			c.LastMessage = &MessageRef{Line: sl.line, ID: sl.id, Role: sl.role}
		}
	}
}

// fingerprint identifies an entry up to the ids the import may rewrite:
// its JSON value without id and parentId (and a header's version), in a
// canonical encoding.
func fingerprint(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "invalid:" + string(raw)
	}
	if m, ok := v.(map[string]any); ok {
		delete(m, "id")
		delete(m, "parentId")
		if m["type"] == "session" {
			delete(m, "version")
		}
	}
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return string(sum[:])
}
