package repair

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/transcriptgen"
	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// The parallel scan reads a large file through a few buffers, read into
// again once the planner is done with a batch; the planner must copy what
// it keeps. Planning a damaged file of many batches that way must give
// exactly the plan (and the repaired bytes and quarantine) of a scan of the
// file read whole into memory, whatever the damage: cut and
// glued lines, garbage, a damaged header, repeated ids (an exact second
// pass).
func TestParallelPlanEqualsSequential(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	opts := Options{
		Now:    func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) },
		NewID:  func() string { return "fixed" },
		poison: true,
	}
	for _, c := range []struct {
		name   string
		damage float64
		edit   func(string) string
	}{
		{"clean", 0, nil},
		{"damaged", 0.02, nil},
		{"damaged header", 0.01, func(s string) string {
			// the header's last byte cut: rebuilt from what is left of it
			// (its version and cwd) once every batch is read
			k := strings.IndexByte(s, '\n')
			return s[:k-1] + s[k:]
		}},
		{"cut after the id", 0, func(s string) string {
			// the entries of most of the file lose all but their ids: the
			// first one after them is re-linked to the entry before them (the
			// planner's copy of that id, read batches before)
			lines := strings.SplitAfter(s, "\n")
			for i := len(lines) / 10; i < 9*len(lines)/10; i++ {
				if k := strings.Index(lines[i], `,"parentId"`); k > 0 {
					// spaces keep the file (and its batches) as large
					lines[i] = lines[i][:k+4] + strings.Repeat(" ", len(lines[i])-k-5) + "\n"
				}
			}
			return strings.Join(lines, "")
		}},
		{"repeated ids", 0.005, func(s string) string {
			lines := strings.SplitAfter(s, "\n")
			// entries written again, one of them changed, far apart (other batches)
			lines = append(lines, lines[5], strings.Replace(lines[9], `"message"`, `"message" `, 1), lines[len(lines)/2])
			return strings.Join(lines, "")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			_, err := transcriptgen.Write(&buf, transcriptgen.Options{Size: 4 * jsonl.BatchBytes, DamageRate: c.damage, Seed: 7})
			require.NoError(t, err)
			text := buf.String()
			if c.edit != nil {
				text = c.edit(text)
			}
			par, err := planReader(strings.NewReader(text), "x.jsonl", opts, int64(len(text)))
			if err == errRepeatedRows {
				o := opts
				o.rows = true
				par, err = planReader(strings.NewReader(text), "x.jsonl", o, int64(len(text)))
			}
			require.NoError(t, err)
			whole := opts
			whole.poison, whole.whole = false, true
			seq, err := planReader(strings.NewReader(text), "x.jsonl", whole, int64(len(text)))
			require.NoError(t, err)
			require.Greater(t, len(text), 3*jsonl.BatchBytes)
			require.Equal(t, planText(t, seq, text), planText(t, par, text))
			if c.damage > 0 {
				require.NotEmpty(t, par.Changes, "the damage was planned for")
			}
		})
	}
}

// planText is the plan's report and what applying it writes.
func planText(t *testing.T, p *Plan, text string) string {
	report, err := json.Marshal(p)
	require.NoError(t, err)
	var out, q bytes.Buffer
	require.NoError(t, p.Render(strings.NewReader(text), &out, &q))
	return fmt.Sprintf("%s\n--- out %d bytes\n%s\n--- quarantine\n%s", report, out.Len(), out.String(), q.String())
}

// A read error (here a gzip stream cut short) is one line naming the file
// and the line after the last whole one.
func TestPlanReadErrorNamesFileAndLine(t *testing.T) {
	var text bytes.Buffer
	_, err := transcriptgen.Write(&text, transcriptgen.Options{Size: 2 << 20, Seed: 3})
	require.NoError(t, err)
	z := gzipped(t, text.String())
	path := filepath.Join(t.TempDir(), "s.jsonl.gz")
	require.NoError(t, os.WriteFile(path, []byte(z[:len(z)/2]), 0o600))
	_, err = PlanFile(path, Options{})
	require.Error(t, err)
	require.Regexp(t, `^`+regexp.QuoteMeta(path)+`:\d+: unexpected EOF$`, err.Error())
}
