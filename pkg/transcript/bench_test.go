package transcript

import (
	"os"
	"testing"
)

// BenchmarkAnalyzeFile measures inspect's analysis on a big generated
// transcript: OC_BENCH_FILE=/tmp/oc-bench/clean-100.jsonl (see scripts/bench.sh).
func BenchmarkAnalyzeFile(b *testing.B) {
	path := os.Getenv("OC_BENCH_FILE")
	if path == "" {
		b.Skip("set OC_BENCH_FILE to a transcript (scripts/bench.sh generates one)")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(st.Size())
	for i := 0; i < b.N; i++ {
		if _, err := AnalyzeFile(File{Path: path}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadContext measures the context stage of `oc replay` on
// OC_BENCH_FILE.
func BenchmarkLoadContext(b *testing.B) {
	path := os.Getenv("OC_BENCH_FILE")
	if path == "" {
		b.Skip("set OC_BENCH_FILE to a transcript (scripts/bench.sh generates one)")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(st.Size())
	for i := 0; i < b.N; i++ {
		if _, err := LoadContext(path, nil); err != nil {
			b.Fatal(err)
		}
	}
}
