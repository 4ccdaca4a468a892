package search

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScanLineNumbersAcrossChunks: line numbers stay right across chunk
// boundaries, skipped chunks, a line longer than the buffer, CRLF and a
// last line without its newline.
func TestScanLineNumbersAcrossChunks(t *testing.T) {
	var b bytes.Buffer
	want := map[int64]bool{}
	n := int64(0)
	add := func(s string, hit bool, eol string) {
		n++
		b.WriteString(s + eol)
		if hit {
			want[n] = true
		}
	}
	for i := 0; i < 40000; i++ { // ~3 MB of lines that do not match
		add(fmt.Sprintf(`{"type":"message","message":{"role":"user","content":"filler %d %s"}}`, i, strings.Repeat("x", i%97)), false, "\n")
		if i == 20000 {
			add(`{"type":"message","message":{"role":"user","content":"a NEEDLE here"}}`, true, "\r\n")
		}
	}
	add(`{"type":"message","message":{"role":"user","content":"`+strings.Repeat("y", 3*chunkSize)+` NEEDLE"}}`, true, "\n")
	add(`{"type":"message","message":{"role":"user","content":"after the long one"}}`, false, "\n")
	add(`{"type":"message","message":{"role":"user","content":"last NEE\u0044LE"}}`, true, "")
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := Compile(Query{Pattern: "NEEDLE"})
	if err != nil {
		t.Fatal(err)
	}
	for _, all := range []bool{false, true} {
		got := map[int64]bool{}
		var last int64
		bufs := &buffers{}
		err := scanJSONL(path, m, all, bufs, func(num int64, line []byte) error {
			if bytes.HasSuffix(line, []byte{'\r'}) {
				t.Errorf("line %d keeps its CR", num)
			}
			s := &sessionSearch{m: m}
			if err := s.line(num, line); err != nil {
				return err
			}
			if len(s.matches) > 0 {
				got[num] = true
			}
			last = num
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("all %v: matches at %v, want %v", all, got, want)
		}
		if all && last != n {
			t.Errorf("all: last line %d, want %d", last, n)
		}
	}
}
