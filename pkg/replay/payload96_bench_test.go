package replay

import (
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// families96 are the provider triples 2026.9.6 builds bodies for: the
// corpus answers' providers.txt plus Azure and Vertex.
var families96 = [][3]string{
	{"anthropic", "anthropic-messages", "claude-sonnet-4-5"},
	{"openai", "openai-responses", "gpt-5"},
	{"openai", "openai-completions", "gpt-4o-mini"},
	{"openai", "openai-chatgpt-responses", "gpt-5.5"},
	{"google", "google-generative-ai", "gemini-2.5-pro"},
	{"google-vertex", "google-vertex", "gemini-2.5-pro"},
	{"azure-openai-responses", "azure-openai-responses", "gpt-5"},
	{"mistral", "mistral-conversations", "mistral-large-latest"},
	{"openrouter", "openai-completions", "google/gemini-2.5-pro"},
	{"minimax", "anthropic-messages", "MiniMax-M2"},
	{"ollama", "openai-completions", "gemma4:27b"},
}

// benchMessages96 is about size bytes of messages whose user turns carry
// inbound metadata and real timestamps (the 9.6 boundary stamps and strips
// them).
func benchMessages96(b *testing.B, size int) ([]json.RawMessage, int) {
	b.Helper()
	text := strings.Repeat("lorem ipsum dolor sit amet ", 40)
	meta := "Conversation info ⟦openclaw:ctx⟧\n```json\n{\"sender\": \"alice\"}\n```\n\n"
	var raw []json.RawMessage
	total := 0
	for i := 0; total < size; i++ {
		ts := 1767225600000 + int64(i)*60000
		turn := []string{
			fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":%q}],"timestamp":%d}`, meta+text, ts),
			fmt.Sprintf(`{"role":"assistant","provider":"anthropic","api":"anthropic-messages","model":"claude-sonnet-4-5","stopReason":"toolUse",`+
				`"content":[{"type":"thinking","thinking":%q,"thinkingSignature":"c2ln"},{"type":"text","text":%q},`+
				`{"type":"toolCall","id":"toolu_%d","name":"exec","arguments":{"command":"ls","cwd":"/tmp","timeout":30}}],`+
				`"usage":{"input":1,"output":1},"timestamp":%d}`, text, text, i, ts+1000),
			fmt.Sprintf(`{"role":"toolResult","toolCallId":"toolu_%d","toolName":"exec","content":[{"type":"text","text":%q}],"isError":false,"timestamp":%d}`, i, text, ts+2000),
		}
		for _, m := range turn {
			raw = append(raw, json.RawMessage(m))
			total += len(m)
		}
	}
	return raw, total
}

// BenchmarkPayload96AllFamilies20MiB: one op renders and encodes a 20 MiB
// session for every 2026.9.6 family (acceptance: under 2 s an op).
func BenchmarkPayload96AllFamilies20MiB(b *testing.B) {
	raw, size := benchMessages96(b, 20<<20)
	msgs, err := jsvalue.DecodeMessages(raw, false)
	if err != nil {
		b.Fatal(err)
	}
	loc, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	var buf []byte // one output buffer reused across families, as a caller writing them one after another would
	cpu0 := processCPUSeconds()
	for b.Loop() {
		for _, f := range families96 {
			p, err := BuildPayload(PayloadInput{Release: policy.Release96, Location: loc, Provider: f[0], API: f[1], Model: f[2],
				Messages: msgs})
			if err != nil {
				b.Fatalf("%v: %v", f, err)
			}
			if buf, err = p.AppendJSON(buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
	}
	// CPU seconds (user+sys, all threads, GC included) an op: on a shared
	// machine the wall time (ns/op) mostly measures the other processes.
	b.ReportMetric((processCPUSeconds()-cpu0)/float64(b.N), "cpu-s/op")
}

// processCPUSeconds is this process's user+sys CPU time so far.
func processCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
