package nav96

import (
	"bytes"
	"slices"
	"testing"
)

// FuzzAnalyze: any rows, any bytes: no panic, no endless walk; the active
// branch and the projected active events are rows of the session without
// repeats; the session manager's branch is drawn from the projected events
// in their order; and the context never holds more messages than that
// branch has rows plus one compaction summary.
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
		checkRows(t, "active branch", res.Active, len(rows))
		checkRows(t, "projected active events", res.ActiveEvents, len(rows))
		next := 0
		for _, i := range res.Branch {
			for next < len(res.ActiveEvents) && res.ActiveEvents[next] != i {
				next++
			}
			if next == len(res.ActiveEvents) {
				t.Fatalf("branch %v is not drawn in order from the projected events %v", res.Branch, res.ActiveEvents)
			}
			next++
		}
		if res.Messages != len(res.Context) || res.Messages > len(res.Branch)+1 {
			t.Fatalf("%d messages (%d context items) from a branch of %d rows", res.Messages, len(res.Context), len(res.Branch))
		}
		for _, c := range res.Context {
			if !slices.Contains(res.Branch, c.Pos) {
				t.Fatalf("context item from row %d, not on the branch %v", c.Pos, res.Branch)
			}
		}
		if res.Leaf != "" && res.LeafSeq < 0 {
			t.Fatalf("leaf %q has no row", res.Leaf)
		}
	})
}

// checkRows fails when idx holds a row index out of range or twice.
func checkRows(t *testing.T, what string, idx []int, n int) {
	t.Helper()
	seen := map[int]bool{}
	for _, i := range idx {
		if i < 0 || i >= n || seen[i] {
			t.Fatalf("%s row %d out of range or repeated: %v", what, i, idx)
		}
		seen[i] = true
	}
}
