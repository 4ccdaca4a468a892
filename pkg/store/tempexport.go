package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// ExportToTemp writes a session as JSONL to a private temporary file (in a
// folder of its own, mode 0600), for the readers that take a file; cleanup
// removes it and its folder.
func (s *State) ExportToTemp(ctx context.Context, ses Session) (path string, cleanup func(), err error) {
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
	if _, err := s.Export(ctx, ses, nil, f); err != nil {
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
