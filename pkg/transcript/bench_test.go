package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-tools/oc/internal/transcriptgen"
)

// BenchmarkAnalyzeGenerated measures inspect's analysis (scan, tree,
// findings) of a generated 16 MiB transcript, without OC_BENCH_FILE.
func BenchmarkAnalyzeGenerated(b *testing.B) {
	var gen bytes.Buffer
	if _, err := transcriptgen.Write(&gen, transcriptgen.Options{Size: 16 << 20, Seed: 2}); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl")
	if err := os.WriteFile(path, gen.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(gen.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := AnalyzeFile(File{Path: path}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

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

// BenchmarkNewTree measures the tree of a transcript's index (its id index
// and parent links: the start of inspect's single-threaded finish), the
// scan left out: OC_BENCH_FILE, else a generated 32 MiB transcript.
func BenchmarkNewTree(b *testing.B) {
	data, err := os.ReadFile(os.Getenv("OC_BENCH_FILE"))
	if os.Getenv("OC_BENCH_FILE") == "" {
		var gen bytes.Buffer
		_, err = transcriptgen.Write(&gen, transcriptgen.Options{Size: 32 << 20, Seed: 2})
		data = gen.Bytes()
	}
	if err != nil {
		b.Fatal(err)
	}
	ix, err := scanBytes(data, ScanOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if t := NewTree(ix); t.Leaf() < 0 {
			b.Fatal("no leaf")
		}
	}
}
