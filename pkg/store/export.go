package store

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
)

// Export writes a session as a JSONL transcript: one stored row a line,
// header first, each row's bytes as stored. It returns the number of lines.
func (s *State) Export(ctx context.Context, ses Session, stdin io.Reader, w io.Writer) (int, error) {
	n, _, err := s.ExportWithSource(ctx, ses, stdin, w)
	return n, err
}

// ExportWithSource is Export that also says when the rows came from a cold
// archive (nil otherwise). Cancelling ctx stops it between two rows (or two
// writes of an archive) with ctx's error.
func (s *State) ExportWithSource(ctx context.Context, ses Session, stdin io.Reader, w io.Writer) (int, *sqlitestore.ColdSource, error) {
	if ses.Archive != nil {
		n, err := s.exportArchive(ctx, ses, durable.NewContextWriter(ctx, w))
		return n, nil, err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	n := 0
	st, err := s.Rows(ctx, ses, stdin, func(_ int64, line []byte) error {
		n++
		if _, err := bw.Write(line); err != nil {
			return err
		}
		return bw.WriteByte('\n')
	})
	var cold *sqlitestore.ColdSource
	if st != nil {
		cold = st.Cold
	}
	if err != nil {
		return n, cold, err
	}
	return n, cold, bw.Flush()
}

// ExportedFile is one file ExportAgent wrote.
type ExportedFile struct {
	Key   string `json:"key,omitempty"`
	ID    string `json:"sessionId"`
	Path  string `json:"path"`
	Lines int    `json:"lines"`
	// ColdArchive names the cold archive the lines were read from (file, or
	// the database row holding the blob); empty for a hot transcript.
	ColdArchive string `json:"coldArchive,omitempty"`
}

// ExportAgent writes every SQLite session of one agent into dir as
// <sessionId>.jsonl, plus a sessions.json (key -> the stored index entry,
// with sessionFile naming the exported file), so that the folder is a JSONL
// sessions folder every oc command reads. Each file is written complete or
// not at all (durable.WriteNew); an existing file is never overwritten.
// Cancelling ctx stops it; the files already written are kept.
func (s *State) ExportAgent(ctx context.Context, agent, dir string) ([]ExportedFile, error) {
	all, err := s.SQLiteSessions(ctx)
	if err != nil {
		return nil, err
	}
	var sessions []Session
	for _, ses := range all {
		if ses.Agent == agent {
			sessions = append(sessions, ses)
		}
	}
	if len(sessions) == 0 {
		return nil, fmt.Errorf("agent %q: no SQLite sessions in %s", agent, s.Root)
	}
	if err := durable.MkdirAll(nil, dir, 0o700); err != nil {
		return nil, err
	}
	index := map[string]json.RawMessage{}
	var out []ExportedFile
	for _, ses := range sessions {
		name := ses.ID + ".jsonl"
		if filepath.Base(name) != name || ses.ID == "" {
			return out, fmt.Errorf("session id %q cannot be a file name", ses.ID)
		}
		path := filepath.Join(dir, name)
		var cold *sqlitestore.ColdSource
		n, err := writeNew(ctx, path, func(w io.Writer) (int, error) {
			n, c, err := s.ExportWithSource(ctx, ses, nil, w)
			cold = c
			return n, err
		})
		if err != nil {
			return out, err
		}
		f := ExportedFile{Key: ses.Key, ID: ses.ID, Path: path, Lines: n}
		if cold != nil {
			f.ColdArchive = cold.Path
		}
		out = append(out, f)
		if ses.Key != "" {
			index[ses.Key] = withSessionFile(ses.Index, name)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	data, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		return out, err
	}
	if _, err := writeNew(ctx, filepath.Join(dir, "sessions.json"), func(w io.Writer) (int, error) {
		_, err := w.Write(append(data, '\n'))
		return 0, err
	}); err != nil {
		return out, err
	}
	return out, nil
}

// withSessionFile adds sessionFile to a stored index entry (9.6 drops it).
func withSessionFile(entry json.RawMessage, file string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(entry, &m) != nil || m == nil {
		m = map[string]json.RawMessage{}
	}
	f, _ := json.Marshal(file)
	m["sessionFile"] = f
	b, _ := json.Marshal(m)
	return b
}

// writeNew writes a file that must not exist yet, complete or not at all
// (durable.WriteNew), and returns what fill returned.
func writeNew(ctx context.Context, path string, fill func(io.Writer) (int, error)) (int, error) {
	if _, err := os.Lstat(path); err == nil {
		return 0, fmt.Errorf("%s: already exists; not overwritten", path)
	}
	var n int
	_, err := durable.WriteNew(ctx, nil, path, 0o600, nil, func(w io.Writer) error {
		var err error
		n, err = fill(w)
		return err
	})
	if err != nil {
		return n, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}
