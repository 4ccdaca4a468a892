package cmd

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/gcpolicy"
)

// heapFree is the heap's memory that is free and still mapped.
func heapFree() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// The warmer maps memory once, for the first file of 1 MiB or more, sized
// by that file's lines (not its bytes); smaller files, and the files after,
// change nothing. The size may be unknown (-1): it is looked up.
func TestHeapWarmer(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	tu := gcpolicy.Start(256<<20, func(string) string { return "" })
	defer tu.Stop()
	dir := t.TempDir()
	write := func(name, line string, n int) (string, int64) {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(strings.Repeat(line, n)), 0o600))
		return p, int64(len(line) * n)
	}
	short := `{"type":"message","id":"` + strings.Repeat("x", 73) + `"}` + "\n" // 100 bytes
	long := `{"a":"` + strings.Repeat("y", 99_991) + `"}` + "\n"                // 100 kB
	small, smallSize := write("small.jsonl", short, 5000)                       // 500 kB
	longLines, _ := write("long.jsonl", long, 30)                               // 3 MB in 30 lines
	many, _ := write("many.jsonl", short, 30_000)                               // 3 MB in 30k lines

	w := &heapWarmer{gc: tu, perLine: 1000}
	warmed := func(path string, size int64) int64 {
		debug.FreeOSMemory()
		before := heapFree()
		w.starting(path, size)
		return heapFree() - before
	}
	require.Less(t, warmed(small, smallSize), int64(4<<20), "a file under 1 MiB")
	require.False(t, w.done.Load())
	require.Less(t, warmed(longLines, -1), int64(4<<20), "30 lines need little")
	require.True(t, w.done.Load(), "the first large file decides, whatever it needs")

	w = &heapWarmer{gc: tu, perLine: 1000}
	got := warmed(many, -1)
	require.Greater(t, got, int64(28<<20), "30k lines of 1000 bytes: about 30 MB")
	require.Less(t, got, int64(40<<20))
	require.Less(t, warmed(many, -1), int64(4<<20), "once a run")
	runtime.KeepAlive(w)

	var nilWarmer *heapWarmer
	nilWarmer.starting(many, -1) // a command without a Tuner (tests): nothing
	(&heapWarmer{perLine: 1000}).starting(many, -1)
}
