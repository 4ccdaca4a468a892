package store_test

import (
	"bytes"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store"
)

// mixedNavigationJSON passes the schema's check of
// transcript_events.navigation_json.
const mixedNavigationJSON = `{"version":1,"report":{"kind":"canonical"},"navigation":{},"reset":{},"model":{},"modelBytes":0,"modelWithoutCheckpointBytes":0,"withoutCustomDataBytes":0}`

// A zstd row after a plain one is decoded into memory of its own: export
// (and every reader of store.Rows, oc show among them) hands out each row
// byte for byte as stored, whatever the order and sizes of plain and
// compressed rows. A long plain row followed by short zstd rows is the case
// that once decoded the zstd row over the plain row's bytes.
func TestRowsMixedPlainAndZstd(t *testing.T) {
	state := oracletest.Fixture96State(t, "example-state")
	dbPath := filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")
	w, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	var id string
	var last int64
	if err := w.QueryRow("SELECT session_id, max(seq) FROM transcript_events GROUP BY session_id ORDER BY session_id LIMIT 1").Scan(&id, &last); err != nil {
		t.Fatal(err)
	}
	var want [][]byte
	rows, err := w.Query("SELECT coalesce(event_json, '') FROM transcript_events WHERE session_id = ? ORDER BY seq", id)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var js []byte
		if err := rows.Scan(&js); err != nil {
			t.Fatal(err)
		}
		want = append(want, js)
	}
	rows.Close()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	// plain rows of several sizes, each followed by zstd rows shorter and
	// longer than it
	for i := 1; i <= 12; i++ {
		seq := last + int64(i)
		var js []byte
		switch i % 4 {
		case 1:
			js = fmt.Appendf(nil, `{"type":"message","id":"p%02d","parentId":null,"message":{"role":"user","content":"%s"}}`, i, strings.Repeat("plain-", 200))
		case 2:
			js = fmt.Appendf(nil, `{"type":"message","id":"z%02d","parentId":null,"message":{"role":"assistant","content":"short"}}`, i)
		case 3:
			js = fmt.Appendf(nil, `{"type":"message","id":"z%02d","parentId":null,"message":{"role":"assistant","content":"%s"}}`, i, strings.Repeat("zstd-", 40))
		default:
			js = fmt.Appendf(nil, `{"type":"message","id":"z%02d","parentId":null,"message":{"role":"assistant","content":"%s"}}`, i, strings.Repeat("long-zstd-", 300))
		}
		if i%4 == 1 {
			_, err = w.Exec(`INSERT INTO transcript_events(session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json) VALUES (?,?,?,?,NULL,NULL,?)`,
				id, seq, string(js), 1777000000000+seq, mixedNavigationJSON)
		} else {
			_, err = w.Exec(`INSERT INTO transcript_events(session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json) VALUES (?,?,NULL,?,?,?,?)`,
				id, seq, 1777000000000+seq, enc.EncodeAll(js, nil), len(js), mixedNavigationJSON)
		}
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, js)
	}
	if _, err := w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	w.Close()

	st, err := store.Open(state, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ses, err := st.Resolve(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := st.Export(t.Context(), ses, nil, &buf); err != nil {
		t.Fatal(err)
	}
	wantText := append(bytes.Join(want, []byte("\n")), '\n')
	if !bytes.Equal(buf.Bytes(), wantText) {
		got := bytes.Split(buf.Bytes(), []byte("\n"))
		for i := range want {
			if i >= len(got) || !bytes.Equal(got[i], want[i]) {
				g := []byte(nil)
				if i < len(got) {
					g = got[i]
				}
				t.Fatalf("export differs at row %d of %d:\n got %.200q\nwant %.200q", i, len(want), g, want[i])
			}
		}
		t.Fatalf("export is %d bytes, want %d", buf.Len(), len(wantText))
	}
	// Rows hands out the same lines, each fn's to keep.
	var kept [][]byte
	if _, err := st.Rows(t.Context(), ses, nil, func(_ int64, line []byte) error {
		kept = append(kept, line)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(bytes.Join(kept, []byte("\n")), '\n'), wantText) {
		t.Errorf("the lines Rows handed out changed after the read")
	}
	// StreamRows hands out the same lines, one at a time (each valid
	// during its call: copied here).
	var streamed bytes.Buffer
	if _, err := st.StreamRows(t.Context(), ses, nil, streamed.Reset, func(_ int64, line []byte) error {
		streamed.Write(line)
		streamed.WriteByte('\n')
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(streamed.Bytes(), wantText) {
		t.Errorf("StreamRows handed out %d bytes, not the stored events (%d)", streamed.Len(), len(wantText))
	}
}

// A session whose header row is not its first row (only a hand-made
// database has one): StreamRows hands the header out first, as Rows does.
func TestStreamRowsHeaderFirst(t *testing.T) {
	state := oracletest.Fixture96State(t, "example-state")
	dbPath := filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")
	w, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	var id string
	var first, last int64
	if err := w.QueryRow("SELECT session_id, min(seq), max(seq) FROM transcript_events GROUP BY session_id ORDER BY session_id LIMIT 1").Scan(&id, &first, &last); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec("UPDATE transcript_events SET seq = ? WHERE session_id = ? AND seq = ?", last+10, id, first); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	st, err := store.Open(state, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ses, err := st.Resolve(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var rows, streamed bytes.Buffer
	if _, err := st.Rows(t.Context(), ses, nil, func(_ int64, line []byte) error {
		rows.Write(line)
		rows.WriteByte('\n')
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.StreamRows(t.Context(), ses, nil, streamed.Reset, func(_ int64, line []byte) error {
		streamed.Write(line)
		streamed.WriteByte('\n')
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(rows.Bytes(), []byte(`{"type":"session"`)) {
		t.Fatalf("Rows does not start with the header: %.100s", rows.Bytes())
	}
	if !bytes.Equal(rows.Bytes(), streamed.Bytes()) {
		t.Errorf("StreamRows differs from Rows:\n%.300s\n%.300s", streamed.Bytes(), rows.Bytes())
	}
}
