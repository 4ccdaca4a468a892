// Package store is "the sessions of a state dir" for both storage eras of
// OpenClaw: JSONL transcripts with sessions.json (2026.5.6 and before) and
// the SQLite agent databases of 2026.8.1+ (agents/<id>/agent/
// openclaw-agent.sqlite, index in session_nodes). Commands list sessions,
// resolve a SESSION argument (a path, a session id or unique prefix, a
// session key) and read a session's rows in order as JSONL lines without
// caring which era they read.
package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openclaw-tools/oc/internal/budget"
	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// Era is where a session is stored.
type Era string

const (
	EraJSONL  Era = "jsonl"
	EraSQLite Era = "sqlite"
)

// AgentDBName is an agent database's path under the state dir.
const AgentDBName = "openclaw-agent.sqlite"

// Session is one session of a state dir, in either era.
type Session struct {
	Era    Era    `json:"era"`
	Agent  string `json:"agent,omitempty"`
	Key    string `json:"key,omitempty"`
	ID     string `json:"sessionId,omitempty"`
	Path   string `json:"path"` // the JSONL file, or the agent database
	Events int    `json:"events"`
	Bytes  int64  `json:"bytes"`
	// LastActivity is the newest event's created_at (SQLite, ms) or the
	// file's modification time (JSONL, ms).
	LastActivity int64 `json:"lastActivity,omitempty"`
	// Index is the session's index entry as stored (sessions.json value or
	// session_nodes.entry_json); nil when no index names it.
	Index json.RawMessage `json:"index,omitempty"`
	// Cold: a SQLite transcript in 2026.9.6's cold storage (its rows are
	// read from the archive).
	Cold bool `json:"cold,omitempty"`
	// Archive is set for an archived generation (a deleted or reset
	// session's transcript in session_transcript_archives): its rows are
	// the archive's lines, Bytes is the blob's size and LastActivity the
	// row's created_at.
	Archive *ArchiveRef `json:"archived,omitempty"`
}

// Label names a session in messages: its key, else its id, else its path;
// an archived generation as "<id>@<generation>".
func (s Session) Label() string {
	switch {
	case s.Archive != nil:
		return s.ID + "@" + s.Archive.Generation
	case s.Key != "":
		return s.Key
	case s.ID != "":
		return s.ID
	}
	return s.Path
}

// Options tune how databases are opened.
type Options struct {
	SQLite sqlitestore.Options
	// DecodedBudget bounds the decoded bytes (zstd rows, cold archives,
	// archived generations) the run holds at once, shared by all its
	// workers: budget.Default (256 MiB) when 0. SQLite.Budget, when set, is
	// used instead.
	DecodedBudget int64
	// MaxExportDecoded bounds what Rows and Export decode for one session
	// (its zstd rows and cold archive, or an archived generation's text):
	// DefaultMaxExportDecoded when 0. Over it, nothing is handed out.
	MaxExportDecoded int64
}

// DefaultMaxExportDecoded is the most decoded bytes oc export writes for
// one session unless told otherwise (--max-decoded-size): 1 GiB.
const DefaultMaxExportDecoded = 1 << 30

// ErrDecodedLimit: a session decodes to more than Options.MaxExportDecoded.
var ErrDecodedLimit = errors.New("over the limit on decoded size")

// State is an opened state dir.
type State struct {
	Root     string
	opts     Options
	budget   *budget.Bytes
	AgentDBs []AgentDB // agents/<id>/agent/openclaw-agent.sqlite found on disk
	JSONL    *transcript.StateDir
}

// AgentDB is one agent database on disk.
type AgentDB struct {
	Agent string `json:"agent"`
	Path  string `json:"path"`
}

