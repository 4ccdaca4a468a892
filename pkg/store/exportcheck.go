package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/internal/shellquote"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// ErrNotSession: what a SESSION argument names holds no session oc can
// export: a file that is not an OpenClaw transcript (JSONL, or an archived
// original), a database, or a session with no transcript rows.
var ErrNotSession = errors.New("not a session")

// NotSessionError says why a SESSION holds nothing to export. Keys lists
// the sessions of an agent database given as a path.
type NotSessionError struct {
	Path   string
	Reason string
	Keys   []string
	// Empty: the session exists but has no transcript rows.
	Empty bool
}

func (e *NotSessionError) Error() string {
	msg := e.Path + ": " + e.Reason
	if len(e.Keys) > 0 {
		msg += ": " + strings.Join(e.Keys, ", ")
	}
	return msg
}

func (e *NotSessionError) Unwrap() []error {
	if e.Empty {
		return []error{ErrNotSession, ErrEmptySession}
	}
	return []error{ErrNotSession}
}

// ErrEmptySession: a session with no transcript rows (a SQLite session whose
// import found no readable header, or an empty JSONL file).
var ErrEmptySession = errors.New("the session has no transcript rows")

// maxHeldBeforeEntry bounds the lines an export of a JSONL file holds back
// until one of them is a session entry (a transcript cut off at its start
// still exports; a large file with none is refused without reading on).
const maxHeldBeforeEntry = 16 << 20

// sqliteMagic starts every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// IsSQLiteFile reports whether path is a regular file that starts with
// SQLite's header (never blocks on a FIFO).
func IsSQLiteFile(path string) bool {
	if path == "-" {
		return false
	}
	f, _, err := durable.OpenRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	hdr := make([]byte, len(sqliteMagic))
	n, _ := io.ReadFull(f, hdr)
	return n == len(hdr) && string(hdr) == sqliteMagic
}

// DatabaseSessions lists the sessions of the agent database at path (any
// path, in this state dir or not), read-only; an error when path is not an
// OpenClaw agent database.
func (s *State) DatabaseSessions(ctx context.Context, path string) ([]Session, error) {
	db, err := s.OpenAgentDB(ctx, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	agent := agentOfDB(path)
	out := make([]Session, 0, len(rows))
	for _, r := range rows {
		out = append(out, Session{Era: EraSQLite, Agent: agent, Key: r.Key, ID: r.SessionID, Path: path,
			Events: r.Events, Bytes: r.Bytes, LastActivity: r.LastActivity, Index: r.Entry, Cold: r.Cold})
	}
	return out, nil
}

// databaseNotSession is the error of exporting a SQLite file given as a
// path: an agent database lists its sessions, any other is not a session.
func (s *State) databaseNotSession(ctx context.Context, path string) error {
	sessions, err := s.DatabaseSessions(ctx, path)
	if err != nil {
		return &NotSessionError{Path: path, Reason: notAgentDB(path, err) + "; not a transcript, nothing written"}
	}
	if len(sessions) == 0 {
		return &NotSessionError{Path: path, Reason: "an OpenClaw agent database with no sessions, not a transcript; nothing written"}
	}
	keys := make([]string, 0, len(sessions))
	for _, ses := range sessions {
		keys = append(keys, ses.Label())
	}
	return &NotSessionError{Path: path, Reason: fmt.Sprintf("an OpenClaw agent database, not a transcript; nothing written. Export one of its %d sessions by key (%s)", len(sessions), byKeyHint("oc export", path)), Keys: keys}
}

// DatabaseStateDir is the state dir an agent database at path belongs to
// (<state>/agents/<id>/agent/openclaw-agent.sqlite), where its sessions
// resolve by key; ok is false for a database elsewhere.
func DatabaseStateDir(path string) (dir string, ok bool) {
	if agentOfDB(path) == "" {
		return "", false
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(path)))), true
}

// byKeyHint is how to name one of the sessions of the database at path to
// a command (cmd KEY), with the state dir it resolves in.
func byKeyHint(cmd, path string) string {
	if dir, ok := DatabaseStateDir(path); ok {
		return cmd + " KEY --state-dir " + shellquote.Quote(dir)
	}
	return cmd + " KEY, once the database is in a state dir as agents/<id>/agent/" + AgentDBName
}

// agentOfDB is the agent id of agents/<id>/agent/openclaw-agent.sqlite
// ("" for a database elsewhere).
func agentOfDB(path string) string {
	parts := strings.Split(strings.ReplaceAll(path, "\\", "/"), "/")
	n := len(parts)
	if n >= 4 && parts[n-1] == AgentDBName && parts[n-2] == "agent" && parts[n-4] == "agents" {
		return parts[n-3]
	}
	return ""
}

