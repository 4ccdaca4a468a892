// Package catalog is where the reading commands (oc show, oc grep, oc
// browse) get their sessions: the sessions of an install, of either era,
// live and, when asked, archived, filtered by agent and age; and the one
// session a SESSION argument names. It is one small layer over pkg/store so
// that the reading commands can follow a shared model of an install.
package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// Filter narrows the sessions listed.
type Filter struct {
	Agent string    // "" for every agent
	Since time.Time // zero for any age: else sessions active since then
	// Archived adds the archived transcripts: .reset/.deleted/.bak files
	// and checkpoints in sessions folders, the originals 2026.9.6's import
	// archived (session-sqlite-import-archive/*.imported-*), and the
	// deleted or reset generations of session_transcript_archives.
	Archived bool
}

// Sessions lists the sessions of an install, SQLite first, then JSONL,
// then (with Archived) the archives. A SQLite session's LastActivity is
// its session_nodes row's updated_at (the events are not read to list
// them: a search reads them anyway).
func Sessions(ctx context.Context, st *store.State, f Filter) ([]store.Session, error) {
	all, err := st.SQLiteSessionList(ctx)
	if err != nil {
		return nil, err
	}
	js, err := st.JSONLSessions()
	if err != nil {
		return nil, err
	}
	all = append(all, js...)
	if f.Archived {
		arch, err := st.ArchivedSessions(ctx)
		if err != nil {
			return nil, err
		}
		all = append(all, arch...)
		all = append(all, archivedFiles(st)...)
	}
	out := all[:0]
	for _, s := range all {
		if f.Agent != "" && s.Agent != f.Agent {
			continue
		}
		if !f.Since.IsZero() && s.LastActivity > 0 && s.LastActivity < f.Since.UnixMilli() {
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

// archivedFiles are the JSONL archives of every agent's sessions folder and
// import archive, as sessions (Era JSONL, Path the file).
func archivedFiles(st *store.State) []store.Session {
	var out []store.Session
	for _, a := range st.JSONL.Agents {
		files, err := transcript.ListSessionsDir(a.SessionsDir, a.ID, true)
		if err != nil {
			continue
		}
		for _, f := range files {
			if f.Kind != transcript.KindArchived {
				continue
			}
			out = append(out, fileSession(a.ID, f.Path))
		}
	}
	imported, _ := filepath.Glob(filepath.Join(st.Root, "agents", "*", "session-sqlite-import-archive", "*.imported-*"))
	sort.Strings(imported)
	for _, p := range imported {
		if !strings.Contains(filepath.Base(p), ".jsonl.imported-") {
			continue // the archived sessions.json
		}
		out = append(out, fileSession(filepath.Base(filepath.Dir(filepath.Dir(p))), p))
	}
	return out
}

func fileSession(agent, path string) store.Session {
	name := filepath.Base(path)
	id := name
	if i := strings.Index(name, ".jsonl"); i >= 0 {
		id = name[:i]
		if j := strings.LastIndexByte(id, '.'); j >= 0 {
			id = id[j+1:] // <key>.<id>.jsonl.imported-<ms>
		}
	}
	ses := store.Session{Era: store.EraJSONL, Agent: agent, ID: id, Path: path}
	if fi, err := os.Stat(path); err == nil {
		ses.Bytes, ses.LastActivity = fi.Size(), fi.ModTime().UnixMilli()
	}
	return ses
}

// Resolve finds the session a SESSION argument names: a transcript path
// ("-" for stdin), a session key, a session id or a unique prefix of one,
// an archived generation (ID@GENERATION or its archive name), in either
// era; then a session id under agents/*/sessions that no index lists.
func Resolve(ctx context.Context, st *store.State, arg string) (store.Session, error) {
	ses, err := st.Resolve(ctx, arg)
	if err == nil {
		if ses.Era == store.EraJSONL && ses.Path != "-" {
			if fi, serr := os.Stat(ses.Path); serr == nil && fi.IsDir() {
				return store.Session{}, fmt.Errorf("%s: a directory, not a session (give a transcript, a session key or id)", arg)
			}
		}
		return ses, nil
	}
	if !errors.Is(err, store.ErrNotFound) || strings.ContainsAny(arg, `/\`) {
		return store.Session{}, err
	}
	matches, _ := filepath.Glob(filepath.Join(st.Root, "agents", "*", "sessions", strings.TrimSuffix(arg, ".jsonl")+".jsonl"))
	if len(matches) == 1 {
		return fileSession(filepath.Base(filepath.Dir(filepath.Dir(matches[0]))), matches[0]), nil
	}
	return store.Session{}, err
}

// Select is the sessions a reading command searches: those of the state
// dir, or of path when one is given (a state dir, a sessions folder or a
// transcript file, whose transcripts are then read as files), filtered.
// The State reads their rows.
func Select(ctx context.Context, stateDir, path string, f Filter) (*store.State, []store.Session, error) {
	if path == "" || isInstall(path) {
		root := stateDir
		if path != "" {
			root = path
		}
		st, err := store.Open(root, store.Options{})
		if err != nil {
			return nil, nil, err
		}
		ses, err := Sessions(ctx, st, f)
		return st, ses, err
	}
	st, err := store.Open(stateDir, store.Options{})
	if err != nil {
		return nil, nil, err
	}
	files, err := transcript.Discover([]string{path}, f.Archived)
	if err != nil {
		return nil, nil, err
	}
	var out []store.Session
	for _, file := range files {
		ses := fileSession(file.Agent, file.Path)
		if f.Agent != "" && ses.Agent != f.Agent {
			continue
		}
		if !f.Since.IsZero() && ses.LastActivity > 0 && ses.LastActivity < f.Since.UnixMilli() {
			continue
		}
		out = append(out, ses)
	}
	return st, out, nil
}

// isInstall reports whether dir is an OpenClaw state dir of either era.
func isInstall(dir string) bool {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return false
	}
	if transcript.IsStateDir(dir) {
		return true
	}
	dbs, _ := filepath.Glob(filepath.Join(dir, "agents", "*", "agent", store.AgentDBName))
	return len(dbs) > 0
}
