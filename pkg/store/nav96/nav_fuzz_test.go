package nav96

import (
	"bytes"
	"testing"
)

// FuzzAnalyze: any rows, any bytes: no panic, no endless walk, the active
// branch is rows of the session without repeats, and the
// context never holds more messages than the branch has rows plus one
// compaction summary.
func FuzzAnalyze(f *testing.F) {
	f.Add([]byte(`{"type":"session","version":3,"id":"s"}
{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":"a"}}
{"type":"leaf","id":"l1","parentId":"u1","targetId":"u1"}
{"type":"message","id":"u2","parentId":"l1","appendMode":"side","message":{"role":"user","content":"b"}}
{"type":"reset","id":"r1","parentId":"u1","reason":"new","firstKeptEntryId":"u1"}
{"type":"compaction","id":"c1","parentId":"r1","summary":"s","firstKeptEntryId":"u1","tokensBefore":1}
{"type":"message","id":"u1","parentId":"u1","message":{"role":"assistant","content":[{"type":"toolCall","id":"t"}]}}`))
	f.Add([]byte("{\"type\":\"leaf\",\"id\":\"a\",\"parentId\":\"b\",\"targetId\":\"a\"}\n{\"type\":\"leaf\",\"id\":\"b\",\"parentId\":\"a\",\"targetId\":\"b\"}\nnull\n[1]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows := bytes.Split(data, []byte("\n"))
		res := Analyze(rows)
		seen := map[int]bool{}
		for _, i := range res.Active {
			if i < 0 || i >= len(rows) || seen[i] {
				t.Fatalf("active branch row %d out of range or repeated: %v", i, res.Active)
			}
			seen[i] = true
		}
		if res.Messages > len(res.Active)+1 {
			t.Fatalf("%d messages from a branch of %d rows", res.Messages, len(res.Active))
		}
		if res.Leaf != "" && res.LeafSeq < 0 {
			t.Fatalf("leaf %q has no row", res.Leaf)
		}
	})
}