// transcriptGate holds a JSONL file's lines back until one of them is an
// OpenClaw session entry, so that a file that is not a transcript writes
// nothing: then every line is passed on as it is.
type transcriptGate struct {
	fn    func(seq int64, line []byte) error
	held  [][]byte
	seqs  []int64
	bytes int
	open  bool
	lines int
}

func (g *transcriptGate) line(seq int64, line []byte) error {
	g.lines++
	if g.open {
		return g.fn(seq, line)
	}
	if !IsSessionEntry(line) {
		g.held = append(g.held, append([]byte(nil), line...))
		g.seqs = append(g.seqs, seq)
		g.bytes += len(line)
		if g.bytes > maxHeldBeforeEntry {
			return errNoEntry
		}
		return nil
	}
	g.open = true
	for i, h := range g.held {
		if err := g.fn(g.seqs[i], h); err != nil {
			return err
		}
	}
	g.held, g.seqs = nil, nil
	return g.fn(seq, line)
}

var errNoEntry = errors.New("no line is an OpenClaw session entry")

// finish is the verdict after the last line: nil when a session entry was
// seen, else why the file is not a transcript.
func (g *transcriptGate) finish(path string) error {
	if g.open {
		return nil
	}
	blank := true
	for _, h := range g.held {
		if strings.TrimSpace(string(h)) != "" {
			blank = false
			break
		}
	}
	if blank {
		return &NotSessionError{Path: path, Reason: "an empty file: " + ErrEmptySession.Error() + "; nothing written", Empty: true}
	}
	return &NotSessionError{Path: path, Reason: "not an OpenClaw transcript (no line is a session header or entry); nothing written"}
}

// IsSessionEntry reports whether a JSONL line is evidently an OpenClaw
// session entry: a session header, a message with a role, or an entry of a
// known type with a string id and a parentId (string or null). It is what
// repair calls a transcript (a line of any other JSON does not make one).
func IsSessionEntry(line []byte) bool {
	var e struct {
		Type     *string         `json:"type"`
		ID       json.RawMessage `json:"id"`
		ParentID json.RawMessage `json:"parentId"`
		Message  *struct {
			Role json.RawMessage `json:"role"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &e) != nil || e.Type == nil {
		return false
	}
	switch *e.Type {
	case "session":
		return true
	case "message":
		if e.Message != nil && isJSONString(e.Message.Role) {
			return true
		}
	case "thinking_level_change", "model_change", "compaction", "branch_summary", "custom", "custom_message", "label", "session_info":
	default:
		return false
	}
	p := strings.TrimSpace(string(e.ParentID))
	return isJSONString(e.ID) && (p == "null" || isJSONString(e.ParentID))
}

func isJSONString(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return len(s) >= 2 && s[0] == '"'
}

// OpenDatabase opens one agent database given as a path, as a state dir
// holding only it: its state dir when it sits at
// <root>/agents/<id>/agent/openclaw-agent.sqlite (the registry in
// <root>/state is checked), else its folder. A file that is not an OpenClaw
// agent database is an error.
func OpenDatabase(ctx context.Context, path string, opts Options) (*State, error) {
	agent := agentOfDB(path)
	root, ok := DatabaseStateDir(path)
	if !ok {
		root = filepath.Dir(path)
	}
	st, err := Open(root, opts)
	if err != nil {
		return nil, err
	}
	st.JSONL = &transcript.StateDir{Root: root}
	st.AgentDBs = []AgentDB{{Agent: agent, Path: path}}
	db, err := st.OpenAgentDB(ctx, path)
	if err != nil {
		return nil, &NotSessionError{Path: path, Reason: notAgentDB(path, err)}
	}
	db.Close()
	return st, nil
}

// notAgentDB says what a SQLite file that is not an agent database is.
func notAgentDB(path string, err error) string {
	if filepath.Base(path) == "openclaw.sqlite" && filepath.Base(filepath.Dir(path)) == "state" {
		root := filepath.Dir(filepath.Dir(path))
		return fmt.Sprintf("OpenClaw's state database (cron jobs, the agent registry), not an agent database: oc inspect --state-dir %s reads the install, oc doctor --state-dir %s its cron jobs", root, root)
	}
	return "a SQLite database that is not an OpenClaw agent database (" + strings.TrimPrefix(err.Error(), path+": ") + ")"
}
