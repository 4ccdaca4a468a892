// Command gentranscript writes a large, realistic, deterministic OpenClaw
// transcript for benchmarks: user turns, assistant turns with thinking and
// tool calls, tool results of mixed sizes (a few large, a few inline images),
// compactions, and optionally damaged lines (cut off, glued, NUL-prefixed).
//
//	go run ./scripts/gentranscript -size 100 -damage 0.001 -o /tmp/big.jsonl
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"time"
)

func main() {
	sizeMiB := flag.Int("size", 100, "approximate size in MiB")
	damage := flag.Float64("damage", 0, "fraction of lines to damage (0.001 = 0.1%)")
	out := flag.String("o", "", "output file (required)")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gentranscript: -o is required")
		os.Exit(2)
	}
	if err := generate(*out, int64(*sizeMiB)<<20, *damage, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gentranscript:", err)
		os.Exit(1)
	}
}

var words = strings.Fields(`the build deploy staging server log error retry docker cache disk memory cpu
request response gateway session agent cron job channel telegram slack discord message thread topic
user assistant tool result image file read write exec search browser config token model provider
summary compaction branch leaf history context window latency throughput backup restore repair`)

func text(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		if r.IntN(12) == 0 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func generate(path string, size int64, damage float64, seed uint64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	start := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	var written int64
	line := 0
	emit := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		line++
		if line > 1 && damage > 0 && r.Float64() < damage {
			switch r.IntN(3) {
			case 0: // cut off
				b = b[:len(b)/2]
			case 1: // NUL bytes before the entry
				b = append([]byte("\x00\x00\x00\x00"), b...)
			case 2: // glued to a copy of itself with a new id
				b = append(b, b...)
			}
		}
		b = append(b, '\n')
		written += int64(len(b))
		_, err = w.Write(b)
		return err
	}
	ts := func(i int) string { return start.Add(time.Duration(i) * time.Second).Format("2006-01-02T15:04:05.000Z") }
	ms := func(i int) int64 { return start.Add(time.Duration(i) * time.Second).UnixMilli() }
	if err := emit(map[string]any{"type": "session", "version": 3, "id": "0197d000-0000-7000-8000-000000000001", "timestamp": ts(0), "cwd": "/home/bench"}); err != nil {
		return err
	}
	usage := map[string]any{"input": 1200, "output": 300, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1500, "cost": map[string]any{"input": 0.001, "output": 0.002, "cacheRead": 0, "cacheWrite": 0, "total": 0.003}}
	parent := any(nil)
	n := 0
	id := func() string { n++; return fmt.Sprintf("%08x", n) }
	entry := func(typ string, extra map[string]any) map[string]any {
		e := map[string]any{"type": typ, "id": id(), "parentId": parent, "timestamp": ts(n)}
		for k, v := range extra {
			e[k] = v
		}
		parent = e["id"]
		return e
	}
	img := base64.StdEncoding.EncodeToString([]byte(text(r, 150_000)))
	for written < size {
		if err := emit(entry("message", map[string]any{"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text(r, 50+r.IntN(600))}}, "timestamp": ms(n)}})); err != nil {
			return err
		}
		for k := r.IntN(4); k >= 0; k-- {
			callID := fmt.Sprintf("toolu_%016x", r.Uint64())
			content := []any{
				map[string]any{"type": "thinking", "thinking": text(r, 100+r.IntN(800)), "thinkingSignature": base64.StdEncoding.EncodeToString([]byte(text(r, 120)))},
				map[string]any{"type": "toolCall", "id": callID, "name": "exec", "arguments": map[string]any{"command": text(r, 40)}},
			}
			if err := emit(entry("message", map[string]any{"message": map[string]any{"role": "assistant", "content": content, "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": usage, "stopReason": "toolUse", "timestamp": ms(n)}})); err != nil {
				return err
			}
			var result []any
			switch x := r.IntN(200); {
			case x == 0:
				result = []any{map[string]any{"type": "image", "data": img, "mimeType": "image/png"}}
			case x < 12:
				result = []any{map[string]any{"type": "text", "text": text(r, 20_000+r.IntN(180_000))}}
			default:
				result = []any{map[string]any{"type": "text", "text": text(r, 300+r.IntN(3700))}}
			}
			if err := emit(entry("message", map[string]any{"message": map[string]any{"role": "toolResult", "toolCallId": callID, "toolName": "exec", "content": result, "isError": false, "timestamp": ms(n)}})); err != nil {
				return err
			}
		}
		if err := emit(entry("message", map[string]any{"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text(r, 100+r.IntN(1500))}}, "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": usage, "stopReason": "stop", "timestamp": ms(n)}})); err != nil {
			return err
		}
		if r.IntN(400) == 0 {
			kept := parent
			if err := emit(entry("compaction", map[string]any{"summary": text(r, 2000), "firstKeptEntryId": kept, "tokensBefore": 150000})); err != nil {
				return err
			}
		}
	}
	return w.Flush()
}
