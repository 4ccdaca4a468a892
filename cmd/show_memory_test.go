package cmd

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// oc show holds a skeleton of a few bytes an entry, not the transcript nor
// an index of its entries' contents: a transcript of a million entries
// (about 250 MB) is shown under a fixed memory bound, measured on the
// process (its peak RSS under Go's default collector settings, as the
// helper runs oc): 52 MiB, where the full index of each entry held 205.
func TestShowMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a transcript of 250 MB")
	}
	const entries = 1_000_000
	path := filepath.Join(t.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintln(w, `{"type":"session","version":3,"id":"big","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/w"}`)
	pad := strings.Repeat("lorem ipsum ", 15)
	parent := "null"
	for i := 0; i < entries; i++ {
		id := fmt.Sprintf("%08x", i)
		fmt.Fprintf(w, `{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-05-01T00:00:01.000Z","message":{"role":"user","content":"entry %d %s"}}`+"\n", id, parent, i, pad)
		parent = `"` + id + `"`
	}
	// the last entry forks from the third: the active branch is four
	// entries long, so that the output stays small
	fmt.Fprintln(w, `{"type":"message","id":"last","parentId":"00000002","message":{"role":"assistant","content":[{"type":"text","text":"the final answer"}]}}`)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	const bound = 96 << 20
	p := runOCProcess(t, "show", "--no-pager", path)
	t.Logf("oc show of %d entries: exit %d, max RSS %d MiB", entries, p.code, p.maxRSS>>20)
	if p.code != 0 {
		t.Fatalf("exit %d: %s", p.code, p.stderr)
	}
	if p.maxRSS == 0 || p.maxRSS > bound {
		t.Errorf("max RSS %d MiB, want under %d MiB", p.maxRSS>>20, bound>>20)
	}
	for _, want := range []string{"entry 0 ", "entry 2 ", "the final answer", "4 of 1000001 entries"} {
		if !strings.Contains(p.stdout, want) {
			t.Errorf("output lacks %q: %.1000s", want, p.stdout)
		}
	}
	if strings.Contains(p.stdout, "entry 3 ") {
		t.Errorf("output shows an entry off the active branch: %.1000s", p.stdout)
	}
}
