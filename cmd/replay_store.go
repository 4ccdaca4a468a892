package cmd

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/replay"
	"github.com/openclaw-tools/oc/pkg/store"
)

// resolveReplaySession turns SESSION into a transcript path for the replay
// pipeline: a path or a JSONL session as before; a SQLite session (either
// era's key, id or prefix) is exported to a private temporary JSONL file,
// removed by cleanup. note is set when the session came from SQLite: the
// pipeline is still 2026.5.6's.
func resolveReplaySession(g *Globals, session string) (path string, cleanup func(), note string, err error) {
	cleanup = func() {}
	if session == "-" || store.IsTranscriptPath(session) || store.LooksLikePath(session) {
		p, err := replay.FindSession(g.ResolvedStateDir(), session)
		return p, cleanup, "", err
	}
	st, err := store.Open(g.ResolvedStateDir(), store.Options{})
	if err != nil {
		return "", cleanup, "", errors.New(oneLine(err.Error()))
	}
	ses, err := st.Resolve(session)
	if err != nil {
		var amb *store.AmbiguousError
		if errors.As(err, &amb) {
			return "", cleanup, "", cli.Exit(cli.ExitUsage, errors.New(oneLine(err.Error())))
		}
		// The old lookup (a session id under agents/*/sessions) still answers
		// for what the store does not list.
		if p, ferr := replay.FindSession(g.ResolvedStateDir(), session); ferr == nil {
			return p, cleanup, "", nil
		}
		return "", cleanup, "", errors.New(oneLine(err.Error()))
	}
	if ses.Era == store.EraJSONL {
		return ses.Path, cleanup, "", nil
	}
	dir, err := os.MkdirTemp("", "oc-replay-")
	if err != nil {
		return "", cleanup, "", err
	}
	cleanup = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, ses.ID+".jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		cleanup()
		return "", func() {}, "", err
	}
	if _, err := st.Export(ses, nil, f); err != nil {
		f.Close()
		cleanup()
		return "", func() {}, "", errors.New(oneLine(err.Error()))
	}
	if err := f.Close(); err != nil {
		cleanup()
		return "", func() {}, "", err
	}
	return path, cleanup, store.ReplayNote + " (session " + ses.Label() + " read from " + ses.Path + ")", nil
}