// Open looks at a state dir: its agent databases and JSONL sessions folders.
func Open(root string, opts Options) (*State, error) {
	if opts.SQLite.Budget == nil {
		opts.SQLite.Budget = budget.New(opts.DecodedBudget)
	}
	if opts.MaxExportDecoded <= 0 {
		opts.MaxExportDecoded = DefaultMaxExportDecoded
	}
	st := &State{Root: root, opts: opts, budget: opts.SQLite.Budget}
	sd, err := transcript.OpenStateDir(root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", root, err)
	}
	st.JSONL = sd
	matches, _ := filepath.Glob(filepath.Join(root, "agents", "*", "agent", AgentDBName))
	sort.Strings(matches)
	for _, m := range matches {
		st.AgentDBs = append(st.AgentDBs, AgentDB{Agent: filepath.Base(filepath.Dir(filepath.Dir(m))), Path: m})
	}
	return st, nil
}

// HasSQLite reports whether any agent database exists.
func (s *State) HasSQLite() bool { return len(s.AgentDBs) > 0 }

// StateDBPath is the shared state database (cron jobs, agent registry).
func (s *State) StateDBPath() string { return filepath.Join(s.Root, "state", "openclaw.sqlite") }

// OpenAgentDB opens one agent database read-only and checks its schema.
func (s *State) OpenAgentDB(ctx context.Context, path string) (*sqlitestore.DB, error) {
	db, err := sqlitestore.Open(ctx, path, s.opts.SQLite)
	if err != nil {
		return nil, err
	}
	if err := db.CheckAgentSchema(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// SQLiteSessions lists the sessions of every agent database.
func (s *State) SQLiteSessions(ctx context.Context) ([]Session, error) {
	var out []Session
	for _, a := range s.AgentDBs {
		db, err := s.OpenAgentDB(ctx, a.Path)
		if err != nil {
			return nil, err
		}
		rows, err := db.Sessions(ctx)
		db.Close()
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out = append(out, Session{Era: EraSQLite, Agent: a.Agent, Key: r.Key, ID: r.SessionID, Path: a.Path,
				Events: r.Events, Bytes: r.Bytes, LastActivity: r.LastActivity, Index: r.Entry, Cold: r.Cold})
		}
	}
	return out, nil
}

// SQLiteSessionList is SQLiteSessions without reading the events: Events
// and Bytes are 0 and LastActivity is the session_nodes row's updated_at (0
// for a transcript no row names). For a caller that reads each session
// anyway (oc grep): the statistics cost a read of every event.
func (s *State) SQLiteSessionList(ctx context.Context) ([]Session, error) {
	var out []Session
	for _, a := range s.AgentDBs {
		db, err := s.OpenAgentDB(ctx, a.Path)
		if err != nil {
			return nil, err
		}
		rows, err := db.SessionList(ctx)
		db.Close()
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out = append(out, Session{Era: EraSQLite, Agent: a.Agent, Key: r.Key, ID: r.SessionID, Path: a.Path,
				LastActivity: r.UpdatedAt, Index: r.Entry, Cold: r.Cold})
		}
	}
	return out, nil
}

// JSONLSessions lists the JSONL sessions: every sessions.json entry whose
// transcript exists, then every live transcript no entry names.
func (s *State) JSONLSessions() ([]Session, error) {
	var out []Session
	for _, a := range s.JSONL.Agents {
		seen := map[string]bool{}
		if a.IndexPath != "" {
			raw := map[string]json.RawMessage{}
			if data, err := durable.ReadRegular(a.IndexPath); err == nil { // a FIFO named sessions.json must not hang
				_ = json.Unmarshal(data, &raw)
			}
			entries, err := transcript.ReadIndex(a.IndexPath)
			if err == nil {
				for _, e := range entries {
					path, _ := transcript.ResolveSessionFile(a.SessionsDir, e)
					if path == "" {
						continue
					}
					ses := Session{Era: EraJSONL, Agent: a.ID, Key: e.Key, ID: e.SessionID, Path: path, Index: raw[e.Key]}
					if st, err := os.Stat(path); err == nil {
						ses.Bytes, ses.LastActivity = st.Size(), st.ModTime().UnixMilli()
					} else {
						continue
					}
					seen[filepath.Clean(path)] = true
					out = append(out, ses)
				}
			}
		}
		files, err := transcript.PrimaryTranscripts(a.SessionsDir)
		if err != nil {
			continue
		}
		for _, f := range files {
			if seen[filepath.Clean(f)] {
				continue
			}
			ses := Session{Era: EraJSONL, Agent: a.ID, ID: strings.TrimSuffix(filepath.Base(f), ".jsonl"), Path: f}
			if st, err := os.Stat(f); err == nil {
				ses.Bytes, ses.LastActivity = st.Size(), st.ModTime().UnixMilli()
			}
			out = append(out, ses)
		}
	}
	return out, nil
}

