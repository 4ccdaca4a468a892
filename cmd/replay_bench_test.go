package cmd

import (
	"context"
	"os"
	"testing"

	"github.com/openclaw-tools/oc/internal/cli"
)

// BenchmarkReplayPayload runs `oc replay FILE --provider anthropic --stage
// payload --json` in-process on OC_BENCH_FILE (scripts/bench-replay.sh makes one).
func BenchmarkReplayPayload(b *testing.B) {
	path := os.Getenv("OC_BENCH_FILE")
	if path == "" {
		b.Skip("set OC_BENCH_FILE to a transcript")
	}
	for i := 0; i < b.N; i++ {
		ios, _, errOut := cli.Test(false)
		if code := Run(context.Background(), []string{"replay", path, "--provider", "anthropic", "--stage", "payload", "--json"}, ios, func(string) string { return "" }); code != 0 {
			b.Fatal(errOut.String())
		}
	}
}

// BenchmarkReplayAll runs `oc replay FILE --provider all --json` in-process
// on OC_BENCH_FILE.
func BenchmarkReplayAll(b *testing.B) {
	path := os.Getenv("OC_BENCH_FILE")
	if path == "" {
		b.Skip("set OC_BENCH_FILE to a transcript")
	}
	for i := 0; i < b.N; i++ {
		ios, _, errOut := cli.Test(false)
		if code := Run(context.Background(), []string{"replay", path, "--provider", "all", "--json"}, ios, func(string) string { return "" }); code != 0 {
			b.Fatal(errOut.String())
		}
	}
}
