package context96

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/openclaw-tools/oc/pkg/store/nav96"
)

// FuzzBuild: any rows: no panic; unless a row's timestamp stops it (as 9.6
// throws), one valid JSON message per context item nav96 counts, and a
// branch of rows of the session.
func FuzzBuild(f *testing.F) {
	f.Add([]byte(`{"type":"session","version":3,"id":"s"}
{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":"a"}}
{"type":"message","id":"a1","parentId":"u1","message":{"role":"assistant","content":[],"providerReplay":{"type":"anthropic-compaction"}}}
{"type":"custom_message","id":"m1","parentId":"a1","customType":"n","content":"x","display":true,"timestamp":"2026-01-01T00:00:00Z"}
{"type":"branch_summary","id":"b1","parentId":"m1","fromId":"u1","summary":"s","timestamp":"2026-01-01T00:00:00Z"}
{"type":"compaction","id":"c1","parentId":"b1","summary":"s","firstKeptEntryId":"a1","tokensBefore":1,"timestamp":"2026-01-01T00:00:00.5Z"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows := bytes.Split(data, []byte("\n"))
		s, err := Build(rows)
		if err != nil {
			return
		}
		if want := nav96.Analyze(rows).Messages; len(s.Context.Messages) != want {
			t.Fatalf("%d messages, nav96 counts %d", len(s.Context.Messages), want)
		}
		for i, m := range s.Context.Messages {
			if !json.Valid(m) {
				t.Fatalf("message %d is not JSON: %s", i, m)
			}
		}
		if len(s.Branch) > len(rows) {
			t.Fatalf("branch of %d rows from %d", len(s.Branch), len(rows))
		}
	})
}
