package repair

import (
	"os"
	"path/filepath"
	"testing"
)

// One large file shows progress in bytes (cmd/repair, and inspect's repair
// check): Options.Progress is told every byte of the file, once.
func TestPlanFileProgressCountsEveryByte(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "example-state", "agents", "main", "sessions", "0197d2b9-0c4a-7d11-8e22-33f4a5b6c7d8.jsonl")
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
		t.Fatalf("progress told %d bytes in %d calls, the file has %d", read, calls, st.Size())
	}
}
