package transcript

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// One large file shows progress in bytes (cmd/inspect): ByteProgress is told
// every byte of the file, once.
func TestInspectByteProgressCountsEveryByte(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "example-state", "agents", "main", "sessions", "0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01.jsonl")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var read, calls atomic.Int64
	_, err = Inspect([]string{path}, InspectOptions{ByteProgress: func(n int) { read.Add(int64(n)); calls.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if read.Load() != st.Size() || calls.Load() == 0 {
		t.Fatalf("progress told %d bytes in %d calls, the file has %d", read.Load(), calls.Load(), st.Size())
	}
}
