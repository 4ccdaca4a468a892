package sqlitestore

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// oddTypesDB writes a database whose transcript tables declare no column
// types (so that a value keeps the storage class it was written with) and
// whose sessions hold, besides ordinary rows, every kind of value
// database/sql's Scan converts or refuses: seqs and created_at that are
// text, real or blob, zstd events, rows with neither event_json nor
// event_zstd, cached navigation of every type.
func oddTypesDB(t *testing.T) (path string, sessions []string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "odd.sqlite")
	w, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	z := enc.EncodeAll([]byte(`{"type":"message","id":"z1"}`), nil)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := w.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`CREATE TABLE transcript_events(session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, PRIMARY KEY(session_id, seq))`)
	exec(`CREATE TABLE session_transcript_index_state(session_id PRIMARY KEY, indexed_seq, leaf_event_id, needs_rebuild, active_event_count, active_message_count)`)
	exec(`CREATE TABLE session_transcript_active_events(session_id, active_position, event_seq)`)
	exec(`CREATE TABLE session_transcript_cold_archives(` + coldColumns + `, archive_blob)`)
	row := func(id string, seq any, js any, created any, zs any) {
		var n any
		if zs != nil {
			n = len(`{"type":"message","id":"z1"}`)
		}
		exec(`INSERT INTO transcript_events VALUES (?,?,?,?,?,?)`, id, seq, js, created, zs, n)
	}
	state := func(id string, vals ...any) {
		exec(`INSERT INTO session_transcript_index_state VALUES (?,?,?,?,?,?)`, append([]any{id}, vals...)...)
	}
	active := func(id string, seqs ...any) {
		for i, s := range seqs {
			exec(`INSERT INTO session_transcript_active_events VALUES (?,?,?)`, id, i, s)
		}
	}
	add := func(id string) string { sessions = append(sessions, id); return id }

	s := add("plain")
	row(s, 0, `{"type":"session","id":"plain"}`, 1, nil)
	row(s, 1, `{"type":"message","id":"a"}`, 2, nil)
	row(s, 2, nil, 3, z)
	row(s, 3, ``, 4, nil)
	state(s, 3, "a", 0, 2, 1)
	active(s, 0, 1)

	s = add("seq-text-number")
	row(s, "7", `{"id":"x"}`, 1, nil)
	row(s, 8.0, `{"id":"y"}`, 2, nil)
	s = add("seq-text")
	row(s, 0, `{"id":"x"}`, 1, nil)
	row(s, "x7", `{"id":"y"}`, 2, nil)
	s = add("seq-real")
	row(s, 2.5, `{"id":"x"}`, 1, nil)
	s = add("seq-blob")
	row(s, []byte("9"), `{"id":"x"}`, 1, nil)
	s = add("seq-empty-blob")
	row(s, []byte{}, `{"id":"x"}`, 1, nil)
	s = add("seq-null")
	row(s, nil, `{"id":"x"}`, 1, nil)
	s = add("created-text")
	row(s, 0, `{"id":"x"}`, "1770000000000", nil)
	row(s, 1, `{"id":"y"}`, "soon", nil)
	s = add("json-not-text")
	row(s, 0, 42, 1, nil)
	row(s, 1, 4.25, 2, nil)
	row(s, 2, []byte(`{"id":"b"}`), 3, nil)
	s = add("neither")
	row(s, 0, nil, 1, nil)
	s = add("zstd-text")
	row(s, 0, nil, 1, "not zstd")
	s = add("zstd-number")
	row(s, 0, nil, 1, 12)
	s = add("zstd-empty")
	row(s, 0, nil, 1, []byte{})

	s = add("state-null-leaf")
	row(s, 0, `{"id":"x"}`, 1, nil)
	state(s, 0, nil, 1, 1, 0)
	s = add("state-odd")
	row(s, 0, `{"id":"x"}`, 1, nil)
	state(s, "5", 77, "1", 2.0, []byte("3"))
	active(s, "0", 1.0)
	s = add("state-bad-rebuild")
	state(s, 0, "x", "yes", 0, 0)
	s = add("state-null-count")
	state(s, 0, "x", 0, nil, 0)
	s = add("state-bad-seq")
	state(s, "soon", "x", 0, 0, 0)
	s = add("active-bad")
	active(s, 0, "later")
	s = add("active-null")
	active(s, nil)
	add("no-rows")

	s = add("cold")
	exec(`INSERT INTO session_transcript_cold_archives VALUES (?,?,?,?,?,?,?,?,?,?,?)`, s, "g1", "x.jsonl.zst", "00", 1, 10, 10, 0, 0, "sqlite", []byte("not an archive"))
	row(s, 5, `{"id":"hot"}`, 1, nil)
	return path, sessions
}

