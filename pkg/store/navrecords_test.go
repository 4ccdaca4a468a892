package store

import (
	"reflect"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store/nav96"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// navRecordsOf builds a session's records the way inspect does (from the
// members the analyzer hands out, into b's slab, which a worker reuses from
// session to session).
func navRecordsOf(t *testing.T, rows [][]byte, b *sessionBuffers) []*nav96.Record {
	t.Helper()
	var text []byte
	for _, r := range rows {
		text = append(append(text, r...), '\n')
	}
	nav := newNavRecords(rows, b)
	sum, err := transcript.AnalyzeBytesEach(text, nav.add)
	if err != nil {
		t.Fatalf("analyze: %v", err)
	}
	return nav.finish(sum)
}

// checkSameRecords: every row's record equals nav96.Parse's (the rules'
// own reading of the row), so the single walk changes no answer, also in a
// slab that held another session's records. It returns the rows that agree.
func checkSameRecords(t *testing.T, name string, rows [][]byte, b *sessionBuffers) int {
	t.Helper()
	got := navRecordsOf(t, rows, b)
	if len(got) != len(rows) {
		t.Errorf("%s: %d records for %d rows", name, len(got), len(rows))
		return 0
	}
	same := 0
	for i, r := range rows {
		if want := nav96.Parse(r); !reflect.DeepEqual(got[i], want) {
			t.Errorf("%s row %d %q:\n got  %+v\n want %+v", name, i, r, *got[i], *want)
			continue
		}
		same++
	}
	return same
}

func TestNavRecordsFromAnalyzerMatchParse(t *testing.T) {
	split := func(s string) [][]byte {
		var out [][]byte
		for _, l := range strings.Split(s, "\n") {
			out = append(out, []byte(l))
		}
		return out
	}
	synthetic := map[string]string{
		"shapes": `{"type":"session","version":3,"id":"s"}
{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":"a"}}
{"type":"message","id":"a1","parentId":"u1","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1"}]}}
{"type":"message","id":"r1","parentId":"a1","message":{"role":"toolResult","toolUseId":"t1","content":[]}}
{"type":"custom","id":"c0","parentId":"r1","message":{"role":"user","excludeFromContext":true}}
{"type":"leaf","id":"l1","parentId":"u1","targetId":"u1","appendMode":"side"}
{"type":"reset","id":"r1","parentId":"u1","reason":"new","firstKeptEntryId":"u1"}
{"type":"compaction","id":"c1","parentId":"r1","summary":"s","firstKeptEntryId":"u1","tokensBefore":1}
{"type":"message","id":"x","parentId":"c1","message":"text"}
{"type":"message","id":"ex","parentId":"x","message":{"role":"user","content":"h","excludeFromContext":true}}
{"type":"session","id":"again"}

   
not json
[1]
{"type":"message","id":"crlf","parentId":"x","message":{"role":"user","content":"b"}}` + "\r",
		"bom":       "\xef\xbb\xbf" + `{"type":"session","version":3,"id":"s"}` + "\n" + `{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":"a"}}`,
		"no-header": `{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":"a"}}`,
	}
	// want: every row of the inputs (the synthetic lines, the three rows
	// holding a newline, and every transcript_events row of the fixtures,
	// counted with SQL of the test's own).
	compared, want := 0, 0
	b := &sessionBuffers{} // one worker's, for every session in turn
	for name, s := range synthetic {
		rows := split(s)
		want += len(rows)
		compared += checkSameRecords(t, name, rows, b)
	}
	// A row holding a newline: lines are not rows, every row is parsed.
	newline := [][]byte{[]byte(`{"type":"session","id":"s"}`), []byte("{\"type\":\"message\",\n\"id\":\"u1\",\"parentId\":null,\"message\":{\"role\":\"user\"}}"), []byte(`{"type":"message","id":"u2","parentId":"u1","message":{"role":"user"}}`)}
	want += len(newline)
	compared += checkSameRecords(t, "newline", newline, b)

	// Every session 2026.9.6 wrote in the fixtures.
	for _, fx := range oracletest.Fixtures96() {
		state := oracletest.Fixture96State(t, fx)
		for _, s := range oracletest.Sessions96(t, state) {
			want += s.Events
		}
		st, err := Open(state, Options{})
		if err != nil {
			t.Fatal(err)
		}
		sessions, err := st.SQLiteSessions(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, ses := range sessions {
			var rows [][]byte
			if _, err := st.Rows(t.Context(), ses, nil, func(_ int64, line []byte) error {
				rows = append(rows, append([]byte(nil), line...))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(rows) > 0 {
				compared += checkSameRecords(t, fx+"/"+ses.Label(), rows, b)
			}
		}
	}
	oracletest.Checked(t, "single-walk navigation records equal nav96.Parse's (every synthetic row and every row of the 2026.9.6 fixtures)", compared, want)
}
