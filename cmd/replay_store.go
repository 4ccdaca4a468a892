package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay"
	"github.com/openclaw-tools/oc/pkg/store"
)

// replaySource says where a replayed session came from, and so which
// release replays it by default: the install's era.
type replaySource struct {
	// Era is the install's: SQLite for a session read from a database or
	// resolved in a state dir that has SQLite databases, JSONL otherwise
	// (also for a transcript named by its path, and for stdin).
	Era store.Era
	// From names the database a SQLite session was read from ("" for a file).
	From string
	// Name is how output names a SQLite session: its key and database (its
	// temporary export is gone once read). "" for a file: its path.
	Name string
}

// defaultRelease is the release of the install's era: 2026.9.6 for the
// SQLite era, 2026.5.6 for JSONL.
func (s replaySource) defaultRelease() policy.Release {
	if s.Era == store.EraSQLite {
		return policy.Release96
	}
	return policy.Release56
}

// describe says why the default release applies.
func (s replaySource) describe() string {
	if s.Era == store.EraSQLite {
		return "the install's era: SQLite"
	}
	return "the install's era: JSONL"
}

// storedSession is a SQLite session resolved for replay: read through the
// store, either as its rows (2026.9.6's context) or exported to a temporary
// JSONL file (2026.5.6's rules read files).
type storedSession struct {
	st  *store.State
	ses store.Session
}

// rows reads the session's rows in export order (header first).
func (s *storedSession) rows(ctx context.Context) ([][]byte, error) {
	var rows [][]byte
	if _, err := s.st.Rows(ctx, s.ses, nil, func(_ int64, line []byte) error {
		rows = append(rows, line)
		return nil
	}); err != nil {
		return nil, err
	}
	return rows, nil
}

// resolveReplaySession turns SESSION into what the replay pipeline reads: a
// path or a JSONL session as before (path set); a SQLite session (either
// era's key, id or prefix) as a storedSession (path empty; exportSessionToTemp
// turns it into a file). src says which era the session belongs to.
func resolveReplaySession(ctx context.Context, g *Globals, session string) (path string, stored *storedSession, src replaySource, err error) {
	src.Era = store.EraJSONL
	if session == "-" || store.IsTranscriptPath(session) || store.LooksLikePath(session) && !store.LooksLikeArchiveName(session) {
		p, err := replay.FindSession(g.ResolvedStateDir(), session)
		return p, nil, src, err
	}
	st, err := store.Open(g.ResolvedStateDir(), store.Options{})
	if err != nil {
		return "", nil, src, err
	}
	warnSkippedIndexes(g, st)
	if st.HasSQLite() {
		// A JSONL transcript left in a SQLite-era state dir is imported and
		// replayed by the installed release.
		src.Era = store.EraSQLite
	}
	ses, err := st.Resolve(ctx, session)
	if err != nil {
		var amb *store.AmbiguousError
		if errors.As(err, &amb) {
			return "", nil, src, cli.Exit(cli.ExitUsage, err)
		}
		// The old lookup (a session id under agents/*/sessions) still answers
		// for what the store does not list.
		if p, ferr := replay.FindSession(g.ResolvedStateDir(), session); ferr == nil {
			return p, nil, src, nil
		}
		return "", nil, src, err
	}
	if ses.Era == store.EraJSONL {
		return ses.Path, nil, src, nil
	}
	src = replaySource{Era: store.EraSQLite}
	src.From = "session " + ses.Label() + " read from " + ses.Path
	src.Name = ses.Label() + " in " + ses.Path
	return "", &storedSession{st: st, ses: ses}, src, nil
}

// warnSkippedIndexes says on stderr which sessions.json files the lookup
// passed over (a FIFO named sessions.json): sessions are then found by
// their files only, and their keys are not known.
func warnSkippedIndexes(g *Globals, st *store.State) {
	for _, s := range st.SkippedIndexes() {
		g.warn(oneLine(s) + "; skipped, sessions are looked up by their transcript files only")
	}
}

// exportSessionToTemp writes a SQLite session as JSONL to a private
// temporary file, removed by cleanup.
func exportSessionToTemp(ctx context.Context, st *store.State, ses store.Session) (path string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "oc-replay-")
	if err != nil {
		return "", func() {}, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	// The id comes from a database: one with a path separator ("../x")
	// would name a file outside dir.
	name := ses.ID + ".jsonl"
	if filepath.Base(name) != name || strings.ContainsAny(name, `/\`) {
		name = "session.jsonl"
	}
	path = filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		cleanup()
		return "", func() {}, err
	}
	if _, err := st.Export(ctx, ses, nil, f); err != nil {
		f.Close()
		cleanup()
		return "", func() {}, err
	}
	if err := f.Close(); err != nil {
		cleanup()
		return "", func() {}, err
	}
	return path, cleanup, nil
}
