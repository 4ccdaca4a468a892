package upgrade

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-tools/oc/internal/transcriptgen"
)

// BenchmarkPredictFile: the import prediction of a 32 MiB generated
// transcript (a full read, the refusal model and the re-serialisation
// check of every stored line).
func BenchmarkPredictFile(b *testing.B) {
	var gen bytes.Buffer
	if _, err := transcriptgen.Write(&gen, transcriptgen.Options{Size: 32 << 20, Seed: 2}); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, gen.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(gen.Len()))
	b.ResetTimer()
	for range b.N {
		if _, err := PredictFile(path, "s"); err != nil {
			b.Fatal(err)
		}
	}
}
