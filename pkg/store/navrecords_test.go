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
// members the analyzer hands out).
func navRecordsOf(t *testing.T, rows [][]byte) []*nav96.Record {
	t.Helper()
	var text []byte
	for _, r := range rows {
		text = append(append(text, r...), '\n')
	}
	nav := newNavRecords(rows)
	sum, err := transcript.AnalyzeBytesEach(text, nav.add)
	if err != nil {
		t.Fatalf("analyze: %v", err)
	}
	return nav.finish(sum)
}

// checkSameRecords: every row's record equals nav96.Parse's (the rules'
// own reading of the row), so the single walk changes no answer.
func checkSameRecords(t *testing.T, name string, rows [][]byte) int {
	t.Helper()
	got := navRecordsOf(t, rows)
	for i, r := range rows {
		if want := nav96.Parse(r); !reflect.DeepEqual(got[i], want) {
			t.Errorf("%s row %d %q:\n got  %+v\n want %+v", name, i, r, *got[i], *want)
		}
	}
	return len(rows)
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
	compared := 0
	for name, s := range synthetic {
		compared += checkSameRecords(t, name, split(s))
	}
	// A row holding a newline: lines are not rows, every row is parsed.
	compared += checkSameRecords(t, "newline", [][]byte{[]byte(`{"type":"session","id":"s"}`), []byte("{\"type\":\"message\",\n\"id\":\"u1\",\"parentId\":null,\"message\":{\"role\":\"user\"}}"), []byte(`{"type":"message","id":"u2","parentId":"u1","message":{"role":"user"}}`)})

	// Every session 2026.9.6 wrote in the fixtures.
	for _, fx := range oracletest.Fixtures96() {
		st, err := Open(oracletest.Fixture96State(t, fx), Options{})
		if err != nil {
			t.Fatal(err)
		}
		sessions, err := st.SQLiteSessions()
		if err != nil {
			t.Fatal(err)
		}
		for _, ses := range sessions {
			var rows [][]byte
			if _, err := st.Rows(ses, nil, func(_ int64, line []byte) error {
				rows = append(rows, append([]byte(nil), line...))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(rows) > 0 {
				compared += checkSameRecords(t, fx+"/"+ses.Label(), rows)
			}
		}
	}
	if compared < 100 {
		t.Fatalf("compared only %d rows", compared)
	}
	t.Logf("compared %d rows", compared)
}
