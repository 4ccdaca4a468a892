package repair

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/transcriptgen"
	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// AnalyzeFile plans from the lines the analysis reads: its summary must be
// transcript.AnalyzeFile's and its plan PlanFile's (report and finding), on
// files small (one goroutine) and large (every CPU), clean and damaged, with
// repeated ids (a second, exact pass) and compressed.
func TestAnalyzeFileEqualsSeparatePasses(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
		return path
	}
	gen := func(size int64, damage float64) string {
		var b bytes.Buffer
		_, err := transcriptgen.Write(&b, transcriptgen.Options{Size: size, DamageRate: damage, Seed: 5})
		require.NoError(t, err)
		return b.String()
	}
	big := gen(3*jsonl.BatchBytes, 0.01)
	lines := strings.SplitAfter(big, "\n")
	repeated := strings.Join(append(lines, lines[4], strings.Replace(lines[8], `"message"`, `"message" `, 1)), "")
	paths := []string{
		write("0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a90.jsonl", gen(40<<10, 0)),
		write("0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a91.jsonl", gen(200<<10, 0.05)),
		write("0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a92.jsonl", big),
		write("0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a93.jsonl", repeated),
		write("0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a94.jsonl", "\ufeff"+gen(20<<10, 0.1)),
		write("0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a95.jsonl.gz", gzipped(t, gen(2*jsonl.BatchBytes, 0.01))),
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			f := transcript.File{Path: p}
			s, plan, err := AnalyzeFile(f, nil, nil, Options{})
			require.NoError(t, err)
			require.NotNil(t, plan)
			wantS, err := transcript.AnalyzeFile(f, nil)
			require.NoError(t, err)
			wantP, err := PlanFile(p, Options{})
			require.NoError(t, err)
			gotJ, _ := json.Marshal(s)
			wantJ, _ := json.Marshal(wantS)
			require.Equal(t, string(wantJ), string(gotJ))
			gotJ, _ = json.Marshal(plan)
			wantJ, _ = json.Marshal(wantP)
			require.Equal(t, string(wantJ), string(gotJ))
			gf, gok := plan.Finding()
			wf, wok := wantP.Finding()
			require.Equal(t, wok, gok)
			require.Equal(t, wf, gf)
			require.Equal(t, wantP.Unrepairable(), plan.Unrepairable())
			if strings.Contains(p, "8a93") {
				require.NotZero(t, plan.Counts[RuleRepeatedID], "the repeat was planned for (the exact pass)")
			}
		})
	}
}

func gzipped(t *testing.T, text string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write([]byte(text))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.String()
}