// SkippedIndexes names the sessions.json files that session lookups pass
// over because they are not regular files (a FIFO, socket or device:
// reading one could block forever), one "<path>: not a regular file (a
// FIFO)" each. Sessions are then found by their transcript files only.
func (s *State) SkippedIndexes() []string {
	var out []string
	for _, a := range s.JSONL.Agents {
		if a.IndexPath == "" {
			continue
		}
		f, _, err := durable.OpenRegular(a.IndexPath) // never blocks: O_NONBLOCK, then fstat
		if err == nil {
			f.Close()
			continue
		}
		if errors.Is(err, durable.ErrNotRegular) {
			out = append(out, err.Error())
		}
	}
	return out
}

// Sessions lists the sessions of both eras (SQLite first).
func (s *State) Sessions(ctx context.Context) ([]Session, error) {
	sq, err := s.SQLiteSessions(ctx)
	if err != nil {
		return nil, err
	}
	js, err := s.JSONLSessions()
	if err != nil {
		return nil, err
	}
	return append(sq, js...), nil
}

// ErrNotFound: no session matches a SESSION argument.
var ErrNotFound = errors.New("no such session")

// AmbiguousError lists the sessions a SESSION argument matches.
type AmbiguousError struct {
	Arg        string
	Candidates []Session
}

func (e *AmbiguousError) Error() string {
	names := make([]string, 0, len(e.Candidates))
	for _, c := range e.Candidates {
		n := c.ID
		if c.Archive != nil {
			n += "@" + c.Archive.Generation
		}
		if c.Key != "" {
			n += " (" + c.Key + ")"
		}
		if c.Era == EraJSONL {
			n += " [" + c.Path + "]"
		} else {
			n += " [sqlite, agent " + c.Agent + "]"
		}
		names = append(names, n)
	}
	return fmt.Sprintf("session %q is ambiguous: it matches %d sessions: %s", e.Arg, len(e.Candidates), strings.Join(names, "; "))
}

// IsTranscriptPath reports whether arg names an existing file.
func IsTranscriptPath(arg string) bool {
	if arg == "-" {
		return true
	}
	st, err := os.Stat(arg)
	return err == nil && !st.IsDir()
}

// LooksLikePath reports whether a SESSION argument is meant as a file path
// (it has a path separator or a transcript suffix), so that a missing file is
// reported as such rather than as an unknown session.
func LooksLikePath(arg string) bool {
	if strings.ContainsRune(arg, filepath.Separator) || strings.Contains(arg, "/") {
		return true
	}
	for _, suf := range []string{".jsonl", ".gz", ".zst"} {
		if strings.HasSuffix(arg, suf) {
			return true
		}
	}
	return strings.Contains(arg, ".jsonl.")
}

