package cmd

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/openclaw-tools/oc/internal/cli"
)

// bench96File is OC_BENCH_FILE, else a generated transcript of
// OC_BENCH_MIB (default 20) MiB in b's temporary directory: a version-3
// session of heartbeat polls, user turns with inbound metadata, assistant
// turns with thinking, text and a tool call, and their results, on one
// branch (in OC_BENCH_KEEP_DIR instead, when set, to look at it).
func bench96File(b *testing.B) string {
	b.Helper()
	if path := os.Getenv("OC_BENCH_FILE"); path != "" {
		return path
	}
	mib := 20
	if s := os.Getenv("OC_BENCH_MIB"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			b.Fatalf("OC_BENCH_MIB=%q: want a number of MiB", s)
		}
		mib = n
	}
	dir := b.TempDir()
	if d := os.Getenv("OC_BENCH_KEEP_DIR"); d != "" {
		dir = d
	}
	path := filepath.Join(dir, "big96.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	text := strings.Repeat("lorem ipsum dolor sit amet ", 40)
	meta := "Conversation info (untrusted metadata):\n```json\n{\"sender\": \"alice\"}\n```\n\n"
	size, n, parent := 0, 0, "null"
	// write appends a message entry; fields are the message's members
	// (a timestamp is added), chained to the previous entry.
	write := func(fields string, args ...any) {
		n++
		id := fmt.Sprintf("e%08d", n)
		line := fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":{`, id, parent) +
			fmt.Sprintf(fields, args...) + fmt.Sprintf(`,"timestamp":%d}}`, 1767225600000+int64(n)*1000) + "\n"
		size += len(line)
		parent = strconv.Quote(id)
		if _, err := w.WriteString(line); err != nil {
			b.Fatal(err)
		}
	}
	fmt.Fprintln(w, `{"type":"session","version":3,"id":"bench96","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}`)
	for i := 0; size < mib<<20; i++ {
		if i%10 == 0 {
			write(`"role":"user","content":[{"type":"text","text":"[OpenClaw heartbeat poll]"}]`)
			write(`"role":"assistant","content":[{"type":"text","text":"HEARTBEAT_OK"}],"stopReason":"stop","api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":3,"output":1}`)
		}
		write(`"role":"user","content":[{"type":"text","text":%q}]`, meta+text)
		write(`"role":"assistant","content":[{"type":"thinking","thinking":%q,"thinkingSignature":"c2ln"},{"type":"text","text":%q},`+
			`{"type":"toolCall","id":"toolu_%d","name":"exec","arguments":{"command":"ls","cwd":"/tmp"}}],"stopReason":"toolUse",`+
			`"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":20,"cacheRead":5,"totalTokens":35}`, text, text, i)
		write(`"role":"toolResult","toolCallId":"toolu_%d","toolName":"exec","content":[{"type":"text","text":%q}],"isError":false`, i, text)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// benchReplay96 runs `oc replay FILE --openclaw 2026.9.6 ARGS... --stage
// payload --json` in-process and reports CPU seconds (user+sys, GC
// included) an op beside the wall time, which on a shared machine mostly
// measures the other processes.
func benchReplay96(b *testing.B, args ...string) {
	path := bench96File(b)
	argv := append(append([]string{"replay", path, "--openclaw", "2026.9.6"}, args...), "--stage", "payload", "--json", "--tz", "UTC")
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for b.Loop() {
		ios, _, errOut := cli.Test(false)
		if code := Run(context.Background(), argv, ios, func(string) string { return "" }); code != 0 {
			b.Fatal(errOut.String())
		}
	}
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
}

// BenchmarkReplay96Payload: one provider's 9.6 wire body of a large session,
// from the file (import reading, context, decode, pipeline, encoding).
func BenchmarkReplay96Payload(b *testing.B) { benchReplay96(b, "--provider", "anthropic") }

// BenchmarkReplay96All: every 9.6 family of a large session (acceptance:
// a 20 MiB session under 2 s on 2 cores).
func BenchmarkReplay96All(b *testing.B) { benchReplay96(b, "--provider", "all") }

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
