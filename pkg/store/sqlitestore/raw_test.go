package sqlitestore

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
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
	exec(`CREATE TABLE transcript_events(session_id, seq, event_json, created_at, event_zstd, PRIMARY KEY(session_id, seq))`)
	exec(`CREATE TABLE session_transcript_index_state(session_id PRIMARY KEY, indexed_seq, leaf_event_id, needs_rebuild, active_event_count, active_message_count)`)
	exec(`CREATE TABLE session_transcript_active_events(session_id, active_position, event_seq)`)
	exec(`CREATE TABLE session_transcript_cold_archives(` + coldColumns + `, archive_blob)`)
	row := func(id string, seq any, js any, created any, zs any) {
		exec(`INSERT INTO transcript_events VALUES (?,?,?,?,?)`, id, seq, js, created, zs)
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

// readAll is a RawEvents-like reader's answer for a session, as text.
func readEventsAll(read func(string, func(Event) error) (*IndexState, error), id string) string {
	var b strings.Builder
	st, err := read(id, func(ev Event) error {
		fmt.Fprintf(&b, "event seq=%d created=%d zstd=%v json=%q nil=%v\n", ev.Seq, ev.CreatedAt, ev.Zstd, ev.JSON, ev.JSON == nil)
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

// The rawConn reader hands out what the database/sql reader does, value by
// value and error by error, for every storage class a column can hold.
func TestRawEventsEqualDatabaseSQL(t *testing.T) {
	path, sessions := oddTypesDB(t)
	d, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	errs := 0
	for _, id := range sessions {
		want := readEventsAll(d.sqlEvents, id)
		got := readEventsAll(d.RawEvents, id)
		if got != want {
			t.Errorf("session %s:\nrawConn:\n%s\ndatabase/sql:\n%s", id, got, want)
		}
		if strings.Contains(want, "sql: Scan error") {
			errs++
		}
	}
	if errs < 6 {
		t.Errorf("%d sessions ended in a Scan error: the test does not exercise the conversions", errs)
	}
	// the fast path was taken (an idle rawConn is left), not only the
	// fallback
	if len(d.rawConns) != 1 {
		t.Errorf("%d idle rawConns after the reads, want 1", len(d.rawConns))
	}
}

// A session read through a rawConn from a file cut short while it reads
// row after row ends in a one-line error naming the file, not in a crash;
// the database can still be closed, and the next read opens a new rawConn.
func TestRawEventsSurviveTruncation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cut.sqlite")
	w, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`CREATE TABLE transcript_events(session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL, PRIMARY KEY(session_id, seq));
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 16000)
		INSERT INTO transcript_events SELECT 's', i, '{"pad":"' || hex(randomblob(500)) || '"}', i FROM n`); err != nil {
		t.Fatal(err)
	}
	w.Close()
	d, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	read := 0
	_, err = d.RawEvents("s", func(Event) error {
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
	if len(d.rawConns) != 0 {
		t.Errorf("the rawConn that read the cut file went back to the idle ones")
	}
	t.Logf("after %d rows: %v", read, err)
}

// scanAs gives database/sql's answer for every driver value type.
func TestScanAsEqualsScan(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, v := range []any{int64(3), 3.0, 3.5, "4", "x", []byte("5"), []byte{}, nil, "9223372036854775808"} {
		var want64 int64
		var wantInt int
		var wantNS sql.NullString
		err64 := db.QueryRow("SELECT ? AS v", v).Scan(&want64)
		errInt := db.QueryRow("SELECT ? AS v", v).Scan(&wantInt)
		errNS := db.QueryRow("SELECT ? AS v", v).Scan(&wantNS)
		var drv any
		if err := db.QueryRow("SELECT ? AS v", v).Scan(&drv); err != nil {
			t.Fatal(err)
		}
		got64, gotErr64 := scanAs[int64](drv, 0, "v")
		gotInt, gotErrInt := scanAs[int](drv, 0, "v")
		var gotNS sql.NullString
		gotErrNS := gotNS.Scan(drv)
		if got64 != want64 && err64 == nil || fmt.Sprint(gotErr64) != fmt.Sprint(err64) {
			t.Errorf("%#v as int64: %v, %v; database/sql %v, %v", v, got64, gotErr64, want64, err64)
		}
		if gotInt != wantInt && errInt == nil || fmt.Sprint(gotErrInt) != fmt.Sprint(errInt) {
			t.Errorf("%#v as int: %v, %v; database/sql %v, %v", v, gotInt, gotErrInt, wantInt, errInt)
		}
		if !reflect.DeepEqual(gotNS, wantNS) || fmt.Sprint(gotErrNS) != fmt.Sprint(errNS) {
			t.Errorf("%#v as NullString: %v, %v; database/sql %v, %v", v, gotNS, gotErrNS, wantNS, errNS)
		}
	}
}