// readEventsAll is a reader's answer for a session, as text.
func readEventsAll(read func(string, func(Event) error) (*IndexState, error), id string) string {
	var b strings.Builder
	st, err := read(id, func(ev Event) error {
		fmt.Fprintf(&b, "event seq=%d created=%d json=%q nil=%v\n", ev.Seq, ev.CreatedAt, ev.JSON, ev.JSON == nil)
		return nil
	})
	if st != nil {
		s := *st
		if s.Cold != nil {
			fmt.Fprintf(&b, "cold %+v\n", *s.Cold)
			s.Cold = nil
		}
		fmt.Fprintf(&b, "state %+v\n", s)
	}
	fmt.Fprintf(&b, "error %v\n", err)
	return b.String()
}

// RawEvents hands out every storage class a column can hold as Events
// does once its zstd rows are decoded (DecodeEvent), value by value and
// error by error (database/sql's Scan conversions and their errors).
func TestRawEventsEqualEvents(t *testing.T) {
	path, sessions := oddTypesDB(t)
	d, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	errs, zstdRows := 0, 0
	for _, id := range sessions {
		want := readEventsAll(func(id string, fn func(Event) error) (*IndexState, error) {
			return d.Events(t.Context(), id, nil, fn)
		}, id)
		got := readEventsAll(func(id string, fn func(Event) error) (*IndexState, error) {
			return d.RawEvents(t.Context(), id, nil, func(ev Event) error {
				if ev.JSON == nil && ev.Zstd != nil {
					zstdRows++
					js, err := d.DecodeEvent(id, ev, nil)
					if err != nil {
						return err
					}
					ev.JSON = js
				}
				return fn(ev)
			})
		}, id)
		if got != want {
			t.Errorf("session %s:\nRawEvents:\n%s\nEvents:\n%s", id, got, want)
		}
		if strings.Contains(want, "sql: Scan error") {
			errs++
		}
	}
	if errs < 6 || zstdRows == 0 {
		t.Errorf("%d sessions ended in a Scan error, %d zstd rows: the test does not exercise the conversions", errs, zstdRows)
	}
}

// A session read from a file cut short while it reads row after row ends
// in a one-line error naming the file, not in a crash, and the database
// can still be closed.
func TestRawEventsSurviveTruncation(t *testing.T) {
	path := oneSessionDB(t, 16000)
	d, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	read := 0
	_, err = d.RawEvents(t.Context(), "s", nil, func(Event) error {
		if read++; read == 10 {
			if err := os.Truncate(path, 8192); err != nil {
				t.Fatal(err)
			}
		}
		return nil
	})
	if err == nil {
		t.Fatalf("read %d rows of a file cut to 8 KiB after 10: no error", read)
	}
	if !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %q: want one line naming %s", err, path)
	}
	t.Logf("after %d rows: %v", read, err)
}

// oneSessionDB writes a database whose transcript_events hold one session
// "s" of rows events of about 1 KiB.
func oneSessionDB(t *testing.T, rows int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.sqlite")
	w, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Exec(`CREATE TABLE transcript_events(session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL, PRIMARY KEY(session_id, seq));
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < ?)
		INSERT INTO transcript_events SELECT 's', i, '{"pad":"' || hex(randomblob(500)) || '"}', i FROM n`, rows); err != nil {
		t.Fatal(err)
	}
	return path
}
