package store

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
)

// Export writes a session as a JSONL transcript: one stored row a line,
// header first, each row's bytes as stored. It returns the number of lines.
// A SQLite session with no transcript rows writes nothing and is no error
// (for oc's own temporary copies; oc export refuses it: ExportWithSource).
func (s *State) Export(ctx context.Context, ses Session, stdin io.Reader, w io.Writer) (int, error) {
	n, _, err := s.export(ctx, ses, stdin, w, false)
	return n, err
}

// ExportWithSource is what oc export writes: Export, that also says when
// the rows came from a cold archive (nil otherwise), and that exports
// sessions only: a path that is not an OpenClaw transcript (a JSONL file
// none of whose lines is a session entry, any SQLite file; an agent
// database lists its sessions) and a session with no transcript rows are a
// *NotSessionError, with nothing written. Cancelling ctx stops it between
// two rows (or two writes of an archive) with ctx's error.
func (s *State) ExportWithSource(ctx context.Context, ses Session, stdin io.Reader, w io.Writer) (int, *sqlitestore.ColdSource, error) {
	return s.export(ctx, ses, stdin, w, true)
}

func (s *State) export(ctx context.Context, ses Session, stdin io.Reader, w io.Writer, strict bool) (int, *sqlitestore.ColdSource, error) {
	if ses.Archive != nil {
		n, err := s.exportArchive(ctx, ses, durable.NewContextWriter(ctx, w))
		return n, nil, err
	}
	if strict && ses.Era == EraJSONL && IsSQLiteFile(ses.Path) {
		return 0, nil, s.databaseNotSession(ctx, ses.Path)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	n := 0
	write := func(_ int64, line []byte) error {
		n++
		if _, err := bw.Write(line); err != nil {
			return err
		}
		return bw.WriteByte('\n')
	}
	// A JSONL file writes nothing until a line shows it is a transcript.
	var gate *transcriptGate
	if strict && ses.Era == EraJSONL {
		gate = &transcriptGate{fn: write}
		write = gate.line
	}
	st, err := s.Rows(ctx, ses, stdin, write)
	var cold *sqlitestore.ColdSource
	if st != nil {
		cold = st.Cold
	}
	if errors.Is(err, errNoEntry) {
		err = gate.finish(ses.Path)
	}
	if err != nil {
		return n, cold, err
	}
	if gate != nil {
		if err := gate.finish(ses.Path); err != nil {
			return 0, cold, err
		}
	} else if n == 0 && strict {
		return 0, cold, &NotSessionError{Path: ses.Label(), Reason: ErrEmptySession.Error() + " (OpenClaw's import found no readable header, or its file was missing; OpenClaw starts it over on its next message); nothing written", Empty: true}
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

// AgentExport is what ExportAgent did: the files it wrote, the sessions it
// skipped (no transcript rows: nothing to write) and those it refused.
type AgentExport struct {
	Agent   string           `json:"agent"`
	Dir     string           `json:"dir"`
	Files   []ExportedFile   `json:"files"`
	Skipped []SessionRefusal `json:"skipped,omitempty"`
	Refused []SessionRefusal `json:"refused,omitempty"`
}

// SessionRefusal is a session ExportAgent did not write, and why.
type SessionRefusal struct {
	Key    string `json:"key,omitempty"`
	ID     string `json:"sessionId"`
	Reason string `json:"reason"`
}

// PartialExportError: ExportAgent refused some sessions and exported the
// others.
type PartialExportError struct {
	Dir     string
	Written int
	Refused []SessionRefusal
}

func (e *PartialExportError) Error() string {
	first := e.Refused[0]
	return fmt.Sprintf("%d of %d sessions not exported (the other %d are in %s); first: %s: %s",
		len(e.Refused), len(e.Refused)+e.Written, e.Written, e.Dir, refusalLabel(first), first.Reason)
}

func refusalLabel(r SessionRefusal) string {
	if r.Key != "" {
		return r.Key
	}
	return fmt.Sprintf("session id %q", r.ID)
}

// ExportAgent writes every SQLite session of one agent into dir as
// <sessionId>.jsonl, plus a sessions.json (key -> the stored index entry,
// with sessionFile naming the exported file), so that the folder is a JSONL
// sessions folder every oc command reads. Each file is written complete or
// not at all (durable.WriteNew); an existing file is never overwritten.
//
// A session that cannot be written (an id that is not a file name, such as
// "../x"; a file already there; a damaged row) is refused and the others
// are exported: the error is then a *PartialExportError. A session with no
// transcript rows is skipped (no file, no sessions.json entry), not an
// error. Cancelling ctx stops it; the files already written are kept.
func (s *State) ExportAgent(ctx context.Context, agent, dir string) (AgentExport, error) {
	res := AgentExport{Agent: agent, Dir: dir, Files: []ExportedFile{}}
	all, err := s.SQLiteSessions(ctx)
	if err != nil {
		return res, err
	}
	var sessions []Session
	for _, ses := range all {
		if ses.Agent == agent {
			sessions = append(sessions, ses)
		}
	}
	if len(sessions) == 0 {
		return res, fmt.Errorf("agent %q: no SQLite sessions in %s", agent, s.Root)
	}
	if err := durable.MkdirAll(nil, dir, 0o700); err != nil {
		return res, err
	}
	index := map[string]json.RawMessage{}
	for _, ses := range sessions {
		refuse := func(reason string) {
			res.Refused = append(res.Refused, SessionRefusal{Key: ses.Key, ID: ses.ID, Reason: reason})
		}
		name := ses.ID + ".jsonl"
		if ses.ID == "" || filepath.Base(name) != name || strings.ContainsAny(ses.ID, "/\\\x00") {
			refuse(fmt.Sprintf("session id %q cannot be a file name; not written", ses.ID))
			continue
		}
		path := filepath.Join(dir, name)
		var cold *sqlitestore.ColdSource
		n, err := writeNew(ctx, path, func(w io.Writer) (int, error) {
			n, c, err := s.ExportWithSource(ctx, ses, nil, w)
			cold = c
			return n, err
		})
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if errors.Is(err, ErrEmptySession) {
			res.Skipped = append(res.Skipped, SessionRefusal{Key: ses.Key, ID: ses.ID, Reason: ErrEmptySession.Error()})
			continue
		}
		if err != nil {
			refuse(err.Error())
			continue
		}
		f := ExportedFile{Key: ses.Key, ID: ses.ID, Path: path, Lines: n}
		if cold != nil {
			f.ColdArchive = cold.Path
		}
		res.Files = append(res.Files, f)
		if ses.Key != "" {
			index[ses.Key] = withSessionFile(ses.Index, name)
		}
	}
	sort.Slice(res.Files, func(i, j int) bool { return res.Files[i].Path < res.Files[j].Path })
	data, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		return res, err
	}
	if _, err := writeNew(ctx, filepath.Join(dir, "sessions.json"), func(w io.Writer) (int, error) {
		_, err := w.Write(append(data, '\n'))
		return 0, err
	}); err != nil {
		return res, err
	}
	if len(res.Refused) > 0 {
		return res, &PartialExportError{Dir: dir, Written: len(res.Files), Refused: res.Refused}
	}
	return res, nil
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
