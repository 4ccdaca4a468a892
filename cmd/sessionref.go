package cmd

import (
	"path/filepath"

	"github.com/openclaw-tools/oc/internal/shellquote"
	"github.com/openclaw-tools/oc/pkg/store"
)

// sessionRef is how the advice oc prints names a session to another oc
// command, quoted for a shell: a JSONL transcript by its path, a SQLite
// session by its key (or id, or archived generation) with the state dir it
// resolves in when that is not where the command looks by default (an
// explicit --state-dir, or a database given as a path).
func sessionRef(g *Globals, ses store.Session, root string) string {
	if ses.Era == store.EraJSONL {
		return shellquote.Quote(ses.Path)
	}
	return shellquote.Quote(ses.Label()) + stateDirArg(g, root)
}

// stateDirArg is " --state-dir ROOT" when a command run without it would
// not look in root, else "".
func stateDirArg(g *Globals, root string) string {
	if root == "" {
		return ""
	}
	if g.StateDir == "" && filepath.Clean(root) == filepath.Clean(g.ResolvedStateDir()) {
		return ""
	}
	return " --state-dir " + shellquote.Quote(root)
}
