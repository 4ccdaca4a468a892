package replay

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// benchMessages builds about size bytes of messages: user text, assistant
// turns with thinking, text and a tool call, and tool results.
func benchMessages(b *testing.B, size int) ([]json.RawMessage, int) {
	b.Helper()
	text := strings.Repeat("lorem ipsum dolor sit amet ", 40)
	var raw []json.RawMessage
	total := 0
	for i := 0; total < size; i++ {
		turn := []string{
			fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":%q}],"timestamp":%d}`, text, i),
			fmt.Sprintf(`{"role":"assistant","provider":"anthropic","api":"anthropic-messages","model":"claude-sonnet-4-5","stopReason":"toolUse",`+
				`"content":[{"type":"thinking","thinking":%q,"thinkingSignature":"c2ln"},{"type":"text","text":%q},`+
				`{"type":"toolCall","id":"toolu_%d","name":"exec","arguments":{"command":"ls","cwd":"/tmp","timeout":30}}],`+
				`"usage":{"input":1,"output":1},"timestamp":%d}`, text, text, i, i),
			fmt.Sprintf(`{"role":"toolResult","toolCallId":"toolu_%d","toolName":"exec","content":[{"type":"text","text":%q}],"isError":false,"timestamp":%d}`, i, text, i),
		}
		for _, m := range turn {
			raw = append(raw, json.RawMessage(m))
			total += len(m)
		}
	}
	return raw, total
}

func benchmarkPayload(b *testing.B, provider, api, model string) {
	raw, size := benchMessages(b, 20<<20)
	msgs, err := jsvalue.DecodeMessages(raw, false)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for b.Loop() {
		p, err := BuildPayload(PayloadInput{Provider: provider, API: api, Model: model, Messages: msgs})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.AppendJSON(nil); err != nil {
			b.Fatal(err)
		}
	}
}

// Benchmarks on 20 MiB of messages: BuildPayload plus encoding.
func BenchmarkPayloadAnthropic20MiB(b *testing.B) {
	benchmarkPayload(b, "anthropic", "anthropic-messages", "claude-sonnet-4-5")
}

func BenchmarkPayloadResponses20MiB(b *testing.B) {
	benchmarkPayload(b, "openai", "openai-responses", "gpt-5")
}

func BenchmarkPayloadCompletions20MiB(b *testing.B) {
	benchmarkPayload(b, "openai", "openai-completions", "gpt-4o-mini")
}

// BenchmarkDecodeMessages20MiB: decoding 20 MiB of messages into the value
// model (objects with their member order).
func BenchmarkDecodeMessages20MiB(b *testing.B) {
	raw, size := benchMessages(b, 20<<20)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := jsvalue.DecodeMessages(raw, false); err != nil {
			b.Fatal(err)
		}
	}
}
