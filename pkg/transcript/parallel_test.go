package transcript

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/transcriptgen"
	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// A large transcript is parsed on every CPU and read through a few buffers,
// each line overwritten here once the index and the analyzer are done with it
// (poison): the summary must be exactly that of the same text analysed in
// memory, line by line (AnalyzeBytesEach), whatever the damage, so nothing
// the analysis keeps points into a line. The text holds what the analyzer
// keeps something of: a header, tool calls and results, images, thinking,
// a leading BOM, malformed lines, duplicate ids.
func TestParallelAnalyzeEqualsInMemory(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	for _, c := range []struct {
		name   string
		damage float64
		edit   func(string) string
	}{
		{"clean", 0, nil},
		{"damaged", 0.02, nil},
		{"bom and repeats", 0.005, func(s string) string {
			lines := strings.SplitAfter(s, "\n")
			lines = append(lines, lines[3], lines[len(lines)/2], lines[7])
			return "\ufeff" + strings.Join(lines, "")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			_, err := transcriptgen.Write(&buf, transcriptgen.Options{Size: 4 * jsonl.BatchBytes, DamageRate: c.damage, Seed: 11})
			require.NoError(t, err)
			text := buf.String()
			if c.edit != nil {
				text = c.edit(text)
			}
			a := newAnalyzer()
			opts := a.scanOptions(int64(len(text)))
			opts.poison = true
			ix, err := Scan(strings.NewReader(text), opts)
			par, err := a.result(ix, err)
			require.NoError(t, err)
			mem, err := AnalyzeBytesEach([]byte(text), nil)
			require.NoError(t, err)
			pj, _ := json.Marshal(par)
			mj, _ := json.Marshal(mem)
			require.Equal(t, string(mj), string(pj))
			require.Greater(t, len(text), 3*jsonl.BatchBytes) // batches in flight, read into again
		})
	}
}

// ContextBytes counts the lines of the context's entries: on a linear file
// of fixed-size lines, every entry line but the header's, and a compaction
// keeps only what it keeps.
func TestContextBytes(t *testing.T) {
	header := `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n"
	msg := func(id, parent string) string {
		return `{"type":"message","id":"` + id + `","parentId":` + parent + `,"message":{"role":"user","content":"hi"}}` + "\n"
	}
	lines := []string{header, msg("a", "null"), msg("b", `"a"`), msg("c", `"b"`)}
	s, err := AnalyzeBytesEach([]byte(strings.Join(lines, "")), nil)
	require.NoError(t, err)
	require.Equal(t, int64(len(lines[1])+len(lines[2])+len(lines[3])), s.Active.ContextBytes)
	compaction := `{"type":"compaction","id":"k","parentId":"c","summary":"s","firstKeptEntryId":"c","tokensBefore":1}` + "\n"
	after := msg("d", `"k"`)
	s, err = AnalyzeBytesEach([]byte(strings.Join(append(lines, compaction, after), "")), nil)
	require.NoError(t, err)
	require.Equal(t, 3, s.Active.Messages) // summary, c, d
	require.Equal(t, int64(len(lines[3])+len(compaction)+len(after)), s.Active.ContextBytes)
}
