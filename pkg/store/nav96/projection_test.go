package nav96

import (
	"slices"
	"strings"
	"testing"
)

// A root leaf written after a compaction on another chain (the reproducer
// context-compaction-unknown-parent of the 2026.9.6 fuzz corpus, cut down):
// 9.6 caches the path from the leaf as its active events
// (visitProjectionSource), so its runner's bounded read, and the context,
// hold the leaf alone; selectSessionTranscriptActiveEntries (archive and
// leaf-controlled reads) puts the compaction in front.
func TestProjectionAddsNoEarlierCompaction(t *testing.T) {
	rows := strings.Split(`{"type":"session","version":3,"id":"s"}
{"type":"message","id":"m1","parentId":null,"timestamp":"2026-05-08T06:34:53.037Z","message":{"role":"user","content":"one"}}
{"type":"message","id":"m2","parentId":"deadbeef","timestamp":"2026-05-08T06:34:54.408Z","message":{"role":"user","content":"two"}}
{"type":"compaction","id":"c1","parentId":"m2","timestamp":"2026-05-08T06:34:55.779Z","summary":"prior","firstKeptEntryId":"gone","tokensBefore":10}
{"type":"message","id":"a1","parentId":"c1","timestamp":"2026-05-08T06:34:57.150Z","message":{"role":"assistant","content":"three"}}
{"type":"message","id":"m3","parentId":null,"timestamp":"2026-05-08T06:35:21.828Z","message":{"role":"user","content":"four"}}`, "\n")
	lines := make([][]byte, len(rows))
	for i, r := range rows {
		lines[i] = []byte(r)
	}
	res := Analyze(lines)
	if res.Leaf != "m3" {
		t.Fatalf("leaf %q, want m3", res.Leaf)
	}
	if want := []int{3, 5}; !slices.Equal(res.Active, want) {
		t.Errorf("selectSessionTranscriptActiveEntries: rows %v, want %v", res.Active, want)
	}
	if want := []int{5}; !slices.Equal(res.ActiveEvents, want) || !slices.Equal(res.Branch, want) {
		t.Errorf("active events %v, branch %v: want %v (no compaction before the path)", res.ActiveEvents, res.Branch, want)
	}
	if res.Messages != 1 {
		t.Errorf("%d context messages, want 1 (the leaf)", res.Messages)
	}
}

// With no path (no leaf), 9.6 projects every row that is an object, not a
// header, and a canonical entry, a tree entry or a message holder; a leaf
// control with no path projects nothing.
func TestProjectionWithoutPath(t *testing.T) {
	rows := [][]byte{
		[]byte(`{"type":"session","version":3,"id":"s"}`),
		[]byte(`[1,2]`),
		[]byte(`{"type":"mystery","id":"x"}`),
		[]byte(`{"type":"mystery","id":"y","message":null}`),
		[]byte(`{"type":"custom","customType":"k"}`),
	}
	if got := Analyze(rows).ActiveEvents; !slices.Equal(got, []int{3, 4}) {
		t.Errorf("active events %v, want [3 4]", got)
	}
}