// Resolve finds the session a SESSION argument names: an existing file path
// (a JSONL transcript, including archived originals `*.jsonl.imported-<ms>`),
// a session key, a session id, or a unique prefix of a session id; or an
// archived generation of a SQLite session (session_transcript_archives):
// its archive_name (the derived file's name, looked up before it is taken
// as a path), or "<sessionId>@<generation>" where each may be a unique
// prefix (after an exact session key or id).
func (s *State) Resolve(ctx context.Context, arg string) (Session, error) {
	if !IsTranscriptPath(arg) && LooksLikeArchiveName(arg) {
		if ses, found, err := s.resolveArchive(ctx, arg); err != nil || found {
			return ses, err
		}
	}
	if IsTranscriptPath(arg) || LooksLikePath(arg) {
		ses := Session{Era: EraJSONL, Path: arg}
		if arg != "-" {
			if st, err := os.Stat(arg); err == nil {
				ses.Bytes, ses.LastActivity = st.Size(), st.ModTime().UnixMilli()
			}
		}
		return ses, nil
	}
	all, err := s.Sessions(ctx)
	if err != nil {
		return Session{}, err
	}
	pick := func(match func(Session) bool) []Session {
		var out []Session
		for _, c := range all {
			if match(c) {
				out = append(out, c)
			}
		}
		return out
	}
	for i, match := range []func(Session) bool{
		func(c Session) bool { return c.Key != "" && c.Key == arg },
		func(c Session) bool { return c.ID != "" && c.ID == arg },
		func(c Session) bool { return c.Key != "" && strings.EqualFold(c.Key, arg) },
		func(c Session) bool { return c.ID != "" && strings.HasPrefix(c.ID, arg) },
	} {
		if i == 2 && strings.Contains(arg, "@") {
			if ses, found, err := s.resolveArchive(ctx, arg); err != nil || found {
				return ses, err
			}
		}
		found := pick(match)
		// The same session in both eras (a mid-upgrade install) resolves to
		// the SQLite copy, which is what 2026.9.6 reads.
		found = preferSQLite(found)
		switch {
		case len(found) == 1:
			return found[0], nil
		case len(found) > 1:
			return Session{}, &AmbiguousError{Arg: arg, Candidates: found}
		}
	}
	return Session{}, fmt.Errorf("%q in %s: %w (give a transcript path, a session key such as agent:main:main, a session id, or an archived generation as <sessionId>@<generation>)", arg, s.Root, ErrNotFound)
}

func preferSQLite(found []Session) []Session {
	if len(found) < 2 {
		return found
	}
	sqliteIDs := map[string]bool{}
	for _, f := range found {
		if f.Era == EraSQLite {
			sqliteIDs[f.Agent+"\x00"+f.ID] = true
		}
	}
	out := found[:0:0]
	for _, f := range found {
		if f.Era == EraJSONL && sqliteIDs[f.Agent+"\x00"+f.ID] {
			continue
		}
		out = append(out, f)
	}
	return out
}

// Rows reads a session's rows in order, each one JSON line without its line
// end: a SQLite session's transcript_events in seq order with the session
// header first (event JSON as stored, zstd rows decompressed; a transcript in
// cold storage is read from its verified archive, and the returned state's
// Cold says so); a JSONL file's lines as they are (plain, .gz or .zst). stdin
// is used for "-". A cold archive 2026.9.6 would refuse to restore is an
// error (*sqlitestore.ColdArchiveError) and no row is handed out; so is a
// row 2026.9.6 cannot read (*sqlitestore.DamagedRowError), and a session
// that decodes to more than Options.MaxExportDecoded (ErrDecodedLimit). An
// archived generation's rows are its decoded lines (state nil); a damaged
// one is an *sqlitestore.ArchiveError, and no row is handed out either.
//
// Cancelling ctx stops the read, and the rows handed out, between two rows
// (ctx's error is returned).
func (s *State) Rows(ctx context.Context, ses Session, stdin io.Reader, fn func(seq int64, line []byte) error) (*sqlitestore.IndexState, error) {
	each := func(seq int64, line []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(seq, line)
	}
	if ses.Archive != nil {
		return nil, s.archiveRows(ctx, ses, each)
	}
	if ses.Era == EraSQLite {
		return s.sqliteRows(ctx, ses, each)
	}
	return nil, JSONLRows(ses.Path, stdin, each)
}

