package repair

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-tools/oc/internal/transcriptgen"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// BenchmarkPlanFile measures `oc repair --check` on one generated 16 MiB
// transcript with 0.1% damaged lines (scripts/bench-scan.sh compares the
// whole command with jq and a goccy scan on 100 MiB).
func BenchmarkPlanFile(b *testing.B) {
	path := benchTranscript(b, "")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := PlanFile(path, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanBenchFile is BenchmarkPlanFile on OC_BENCH_FILE (say the
// 100 MiB transcript of scripts/bench-scan.sh), for profiles of the scan at
// the size the goals are set for.
func BenchmarkPlanBenchFile(b *testing.B) {
	benchOnFile(b, func(path string) error {
		_, err := PlanFile(path, Options{})
		return err
	})
}

// BenchmarkAnalyzeBenchFile is `oc inspect FILE`'s analysis with its repair
// plan (one read) on OC_BENCH_FILE.
func BenchmarkAnalyzeBenchFile(b *testing.B) {
	benchOnFile(b, func(path string) error {
		_, _, err := AnalyzeFile(transcript.File{Path: path}, nil, nil, Options{})
		return err
	})
}

// benchOnFile runs run on OC_BENCH_FILE until the benchmark has its time.
func benchOnFile(b *testing.B, run func(path string) error) {
	path := os.Getenv("OC_BENCH_FILE")
	if path == "" {
		b.Skip("set OC_BENCH_FILE to a transcript")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		if err := run(path); err != nil {
			b.Fatal(err)
		}
	}
}

// benchTranscript writes the benchmarks' 16 MiB generated transcript with
// extra appended, sets the bytes a run handles, and returns its path.
func benchTranscript(b *testing.B, extra string) string {
	var gen bytes.Buffer
	if _, err := transcriptgen.Write(&gen, transcriptgen.Options{Size: 16 << 20, DamageRate: 0.001, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	gen.WriteString(extra)
	path := filepath.Join(b.TempDir(), "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl")
	if err := os.WriteFile(path, gen.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(gen.Len()))
	return path
}
