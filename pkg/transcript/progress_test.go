package transcript

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// One large file shows progress in bytes (cmd/inspect): ByteProgress is told
// every byte of the file on disk, once; for a compressed file the compressed
// bytes, so that they add up to the size the bar's total is.
func TestInspectByteProgressCountsEveryByte(t *testing.T) {
	plain := filepath.Join("..", "..", "testdata", "example-state", "agents", "main", "sessions", "0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01.jsonl")
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
		var read, calls atomic.Int64
		if _, err := Inspect(t.Context(), []string{path}, InspectOptions{ByteProgress: func(n int) { read.Add(int64(n)); calls.Add(1) }}); err != nil {
			t.Fatal(err)
		}
		if read.Load() != st.Size() || calls.Load() == 0 {
			t.Errorf("%s: progress told %d bytes in %d calls, the file has %d", filepath.Base(path), read.Load(), calls.Load(), st.Size())
		}
	}
}