// sqliteRows reads a SQLite session in one snapshot, holding its rows as
// stored (a zstd row compressed: no more than the database holds), checks
// every zstd row (decoded once, within the run's budget) and the decoded
// total before anything is handed out, then hands the rows to fn header
// first, each zstd row decoded again as it goes.
func (s *State) sqliteRows(ctx context.Context, ses Session, fn func(seq int64, line []byte) error) (*sqlitestore.IndexState, error) {
	db, err := s.OpenAgentDB(ctx, ses.Path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var rows []sqlitestore.Event
	st, err := db.RawEvents(ctx, ses.ID, func() { rows = rows[:0] }, func(ev sqlitestore.Event) error {
		ev.JSON, ev.Zstd = bytes.Clone(ev.JSON), bytes.Clone(ev.Zstd)
		rows = append(rows, ev)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var decoded int64
	if st.Cold != nil {
		decoded += st.Cold.Archive.EventBytes()
	}
	for _, r := range rows {
		if r.JSON == nil && r.Zstd != nil {
			if err := db.CheckEvent(ses.ID, r); err != nil {
				return nil, err
			}
			decoded += r.UTF8Bytes
		}
	}
	if decoded > s.opts.MaxExportDecoded {
		return nil, fmt.Errorf("%s: session %s decodes to %d bytes from compressed rows, more than the limit of %d: %w (raise it with --max-decoded-size)", ses.Path, ses.Label(), decoded, s.opts.MaxExportDecoded, ErrDecodedLimit)
	}
	// line is a row's JSON, decoded into dst when it is a zstd row.
	line := func(r sqlitestore.Event, dst []byte) ([]byte, error) {
		if r.JSON != nil || r.Zstd == nil {
			return r.JSON, nil
		}
		return db.DecodeEvent(ses.ID, r, dst)
	}
	// Every zstd row decodes (checked before a row is written), and the
	// first header is found (a zstd row is one only in a hand-made
	// database: 9.6 never compresses a header).
	// buf is scratch for zstd rows only: a plain row's JSON is the row's
	// own (held in rows, handed out below) and must never become the
	// destination of the next decode.
	header := -1
	var buf []byte
	for i, r := range rows {
		js, err := s.withDecodeBudget(ctx, r, func() ([]byte, error) {
			if r.JSON != nil || r.Zstd == nil {
				return r.JSON, nil
			}
			var err error
			buf, err = db.DecodeEvent(ses.ID, r, buf)
			return buf, err
		})
		if err != nil {
			return st, err
		}
		if header < 0 && isHeader(js) {
			header = i
		}
	}
	// fn may keep a line (as it may a JSONL line): a decoded row gets
	// memory of its own.
	emit := func(r sqlitestore.Event) error {
		_, err := s.withDecodeBudget(ctx, r, func() ([]byte, error) {
			js, err := line(r, nil)
			if err != nil {
				return nil, err
			}
			return nil, fn(r.Seq, js)
		})
		return err
	}
	if header > 0 {
		if err := emit(rows[header]); err != nil {
			return st, err
		}
	}
	for i, r := range rows {
		if i == header && header > 0 {
			continue
		}
		if err := emit(r); err != nil {
			return st, err
		}
	}
	return st, nil
}

// withDecodeBudget runs fn holding the bytes row r decodes to (a zstd
// row's event_utf8_bytes) in the run's budget.
func (s *State) withDecodeBudget(ctx context.Context, r sqlitestore.Event, fn func() ([]byte, error)) ([]byte, error) {
	if r.JSON != nil || r.Zstd == nil {
		return fn()
	}
	if err := s.budget.Acquire(ctx, r.UTF8Bytes); err != nil {
		return nil, err
	}
	defer s.budget.Release(r.UTF8Bytes)
	return fn()
}

// HeaderFirst is the order rows are exported in: seq order, with the first
// session header moved to the front when it is not there already.
func HeaderFirst(rows []sqlitestore.Event) []int {
	order := make([]int, 0, len(rows))
	h := -1
	for i, r := range rows {
		if isHeader(r.JSON) {
			h = i
			break
		}
	}
	if h > 0 {
		order = append(order, h)
	}
	for i := range rows {
		if i != h || h <= 0 {
			order = append(order, i)
		}
	}
	return order
}

func isHeader(line []byte) bool {
	var h struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(line, &h) == nil && h.Type == "session"
}

// JSONLRows reads a JSONL transcript's lines (CR before LF dropped, other
// bytes as they are).
func JSONLRows(path string, stdin io.Reader, fn func(seq int64, line []byte) error) error {
	src, err := jsonl.Open(path, stdin)
	if err != nil {
		return err
	}
	defer src.Close()
	br := bufio.NewReaderSize(src, 1<<20)
	var n int64
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			n++
			line = trimEOL(line)
			if ferr := fn(n, line); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
}

func trimEOL(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
		if len(b) > 0 && b[len(b)-1] == '\r' {
			b = b[:len(b)-1]
		}
	}
	return b
}

// StreamRows is Rows for a reader that can take a row before the whole
// session is checked (oc show, which copies the rows to a file of its own
// first): a SQLite session's rows are handed to fn as they are read, each
// zstd row decoded on its own (within the run's budget) into memory that is
// reused, so that nothing of the session is held but the row in hand.
// line is valid only during the call of fn. The differences from Rows: a
// damaged row, a cold archive 2026.9.6 would refuse, or passing
// Options.MaxExportDecoded ends the read with the same errors after the
// rows before it were handed out; reset (may be nil) is called when the
// read starts over from the first row (the database changed under it, see
// sqlitestore.DB.RawEvents); and rows before the session header are held
// to be handed out after it only up to streamHeldBytes (9.6 writes the
// header first: only a hand-made database has rows before it), then handed
// out in seq order with the header where it is. JSONL files and archived
// generations are read as Rows reads them.
func (s *State) StreamRows(ctx context.Context, ses Session, stdin io.Reader, reset func(), fn func(seq int64, line []byte) error) (*sqlitestore.IndexState, error) {
	if ses.Archive != nil || ses.Era != EraSQLite {
		return s.Rows(ctx, ses, stdin, fn)
	}
	db, err := s.OpenAgentDB(ctx, ses.Path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	type heldRow struct {
		seq  int64
		line []byte
	}
	var (
		held      []heldRow
		heldBytes int
		passed    bool // the header was seen, or holding rows was given up
		decoded   int64
		buf       []byte
	)
	flush := func() error {
		for _, h := range held {
			if err := fn(h.seq, h.line); err != nil {
				return err
			}
		}
		held, heldBytes = nil, 0
		return nil
	}
	restart := func() {
		held, heldBytes, passed, decoded = nil, 0, false, 0
		if reset != nil {
			reset()
		}
	}
	emit := func(ev sqlitestore.Event, js []byte) error {
		if !passed {
			switch {
			case isHeader(js):
				passed = true
				if err := fn(ev.Seq, js); err != nil {
					return err
				}
				return flush()
			case heldBytes+len(js) <= streamHeldBytes:
				held = append(held, heldRow{ev.Seq, bytes.Clone(js)})
				heldBytes += len(js)
				return nil
			}
			passed = true
			if err := flush(); err != nil {
				return err
			}
		}
		return fn(ev.Seq, js)
	}
	st, err := db.RawEvents(ctx, ses.ID, restart, func(ev sqlitestore.Event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if ev.JSON != nil || ev.Zstd == nil {
			return emit(ev, ev.JSON)
		}
		if err := db.CheckEvent(ses.ID, ev); err != nil {
			return err
		}
		if decoded += ev.UTF8Bytes; decoded > s.opts.MaxExportDecoded {
			return fmt.Errorf("%s: session %s decodes to more than %d bytes from compressed rows, the limit: %w (raise it with --max-decoded-size)", ses.Path, ses.Label(), s.opts.MaxExportDecoded, ErrDecodedLimit)
		}
		_, err := s.withDecodeBudget(ctx, ev, func() ([]byte, error) {
			var err error
			if buf, err = db.DecodeEvent(ses.ID, ev, buf); err != nil {
				return nil, err
			}
			return nil, emit(ev, buf)
		})
		return err
	})
	if err != nil {
		return st, err
	}
	return st, flush()
}

// streamHeldBytes bounds the rows StreamRows holds before a session header.
const streamHeldBytes = 16 << 20
