package conversation

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// compareSkeletons checks that the slim skeleton of data, when scanSlim
// decides on it, is transcript's index and tree: the same entries (lines,
// offsets, ids), parents, active branch and header. It reports whether
// the slim skeleton was used.
func compareSkeletons(t *testing.T, name string, data []byte) bool {
	t.Helper()
	r := bytes.NewReader(data)
	slim, h, lines, size, ok, err := scanSlim(r, r)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !ok {
		return false
	}
	ix, _ := transcript.Scan(bytes.NewReader(data), transcript.ScanOptions{})
	full := &fullSkeleton{ix: ix, tree: transcript.NewTree(ix)}
	if slim.Len() != full.Len() {
		t.Fatalf("%s: %d entries, the full index has %d", name, slim.Len(), full.Len())
	}
	for i := 0; i < full.Len(); i++ {
		if slim.Line(i) != full.Line(i) || slim.Offset(i) != full.Offset(i) || slim.Parent(i) != full.Parent(i) || slim.ID(i) != full.ID(i) {
			t.Fatalf("%s: entry %d: slim line %d offset %d parent %d id %q; full %d %d %d %q", name, i,
				slim.Line(i), slim.Offset(i), slim.Parent(i), slim.ID(i), full.Line(i), full.Offset(i), full.Parent(i), full.ID(i))
		}
		if !slim.HasID(i, full.ID(i)) {
			t.Fatalf("%s: entry %d: HasID(%q) is false", name, i, full.ID(i))
		}
	}
	if !slices.Equal(slim.Path(), full.Path()) {
		t.Fatalf("%s: active branch %v, the full index's %v", name, slim.Path(), full.Path())
	}
	if full.Migrated() {
		t.Fatalf("%s: the slim skeleton took a file OpenClaw migrates", name)
	}
	fh := ix.Header
	if fh == nil || h.Line != fh.Line || h.ID != fh.ID || h.Cwd != fh.Cwd || h.Timestamp != fh.Timestamp || h.Version != fh.Version {
		t.Fatalf("%s: header %+v, the full index's %+v", name, h, fh)
	}
	if lines != ix.Lines || size != ix.Bytes {
		t.Fatalf("%s: %d lines %d bytes, the full index's %d %d", name, lines, size, ix.Lines, ix.Bytes)
	}
	return true
}

const slimHeaderLine = `{"type":"session","version":3,"id":"s1","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/w"}`

func msg(id, parent string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return fmt.Sprintf(`{"type":"message","id":"%s","parentId":%s,"message":{"role":"user","content":"x"}}`, id, p)
}

// The slim skeleton links entries as pi's SessionManager does: an id given
// twice is the last entry with it (for a parentId on the next line too), a
// parentId that names no entry makes a root, a cycle ends the active
// branch, later session lines and blank lines are no entries; and it
// leaves every transcript it does not decide on to the full index.
func TestSlimSkeletonIsTheFullIndex(t *testing.T) {
	slimCases := map[string][]string{
		"chain":          {slimHeaderLine, msg("a", ""), msg("b", "a"), msg("c", "b")},
		"fork":           {slimHeaderLine, msg("a", ""), msg("b", "a"), msg("c", "b"), msg("d", "b"), msg("e", "d")},
		"fork-last-leaf": {slimHeaderLine, msg("a", ""), msg("b", "a"), msg("d", "b"), msg("e", "d"), msg("c", "b")},
		"duplicate-id":   {slimHeaderLine, msg("a", ""), msg("b", "a"), msg("c", "b"), msg("b", "a"), msg("d", "c")},
		"duplicate-next": {slimHeaderLine, msg("a", ""), msg("b", "a"), msg("c", "b"), msg("b", "c"), msg("e", "b")},
		"duplicate-last": {slimHeaderLine, msg("a", ""), msg("b", "a"), msg("a", "b")},
		"missing-parent": {slimHeaderLine, msg("a", ""), msg("b", "zz"), msg("c", "b")},
		"self-parent":    {slimHeaderLine, msg("a", ""), msg("b", "b")},
		"cycle":          {slimHeaderLine, msg("a", "c"), msg("b", "a"), msg("c", "b")},
		"blank-and-crlf": {slimHeaderLine, "", msg("a", "") + "\r", "   ", msg("b", "a")},
		"later-session":  {slimHeaderLine, msg("a", ""), `{"type":"session","version":3,"id":"s2"}`, msg("b", "a")},
		"empty-id":       {slimHeaderLine, msg("", ""), msg("b", ""), msg("", "b")},
		"dup-keys":       {slimHeaderLine, msg("a", ""), `{"type":"message","id":"x","id":"b","parentId":"zz","parentId":"a"}`},
		"header-only":    {slimHeaderLine},
		"no-final-lf":    {slimHeaderLine, msg("a", "") + "\n" + msg("b", "a")},
	}
	for name, lines := range slimCases {
		data := strings.Join(lines, "\n")
		if name != "no-final-lf" {
			data += "\n"
		}
		if !compareSkeletons(t, name, []byte(data)) {
			t.Errorf("%s: the slim skeleton did not decide on it", name)
		}
	}
	fullCases := map[string][]string{
		"malformed":     {slimHeaderLine, msg("a", ""), "not json", msg("b", "a")},
		"version-2":     {`{"type":"session","version":2,"id":"s1"}`, msg("a", "")},
		"no-version":    {`{"type":"session","id":"s1"}`, msg("a", "")},
		"no-header":     {msg("a", ""), msg("b", "a")},
		"bom":           {"\ufeff" + slimHeaderLine, msg("a", "")},
		"escaped-id":    {slimHeaderLine, msg("a", ""), `{"type":"message","id":"\u0062","parentId":"a"}`},
		"numeric-id":    {slimHeaderLine, `{"type":"message","id":1,"parentId":null}`},
		"object-parent": {slimHeaderLine, msg("a", ""), `{"type":"message","id":"b","parentId":{}}`},
		"no-id":         {slimHeaderLine, `{"type":"message","parentId":null}`},
		"not-object":    {slimHeaderLine, msg("a", ""), `["a"]`},
		"bad-utf8":      {slimHeaderLine, "{\"type\":\"message\",\"id\":\"a\xff\",\"parentId\":null}"},
		"escaped-key":   {slimHeaderLine, `{"type":"message","\u0069d":"a","parentId":null}`},
	}
	for name, lines := range fullCases {
		if compareSkeletons(t, name, []byte(strings.Join(lines, "\n")+"\n")) {
			t.Errorf("%s: the slim skeleton decided on a transcript it should leave to the full index", name)
		}
	}
}

