package jsonl

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// EstimateLines counts a small file's lines, extrapolates a large one's from
// its first 64 KiB, and gives up (-1) on what it cannot sample.
func TestEstimateLines(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) (string, int64) {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o600))
		return p, int64(len(data))
	}
	line := `{"type":"message","id":"` + strings.Repeat("x", 73) + `"}` + "\n" // 100 bytes
	require.Len(t, line, 100)

	p, n := write("small.jsonl", []byte(strings.Repeat(line, 300)))
	require.Equal(t, int64(300), EstimateLines(p, n), "a file smaller than the sample: its lines")

	p, n = write("large.jsonl", []byte(strings.Repeat(line, 20000)))
	require.InDelta(t, 20000, EstimateLines(p, n), 20, "2 MB of 100-byte lines")

	// long lines after a short head: the estimate follows the head
	mixed := strings.Repeat(line, 700) + strings.Repeat(`{"a":"`+strings.Repeat("y", 99990)+`"}`+"\n", 10)
	p, n = write("mixed.jsonl", []byte(mixed))
	require.InDelta(t, n/100, EstimateLines(p, n), float64(n/100)/50)

	p, n = write("one-long-line.jsonl", []byte(`{"a":"`+strings.Repeat("z", 200<<10)+`"}`))
	require.Equal(t, n/(64<<10), EstimateLines(p, n), "a first line longer than the sample counts as 64 KiB")

	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err := zw.Write([]byte(strings.Repeat(line, 5000)))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	p, n = write("c.jsonl.gz", gz.Bytes())
	require.Equal(t, int64(-1), EstimateLines(p, n), "compressed")

	p, _ = write("empty.jsonl", nil)
	require.Equal(t, int64(-1), EstimateLines(p, 0), "empty")
	require.Equal(t, int64(-1), EstimateLines(filepath.Join(dir, "missing.jsonl"), 1000), "missing")
	require.Equal(t, int64(-1), EstimateLines(dir, 4096), "a directory")
}
