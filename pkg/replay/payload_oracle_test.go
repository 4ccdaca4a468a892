package replay

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/replay/wire"
)

// Crafted transcripts that hit each converter rule, compared with the live
// oracle: for every (transcript, triple) the oracle's sanitized `limited`
// list goes through BuildPayload and must equal the oracle's `payload`
// (image bytes compared by decoded size and type only). One `oracle batch`
// runs all jobs; each job costs the oracle about two seconds.

type craftedEntry = map[string]any

// pngBase64 is a small valid PNG (w x h, opaque).
func pngBase64(t testing.TB, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(40 * x), uint8(60 * y), 200, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func usage() map[string]any {
	return map[string]any{"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
		"cost": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
}

func userMsg(content any) craftedEntry { return craftedEntry{"role": "user", "content": content} }

func asst(provider, api, model, stop string, blocks ...any) craftedEntry {
	return craftedEntry{"role": "assistant", "content": blocks, "provider": provider, "api": api, "model": model,
		"stopReason": stop, "usage": usage()}
}

func toolResult(id, name string, isError bool, content ...any) craftedEntry {
	if content == nil {
		content = []any{}
	}
	return craftedEntry{"role": "toolResult", "toolCallId": id, "toolName": name, "content": content, "isError": isError}
}

func txt(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func img(data string) map[string]any {
	return map[string]any{"type": "image", "data": data, "mimeType": "image/png"}
}

func call(id, name string, argsJSON string) map[string]any {
	return map[string]any{"type": "toolCall", "id": id, "name": name, "arguments": json.RawMessage(argsJSON)}
}

// writeTranscript writes a session file: each item is a message, or a full
// entry when it has a "type" (its id/parentId/timestamp are filled in).
func writeTranscript(t testing.TB, dir, name string, items ...craftedEntry) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]any{"type": "session", "version": 3, "id": name, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/"})
	parent := any(nil)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, it := range items {
		id := fmt.Sprintf("e%d", i+1)
		ts := base.Add(time.Duration(i+1) * time.Second)
		var entry craftedEntry
		if typ, ok := it["type"]; ok {
			entry = craftedEntry{"type": typ}
			for k, v := range it {
				entry[k] = v
			}
		} else {
			msg := craftedEntry{}
			for k, v := range it {
				msg[k] = v
			}
			msg["timestamp"] = ts.UnixMilli()
			entry = craftedEntry{"type": "message", "message": msg}
		}
		entry["id"] = id
		entry["parentId"] = parent
		entry["timestamp"] = ts.Format("2006-01-02T15:04:05.000Z")
		if err := enc.Encode(entry); err != nil {
			t.Fatal(err)
		}
		parent = id
	}
	path := filepath.Join(dir, name+".jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	anthropicSrc = "anthropic|anthropic-messages|claude-sonnet-4-5"
	gpt5Src      = "openai|openai-responses|gpt-5"
	codexSrc     = "openai-codex|openai-codex-responses|gpt-5.5"
	geminiSrc    = "google|google-generative-ai|gemini-2.5-pro"
	orGeminiSrc  = "openrouter|openai-completions|google/gemini-2.5-pro"
	ollamaSrc    = "ollama|openai-completions|gemma4:27b"
)

func from(src, stop string, blocks ...any) craftedEntry {
	p := strings.SplitN(src, "|", 3)
	return asst(p[0], p[1], p[2], stop, blocks...)
}

type craftedCase struct {
	name    string
	items   []craftedEntry
	triples [][3]string
}

func craftedCases(t testing.TB) []craftedCase {
	png1 := pngBase64(t, 3, 2)
	png2 := pngBase64(t, 2, 4)
	core := [][3]string{
		{"anthropic", "anthropic-messages", "claude-sonnet-4-5"},
		{"openai", "openai-responses", "gpt-5"},
		{"openai", "openai-completions", "gpt-4o-mini"},
		{"openai-codex", "openai-codex-responses", "gpt-5.5"},
		{"google", "google-generative-ai", "gemini-2.5-pro"},
		{"amazon-bedrock", "bedrock-converse-stream", "anthropic.claude-sonnet-4-5"},
		{"mistral", "mistral-conversations", "mistral-large-latest"},
	}
	with := func(extra ...[3]string) [][3]string { return append(append([][3]string{}, core...), extra...) }
	signedReasoning := `{"type":"reasoning","id":"rs_123","summary":[{"type":"summary_text","text":"plan"}],"encrypted_content":"enc=="}`
	return []craftedCase{
		{name: "images", triples: with(
			[3]string{"mistral", "mistral-conversations", "codestral-latest"},                // no image input
			[3]string{"amazon-bedrock", "bedrock-converse-stream", "amazon.nova-micro-v1:0"}, // no image input, not Claude
			[3]string{"google", "google-generative-ai", "gemini-3-pro-preview"},              // images inside functionResponse
			[3]string{"openrouter", "openai-completions", "qwen/qwen3-coder"},                // no image input
		), items: []craftedEntry{
			userMsg([]any{txt("look at this"), img(png1)}),
			from(anthropicSrc, "toolUse", txt("reading"), call("toolu_01", "read", `{"path":"a.png","limit":5,"all":true}`)),
			toolResult("toolu_01", "read", false, img(png1)),
			from(anthropicSrc, "toolUse", call("toolu_02", "screenshot", `{}`)),
			toolResult("toolu_02", "screenshot", false, txt("screen"), img(png2)),
			userMsg([]any{img(png2)}),
			from(anthropicSrc, "stop", txt("done")),
			userMsg([]any{txt("and now?"), img(png1), img(png2)}),
		}},
		{name: "thinking-same-model", triples: with(
			[3]string{"amazon-bedrock", "bedrock-converse-stream", "amazon.nova-pro-v1:0"},
			[3]string{"deepseek", "openai-completions", "deepseek-v4-flash"},
			[3]string{"zai", "openai-completions", "glm-4.7"},
		), items: []craftedEntry{
			userMsg("first question"),
			from(anthropicSrc, "stop",
				map[string]any{"type": "thinking", "thinking": "let me think", "thinkingSignature": "c2lnbmF0dXJlLW9uZQ=="},
				txt("answer one")),
			userMsg("second"),
			from(anthropicSrc, "stop",
				map[string]any{"type": "thinking", "thinking": "unsigned thought"},
				map[string]any{"type": "thinking", "thinking": "", "thinkingSignature": "ZW1wdHk="},
				map[string]any{"type": "thinking", "thinking": "[Reasoning redacted]", "thinkingSignature": "cmVkYWN0ZWQ=", "redacted": true},
				txt("answer two")),
			userMsg("third"),
			from(anthropicSrc, "toolUse",
				map[string]any{"type": "thinking", "thinking": "need a tool", "thinkingSignature": "dG9vbA=="},
				call("toolu_03", "exec", `{"cmd":"ls","cwd":"/tmp","timeout":30}`)),
			toolResult("toolu_03", "exec", false, txt("a\nb")),
			from(anthropicSrc, "stop", txt("listed")),
			userMsg("fourth"),
		}},
		{name: "cross-provider", triples: with(
			[3]string{"openrouter", "openai-completions", "anthropic/claude-sonnet-4.5"},
			[3]string{"google", "google-generative-ai", "claude-sonnet-4-5"}, // tool call ids on Google
		), items: []craftedEntry{
			userMsg("start"),
			from(gpt5Src, "toolUse",
				map[string]any{"type": "thinking", "thinking": "plan", "thinkingSignature": signedReasoning},
				map[string]any{"type": "text", "text": "calling", "textSignature": `{"v":1,"id":"msg_abc","phase":"commentary"}`},
				map[string]any{"type": "toolCall", "id": "call_abc|fc_def+/=", "name": "search", "arguments": json.RawMessage(`{"query":"x","limit":3,"10":"ten","2":"two"}`)}),
			toolResult("call_abc|fc_def+/=", "search", false, txt("found")),
			from(geminiSrc, "toolUse",
				map[string]any{"type": "thinking", "thinking": "gemini thought", "thinkingSignature": "Z2VtaW5p"},
				map[string]any{"type": "text", "text": "gemini text", "textSignature": "dGV4dA=="},
				map[string]any{"type": "toolCall", "id": "tc.1:weird", "name": "fetch", "arguments": json.RawMessage(`{"url":"https://x","depth":1.50,"big":1e21,"small":0.0000001}`), "thoughtSignature": "dGhvdWdodA=="}),
			toolResult("tc.1:weird", "fetch", true, txt("boom")),
			from(codexSrc, "stop", map[string]any{"type": "text", "text": "codex says", "textSignature": "msg_" + strings.Repeat("x", 70)}),
			from(orGeminiSrc, "stop",
				map[string]any{"type": "thinking", "thinking": "or thought", "thinkingSignature": "reasoning"},
				txt("or text")),
			userMsg("end"),
		}},
		{name: "errors-and-blanks", triples: core, items: []craftedEntry{
			userMsg("go"),
			func() craftedEntry {
				e := from(anthropicSrc, "error")
				e["content"] = []any{}
				e["errorMessage"] = "overloaded"
				return e
			}(),
			userMsg("again"),
			from(anthropicSrc, "aborted", txt("partial")),
			userMsg([]any{txt("   "), txt("real text")}),
			from(anthropicSrc, "toolUse", txt(""), call("toolu_10", "a", `{"x":1}`), call("toolu_11", "b", `{"y":2}`)),
			toolResult("toolu_10", "a", true, txt("failed")),
			userMsg("interrupting"),
			from(anthropicSrc, "toolUse", call("toolu_12", "c", `{}`)),
			toolResult("toolu_12", "c", false),
			from(anthropicSrc, "stop", txt("   ")),
			userMsg("bye"),
		}},
		{name: "custom-and-summaries", triples: core, items: []craftedEntry{
			userMsg("old"),
			from(anthropicSrc, "stop", txt("old answer")),
			{"type": "custom_message", "customType": "openclaw.runtime-context", "content": "stale runtime context", "display": false},
			{"type": "custom_message", "customType": "note", "content": []any{txt("a note block")}, "display": true},
			{"role": "bashExecution", "command": "ls -la", "output": "total 0", "exitCode": 2, "cancelled": false, "truncated": true, "fullOutputPath": "/tmp/out.txt"},
			{"role": "bashExecution", "command": "sleep 9", "output": "", "cancelled": true, "truncated": false},
			{"role": "bashExecution", "command": "secret", "output": "x", "exitCode": 0, "cancelled": false, "truncated": false, "excludeFromContext": true},
			{"type": "branch_summary", "fromId": "e1", "summary": "we explored a branch"},
			userMsg("latest question"),
			{"type": "custom_message", "customType": "openclaw.runtime-context", "content": "current runtime context", "display": false},
		}},
		{name: "compaction", triples: core, items: []craftedEntry{
			userMsg("very old"),
			from(anthropicSrc, "stop", txt("very old answer")),
			userMsg("kept question"),
			from(anthropicSrc, "stop", txt("kept answer")),
			{"type": "compaction", "summary": "Earlier we talked.", "firstKeptEntryId": "e3", "tokensBefore": 1234},
			userMsg("after compaction"),
		}},
		{name: "native-openai", triples: [][3]string{
			{"openai", "openai-responses", "gpt-5"},
			{"openai", "openai-responses", "gpt-5-mini"},
			{"openai-codex", "openai-codex-responses", "gpt-5.5"},
			{"openai", "openai-completions", "gpt-4o-mini"},
			{"openai", "openai-responses", "gpt-4o-mini"},
		}, items: []craftedEntry{
			userMsg("hello"),
			from(gpt5Src, "toolUse",
				map[string]any{"type": "thinking", "thinking": "", "thinkingSignature": signedReasoning},
				map[string]any{"type": "text", "text": "first", "textSignature": `{"v":1,"id":"msg_1","phase":"final_answer"}`},
				map[string]any{"type": "text", "text": "second"},
				map[string]any{"type": "toolCall", "id": "call_9|fc_9", "name": "run", "arguments": json.RawMessage(`{"b":1,"a":[1,{"y":2,"x":1}]}`)}),
			toolResult("call_9|fc_9", "run", false, txt("ran")),
			from(codexSrc, "stop", map[string]any{"type": "text", "text": "from codex", "textSignature": "plain_id"}),
			userMsg("more"),
		}},
		{name: "native-completions", triples: [][3]string{
			{"openrouter", "openai-completions", "google/gemini-2.5-pro"},
			{"ollama", "openai-completions", "gemma4:27b"},
			{"openai", "openai-completions", "gpt-4o-mini"},
			{"google", "google-generative-ai", "gemini-2.5-pro"},
		}, items: []craftedEntry{
			userMsg("hello"),
			from(orGeminiSrc, "toolUse",
				map[string]any{"type": "thinking", "thinking": "first thought", "thinkingSignature": "reasoning"},
				map[string]any{"type": "thinking", "thinking": "second thought"},
				txt("visible"),
				map[string]any{"type": "toolCall", "id": "tool_1", "name": "calc", "arguments": json.RawMessage(`{"expr":"1+1"}`), "thoughtSignature": `{"type":"reasoning.encrypted","data":"abc","id":"tool_1"}`}),
			toolResult("tool_1", "calc", false, txt("2")),
			from(ollamaSrc, "toolUse", map[string]any{"type": "thinking", "thinking": "gemma thinks", "thinkingSignature": "reasoning_content"}, txt("gemma answers"),
				map[string]any{"type": "toolCall", "id": "tool_2", "name": "calc", "arguments": json.RawMessage(`{"expr":"2+2"}`), "thoughtSignature": `{"type":"reasoning.text","text":"why","id":"tool_2"}`}),
			toolResult("tool_2", "calc", false, txt("4")),
			from(geminiSrc, "stop",
				map[string]any{"type": "thinking", "thinking": "native", "thinkingSignature": "bm90IGJhc2U2NA"}, // length % 4 != 0
				map[string]any{"type": "text", "text": "native text", "textSignature": "dmFsaWQ="}),
			userMsg("next"),
		}},
	}
}

func TestPayloadMatchesLiveOracleOnCraftedTranscripts(t *testing.T) {
	// About 120 oracle jobs, two seconds each: opt in, so that `go test
	// ./pkg/replay` stays fast for everyone (the stored-answer comparison
	// always runs).
	oracletest.RequireLive(t, "crafted transcripts against the live oracle (~10 minutes)")
	oracletest.Oracle(t)
	dir := t.TempDir()
	cases := craftedCases(t)
	var jobs []oracletest.Job
	for _, cs := range cases {
		path := writeTranscript(t, dir, cs.name, cs.items...)
		for _, tr := range cs.triples {
			args := []string{path, tr[0], tr[1], tr[2]}
			id := cs.name + "|" + strings.Join(tr[:], "|")
			jobs = append(jobs, oracletest.Job{ID: "sanitize|" + id, Mode: "sanitize", Args: args},
				oracletest.Job{ID: "payload|" + id, Mode: "payload", Args: args})
		}
	}
	results := oracletest.Batch(t, jobs, 40*time.Minute)
	// The crafted inputs must reach the converters' rules through OpenClaw's
	// sanitize pipeline: each marker must show up in some oracle body. (The
	// converters' own "No result provided" results never do: OpenClaw's
	// pairing repair inserts its synthetic results first for every provider
	// tried; TestTransformSynthesizesMissingToolResults covers that rule.)
	var all strings.Builder
	for _, r := range results {
		if r.OK && strings.HasPrefix(r.ID, "payload|") {
			all.Write(r.Out)
		}
	}
	for _, marker := range []string{
		`"redacted_thinking"`, `"signature":"c2lnbmF0dXJlLW9uZQ=="`, `(see attached image)`,
		`Attached image(s) from tool result:`, `Tool result image:`, `"bytes":{"0":`,
		wire.NonVisionUserImagePlaceholder, `"reasoning_details"`,
		`"reasoning_content":`, `"type":"reasoning"`, `"phase":"`, `"thought":true`, `"thoughtSignature"`,
		`[tool error]`, `"cachePoint"`, `"parts":[{"inlineData"`, `"function_call_output"`,
		`The conversation history before this point was compacted`, `The following is a summary of a branch`,
		"Ran `ls -la`", `current runtime context`, `a note block`, `\"10\":\"ten\"`,
	} {
		if !strings.Contains(all.String(), marker) {
			t.Errorf("no oracle body contains %s: a crafted case no longer reaches that rule", marker)
		}
	}
	for _, gone := range []string{`stale runtime context`, "Ran `secret`"} {
		if strings.Contains(all.String(), gone) {
			t.Errorf("an oracle body contains %s", gone)
		}
	}
	// Every (case, triple) is compared: equal bodies, or both failing.
	compared, want := 0, 0
	for _, cs := range cases {
		want += len(cs.triples)
		for _, tr := range cs.triples {
			id := cs.name + "|" + strings.Join(tr[:], "|")
			t.Run(id, func(t *testing.T) {
				san, ok := results["sanitize|"+id]
				if !ok || !san.OK {
					t.Fatalf("the oracle's sanitize failed on a crafted transcript (a crafted case must be valid input): %s", san.Error)
				}
				want, ok := results["payload|"+id]
				if !ok {
					t.Fatal("no oracle payload answer")
				}
				msgs := limitedMessages(t, san.Out)
				p, err := BuildPayload(PayloadInput{Provider: tr[0], API: tr[1], Model: tr[2], Messages: msgs})
				if !want.OK {
					if err == nil {
						t.Fatalf("oracle failed (%s) but BuildPayload succeeded", want.Error)
					}
					t.Logf("both fail: oracle %q, oc %v", want.Error, err)
					compared++
					return
				}
				if err != nil {
					t.Fatalf("BuildPayload: %v (oracle succeeded)", err)
				}
				got, err := p.AppendJSON(nil)
				if err != nil {
					t.Fatal(err)
				}
				if d := wireDifference(t, got, want.Out); d != "" {
					t.Fatalf("payload differs from the oracle's\n%s", d)
				}
				compared++
			})
		}
	}
	oracletest.Compared(t, "crafted transcripts x their triples, live payload equal byte for byte", compared, want)
}

// normalizeImages replaces image bytes (base64 strings, data: URLs and
// Bedrock byte objects) by their decoded type and size. Only the digests of
// the pipeline's `limited` lists (limitedDigest) use it; wire bodies are
// compared byte for byte (wireDifference).
func normalizeImages(t testing.TB, v any) any {
	switch x := v.(type) {
	case map[string]any:
		if src, ok := x["source"].(map[string]any); ok {
			if b, ok := src["bytes"].(map[string]any); ok {
				raw := make([]byte, len(b))
				for k, n := range b {
					var i int
					fmt.Sscan(k, &i)
					var val int
					fmt.Sscan(string(n.(json.Number)), &val)
					if i < len(raw) {
						raw[i] = byte(val)
					}
				}
				src["bytes"] = imageSummary(raw)
			}
		}
		for k, e := range x {
			if s, ok := e.(string); ok && (k == "data" || k == "url" || k == "image_url" || k == "imageUrl") {
				x[k] = normalizeImageString(s)
				continue
			}
			x[k] = normalizeImages(t, e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeImages(t, e)
		}
	}
	return v
}

func normalizeImageString(s string) string {
	if rest, ok := strings.CutPrefix(s, "data:"); ok {
		if _, b64, ok := strings.Cut(rest, ";base64,"); ok {
			s = b64
		}
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return s
	}
	return imageSummary(raw)
}

func imageSummary(raw []byte) string {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return fmt.Sprintf("undecodable image (%d bytes)", len(raw))
	}
	return fmt.Sprintf("%s %dx%d", format, cfg.Width, cfg.Height)
}