// On every plain transcript of the real corpus the slim skeleton, when it
// decides, is the full index.
func TestSlimSkeletonOnCorpus(t *testing.T) {
	slim, total := 0, 0
	for _, p := range oracletest.Transcripts(t) {
		if strings.HasSuffix(p, ".gz") || strings.HasSuffix(p, ".zst") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		total++
		if compareSkeletons(t, filepath.Base(p), data) {
			slim++
		}
	}
	t.Logf("%d of %d corpus transcripts take the slim skeleton", slim, total)
	if total > 0 && slim == 0 {
		t.Errorf("no corpus transcript takes the slim skeleton")
	}
}

// Random transcripts of few distinct ids (so that ids repeat, parents
// name later entries, themselves or none, and cycles form), with blank,
// CRLF and later session lines: the slim skeleton equals the full index on
// every one it decides on (it decides on all of them but those with
// invalid lines).
func TestSlimSkeletonRandom(t *testing.T) {
	t.Run("hash", func(t *testing.T) { randomSkeletons(t) })
	// sort keys of 2 bits of hash: entries of different ids share them
	keyIndexBits = 62
	defer func() { keyIndexBits = 32 }()
	t.Run("shared-key-bits", func(t *testing.T) { randomSkeletons(t); TestSlimSkeletonIsTheFullIndex(t) })
}

func randomSkeletons(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	decided := 0
	for n := 0; n < 500; n++ {
		var b strings.Builder
		b.WriteString(slimHeaderLine + "\n")
		entries := 1 + rnd.IntN(30)
		ids := 1 + rnd.IntN(12)
		for i := 0; i < entries; i++ {
			id := fmt.Sprintf("e%d", rnd.IntN(ids))
			parent := ""
			if rnd.IntN(5) > 0 {
				parent = fmt.Sprintf("e%d", rnd.IntN(ids+2))
			}
			line := msg(id, parent)
			switch rnd.IntN(20) {
			case 0:
				line = ""
			case 1:
				line += "\r"
			case 2:
				line = `{"type":"session","version":3,"id":"again"}`
			case 3:
				line = `{"type":"message","id":"` + id + `","parentId":""}`
			case 4:
				line = `{"id":"` + id + `","type":"label","parentId":"` + parent + `","parentId":null}`
			}
			b.WriteString(line + "\n")
		}
		if compareSkeletons(t, fmt.Sprintf("random %d:\n%s", n, b.String()), []byte(b.String())) {
			decided++
		}
	}
	if decided < 450 {
		t.Errorf("the slim skeleton decided on %d of 500", decided)
	}
}
