package repair

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

// One large file shows progress in bytes (cmd/repair, and inspect's repair
// check): Options.Progress is told every byte of the file on disk, once (the
// compressed bytes of a compressed file: they add up to its size).
func TestPlanFileProgressCountsEveryByte(t *testing.T) {
	plain := filepath.Join("..", "..", "testdata", "example-state", "agents", "main", "sessions", "0197d2b9-0c4a-7d11-8e22-33f4a5b6c7d8.jsonl")
	src, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(bytes.Repeat(src, 20))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	compressed := filepath.Join(t.TempDir(), "s.jsonl.gz")
	if err := os.WriteFile(compressed, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{plain, compressed} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		var read int64
		calls := 0
		if _, err := PlanFile(path, Options{Progress: func(n int) { read += int64(n); calls++ }}); err != nil {
			t.Fatal(err)
		}
		if read != st.Size() || calls == 0 {
			t.Errorf("%s: progress told %d bytes in %d calls, the file has %d", filepath.Base(path), read, calls, st.Size())
		}
	}
}
