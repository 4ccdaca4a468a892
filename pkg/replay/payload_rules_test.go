package replay

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/pkg/replay/wire"
)

// One test per converter rule, each with the smallest input that triggers
// it. Expected bodies follow pi-ai's JavaScript (the corpus and live-oracle
// tests check the same rules against OpenClaw itself).

// body renders msgs (a JSON array of messages) for a triple and returns the
// body decoded as plain JSON.
func body(t *testing.T, triple, msgs string, opts ...func(*PayloadInput)) map[string]any {
	t.Helper()
	p, err := payloadOf(t, triple, msgs, opts...)
	if err != nil {
		t.Fatalf("BuildPayload: %v", err)
	}
	b, err := p.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	return decodeJSON(t, b).(map[string]any)
}

func payloadOf(t *testing.T, triple, msgs string, opts ...func(*PayloadInput)) (*Payload, error) {
	t.Helper()
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(msgs), &raw); err != nil {
		t.Fatalf("test input: %v", err)
	}
	decoded, err := DecodeMessages(raw, false)
	if err != nil {
		t.Fatal(err)
	}
	p := strings.SplitN(triple, "|", 3)
	in := PayloadInput{Provider: p[0], API: p[1], Model: p[2], Messages: decoded}
	for _, o := range opts {
		o(&in)
	}
	return BuildPayload(in)
}

func system(s string) func(*PayloadInput) { return func(in *PayloadInput) { in.SystemPrompt = s } }

// field returns body[key] re-encoded as compact JSON.
func field(t *testing.T, b map[string]any, key string) string {
	t.Helper()
	v, ok := b[key]
	if !ok {
		t.Fatalf("body has no %q: %v", key, b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func assertJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	var g, w any
	gb, _ := json.Marshal(got)
	if s, ok := got.(string); ok {
		gb = []byte(s)
	}
	if err := json.Unmarshal(gb, &g); err != nil {
		t.Fatalf("%s: got invalid JSON %s", what, gb)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad expectation %s: %v", what, want, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, gb, want)
	}
}

const (
	anthropicT = "anthropic|anthropic-messages|claude-sonnet-4-5"
	gpt4oT     = "openai|openai-completions|gpt-4o-mini"
	gpt5T      = "openai|openai-responses|gpt-5"
	codexT     = "openai-codex|openai-codex-responses|gpt-5.5"
	geminiT    = "google|google-generative-ai|gemini-2.5-pro"
	bedrockT   = "amazon-bedrock|bedrock-converse-stream|anthropic.claude-sonnet-4-5"
	mistralT   = "mistral|mistral-conversations|mistral-large-latest"
)

// anthropicAsst is an assistant turn from claude-sonnet-4-5 (same model for anthropicT).
func anthropicAsst(content string) string {
	return `{"role":"assistant","provider":"anthropic","api":"anthropic-messages","model":"claude-sonnet-4-5","stopReason":"stop","content":` + content + `}`
}

func otherAsst(content string) string {
	return `{"role":"assistant","provider":"x","api":"y","model":"z","stopReason":"stop","content":` + content + `}`
}

// ---- LLM boundary ----

func TestBoundaryConvertsAgentMessagesToUserText(t *testing.T) {
	b := body(t, anthropicT, `[
		{"role":"compactionSummary","summary":"S1","tokensBefore":1},
		{"role":"branchSummary","summary":"S2","fromId":"x"},
		{"role":"custom","customType":"note","content":"C1"},
		{"role":"custom","customType":"note","content":[{"type":"text","text":"C2"}]},
		{"role":"bashExecution","command":"ls","output":"out","exitCode":2,"truncated":true,"fullOutputPath":"/f"},
		{"role":"bashExecution","command":"x","output":"","cancelled":true},
		{"role":"bashExecution","command":"hidden","output":"","excludeFromContext":true},
		{"role":"mystery","content":"dropped"}]`)
	msgs := b["messages"].([]any)
	var texts []string
	for _, m := range msgs {
		content := m.(map[string]any)["content"].([]any)
		texts = append(texts, content[0].(map[string]any)["text"].(string))
	}
	want := []string{
		"The conversation history before this point was compacted into the following summary:\n\n<summary>\nS1\n</summary>",
		"The following is a summary of a branch that this conversation came back from:\n\n<summary>\nS2</summary>",
		"C1", "C2",
		"Ran `ls`\n```\nout\n```\n\nCommand exited with code 2\n\n[Output truncated. Full output: /f]",
		"Ran `x`\n(no output)\n\n(command cancelled)",
	}
	if !reflect.DeepEqual(texts, want) {
		t.Errorf("texts:\n%q\nwant\n%q", texts, want)
	}
}

// ---- transformMessages (all converters) ----

func TestTransformNonVisionImagesBecomeOnePlaceholder(t *testing.T) {
	b := body(t, "mistral|mistral-conversations|codestral-latest", `[
		{"role":"user","content":[{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"text","text":"t"}]}]`)
	assertJSON(t, "messages", b["messages"], `[{"role":"user","content":[
		{"type":"text","text":"(image omitted: model does not support images)"},{"type":"text","text":"t"}]}]`)
}

func TestTransformCrossModelThinkingBecomesText(t *testing.T) {
	b := body(t, anthropicT, `[{"role":"user","content":"q"},`+otherAsst(`[
		{"type":"thinking","thinking":"idea","thinkingSignature":"sig"},
		{"type":"thinking","thinking":"  "},
		{"type":"thinking","thinking":"[Reasoning redacted]","thinkingSignature":"r","redacted":true},
		{"type":"text","text":"a","textSignature":"ts"}]`)+`]`)
	assertJSON(t, "assistant", b["messages"].([]any)[1], `{"role":"assistant","content":[{"type":"text","text":"idea"},{"type":"text","text":"a"}]}`)
}

func TestTransformSameModelKeepsSignedBlankThinking(t *testing.T) {
	b := body(t, gpt5T, `[{"role":"assistant","provider":"openai","api":"openai-responses","model":"gpt-5","stopReason":"stop",
		"content":[{"type":"thinking","thinking":"","thinkingSignature":"{\"type\":\"reasoning\",\"id\":\"rs_1\"}"}]}]`)
	assertJSON(t, "input", b["input"], `[{"type":"reasoning","id":"rs_1"}]`)
}

func TestTransformNormalisesForeignToolCallIDsAndResults(t *testing.T) {
	b := body(t, anthropicT, `[`+otherAsst(`[{"type":"toolCall","id":"call|a.b","name":"f","arguments":{},"thoughtSignature":"x"}]`)+`,
		{"role":"toolResult","toolCallId":"call|a.b","toolName":"f","content":[{"type":"text","text":"r"}],"isError":false}]`)
	assertJSON(t, "messages", b["messages"], `[
		{"role":"assistant","content":[{"type":"tool_use","id":"call_a_b","name":"f","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_a_b","content":"r","is_error":false,"cache_control":{"type":"ephemeral"}}]}]`)
}

func TestTransformSkipsErroredAndAbortedTurns(t *testing.T) {
	b := body(t, anthropicT, `[{"role":"user","content":"q"},
		{"role":"assistant","provider":"x","stopReason":"error","content":[{"type":"text","text":"e"}]},
		{"role":"assistant","provider":"x","stopReason":"aborted","content":[{"type":"text","text":"a"}]}]`)
	if n := len(b["messages"].([]any)); n != 1 {
		t.Errorf("%d messages, want only the user one", n)
	}
}

func TestTransformSynthesizesMissingToolResults(t *testing.T) {
	b := body(t, anthropicT, `[`+anthropicAsst(`[{"type":"toolCall","id":"t1","name":"f","arguments":{}}]`)+`,{"role":"user","content":"next"}]`)
	assertJSON(t, "synthetic", b["messages"].([]any)[1], `{"role":"user","content":[
		{"type":"tool_result","tool_use_id":"t1","content":"No result provided","is_error":true}]}`)
}

// ---- Anthropic Messages ----

func TestAnthropicBodyFields(t *testing.T) {
	b := body(t, anthropicT, `[{"role":"user","content":"hi"}]`, system("be brief"))
	assertJSON(t, "max_tokens", b["max_tokens"], `21333`) // floor(64000/3)
	assertJSON(t, "system", b["system"], `[{"type":"text","text":"be brief","cache_control":{"type":"ephemeral"}}]`)
	assertJSON(t, "messages", b["messages"], `[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]`)
	if b := body(t, "minimax|anthropic-messages|MiniMax-M2", `[]`); field(t, b, "max_tokens") != "2730" {
		t.Errorf("unknown model max_tokens %s, want floor(8192/3)", field(t, b, "max_tokens"))
	}
}

func TestAnthropicSkipsBlankUserContent(t *testing.T) {
	b := body(t, anthropicT, `[{"role":"user","content":"  "},{"role":"user","content":[{"type":"text","text":" "}]},{"role":"user","content":"x"}]`)
	if n := len(b["messages"].([]any)); n != 1 {
		t.Errorf("%d messages, want 1", n)
	}
}

func TestAnthropicThinkingBlocks(t *testing.T) {
	b := body(t, anthropicT, `[`+anthropicAsst(`[
		{"type":"thinking","thinking":"signed","thinkingSignature":"s1"},
		{"type":"thinking","thinking":"unsigned"},
		{"type":"thinking","thinking":"[Reasoning redacted]","thinkingSignature":"opaque","redacted":true},
		{"type":"text","text":" "}]`)+`]`)
	assertJSON(t, "assistant", b["messages"], `[{"role":"assistant","content":[
		{"type":"thinking","thinking":"signed","signature":"s1"},
		{"type":"text","text":"unsigned"},
		{"type":"redacted_thinking","data":"opaque"}]}]`)
}

func TestAnthropicMergesToolResultsAndImages(t *testing.T) {
	b := body(t, anthropicT, `[`+anthropicAsst(`[{"type":"toolCall","id":"a","name":"f","arguments":{"k":1}},{"type":"toolCall","id":"b","name":"g"}]`)+`,
		{"role":"toolResult","toolCallId":"a","toolName":"f","content":[{"type":"text","text":"l1"},{"type":"text","text":"l2"}],"isError":false},
		{"role":"toolResult","toolCallId":"b","toolName":"g","content":[{"type":"image","data":"AA==","mimeType":"image/png"}],"isError":true}]`)
	assertJSON(t, "messages", b["messages"], `[
		{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{"k":1}},{"type":"tool_use","id":"b","name":"g","input":{}}]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"a","content":"l1\nl2","is_error":false},
			{"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"(see attached image)"},
				{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}],"is_error":true,"cache_control":{"type":"ephemeral"}}]}]`)
}

// ---- OpenAI Chat Completions ----

func TestCompletionsBodyAndCompat(t *testing.T) {
	b := body(t, gpt4oT, `[{"role":"user","content":"hi"}]`)
	if _, ok := b["tools"]; ok {
		t.Error("tools without tool history")
	}
	assertJSON(t, "stream_options", b["stream_options"], `{"include_usage":true}`)
	assertJSON(t, "store", b["store"], `false`)
	b = body(t, "openrouter|openai-completions|google/gemini-2.5-pro", `[{"role":"toolResult","toolCallId":"x","content":[]}]`)
	assertJSON(t, "tools", b["tools"], `[]`)
	assertJSON(t, "reasoning", b["reasoning"], `{"effort":"none"}`)
	b = body(t, "deepseek|openai-completions|deepseek-v4-flash", `[`+otherAsst(`[{"type":"text","text":"a"}]`)+`]`, system("s"))
	assertJSON(t, "thinking", b["thinking"], `{"type":"disabled"}`)
	assertJSON(t, "messages", b["messages"], `[{"role":"developer","content":"s"},{"role":"assistant","content":"a","reasoning_content":""}]`)
	b = body(t, "zai|openai-completions|glm-4.7", `[]`, system("s"))
	assertJSON(t, "zai", b, `{"model":"glm-4.7","messages":[{"role":"system","content":"s"}],"stream":true,"stream_options":{"include_usage":true},"enable_thinking":false}`)
	b = body(t, "openrouter|openai-completions|anthropic/claude-sonnet-4.5", `[{"role":"user","content":"hi"}]`)
	assertJSON(t, "cache marker", b["messages"], `[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]`)
}

func TestCompletionsAssistantContent(t *testing.T) {
	b := body(t, "ollama|openai-completions|m", `[
		{"role":"assistant","provider":"ollama","api":"openai-completions","model":"m","stopReason":"stop","content":[
			{"type":"thinking","thinking":"t1","thinkingSignature":"reasoning_content"},{"type":"thinking","thinking":"t2"},
			{"type":"text","text":"a"},{"type":"text","text":" "},{"type":"text","text":"b"},
			{"type":"toolCall","id":"c1","name":"f","arguments":{"z":1,"a":2},"thoughtSignature":"{\"k\":1}"}]},
		{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"r"}]},
		`+otherAsst(`[{"type":"text","text":"  "}]`)+`]`)
	assertJSON(t, "messages", b["messages"], `[
		{"role":"assistant","content":"ab","reasoning_content":"t1\nt2",
		 "tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"z\":1,\"a\":2}"}}],"reasoning_details":[{"k":1}]},
		{"role":"tool","content":"r","tool_call_id":"c1"}]`)
}

func TestCompletionsToolResultImagesFollowAsUserMessage(t *testing.T) {
	b := body(t, gpt4oT, `[{"role":"toolResult","toolCallId":"c|item+x","content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}]`)
	assertJSON(t, "messages", b["messages"], `[
		{"role":"tool","content":"(see attached image)","tool_call_id":"c|item+x"},
		{"role":"user","content":[{"type":"text","text":"Attached image(s) from tool result:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}]`)
}

func TestCompletionsToolCallIDNormalisation(t *testing.T) {
	b := body(t, gpt4oT, `[`+otherAsst(`[{"type":"toolCall","id":"call.1|`+strings.Repeat("x", 60)+`","name":"f","arguments":{}},
		{"type":"toolCall","id":"`+strings.Repeat("y", 45)+`","name":"g","arguments":{}}]`)+`]`)
	calls := b["messages"].([]any)[0].(map[string]any)["tool_calls"].([]any)
	if id := calls[0].(map[string]any)["id"]; id != "call_1" {
		t.Errorf("pipe id -> %v", id)
	}
	if id := calls[1].(map[string]any)["id"]; id != strings.Repeat("y", 40) {
		t.Errorf("openai clips to 40: %v", id)
	}
}

// ---- OpenAI Responses / Codex ----

func TestResponsesItems(t *testing.T) {
	b := body(t, gpt5T, `[{"role":"user","content":"q"},
		{"role":"assistant","provider":"openai","api":"openai-responses","model":"gpt-5","stopReason":"stop","content":[
			{"type":"text","text":"a","textSignature":"{\"v\":1,\"id\":\"msg_x\",\"phase\":\"final_answer\"}"},
			{"type":"text","text":"b"},
			{"type":"text","text":"c","textSignature":"`+strings.Repeat("m", 65)+`"},
			{"type":"toolCall","id":"call_1|fc_1","name":"f","arguments":{"b":1,"a":2}}]},
		{"role":"toolResult","toolCallId":"call_1|fc_1","content":[{"type":"text","text":"r"}]}]`)
	assertJSON(t, "input", b["input"], `[
		{"role":"user","content":[{"type":"input_text","text":"q"}]},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a","annotations":[]}],"status":"completed","id":"msg_x","phase":"final_answer"},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"b","annotations":[]}],"status":"completed","id":"msg_1"},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"c","annotations":[]}],"status":"completed","id":"msg_`+wire.ShortHash(strings.Repeat("m", 65))+`"},
		{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{\"b\":1,\"a\":2}"},
		{"type":"function_call_output","call_id":"call_1","output":"r"}]`)
	if _, ok := b["reasoning"]; ok {
		t.Error("gpt-5 maps off to null: no reasoning field")
	}
}

func TestResponsesOtherModelOfSameProviderDropsItemID(t *testing.T) {
	b := body(t, gpt5T, `[{"role":"assistant","provider":"openai","api":"openai-responses","model":"gpt-4o","stopReason":"stop",
		"content":[{"type":"toolCall","id":"c|fc_2","name":"f","arguments":{}}]},{"role":"toolResult","toolCallId":"c|fc_2","content":[]}]`)
	assertJSON(t, "call", b["input"].([]any)[0], `{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}`)
}

func TestResponsesForeignToolCallIDs(t *testing.T) {
	b := body(t, gpt5T, `[`+otherAsst(`[{"type":"toolCall","id":"call.a|item/b","name":"f","arguments":{}}]`)+`]`)
	want := "fc_" + wire.ShortHash("item/b")
	assertJSON(t, "call", b["input"].([]any)[0], `{"type":"function_call","id":"`+want+`","call_id":"call_a","name":"f","arguments":"{}"}`)
}

func TestResponsesUnparseableReasoningSignatureFails(t *testing.T) {
	_, err := payloadOf(t, gpt5T, `[{"role":"assistant","provider":"openai","api":"openai-responses","model":"gpt-5","stopReason":"stop",
		"content":[{"type":"thinking","thinking":"t","thinkingSignature":"not json"}]}]`)
	if err == nil {
		t.Error("JSON.parse throws in pi-ai: want an error")
	}
}

func TestCodexBody(t *testing.T) {
	b := body(t, codexT, `[{"role":"user","content":"q"}]`, system("sys"))
	assertJSON(t, "codex", b, `{"model":"gpt-5.5","store":false,"stream":true,"instructions":"sys",
		"input":[{"role":"user","content":[{"type":"input_text","text":"q"}]}],"text":{"verbosity":"low"},
		"include":["reasoning.encrypted_content"],"tool_choice":"auto","parallel_tool_calls":true}`)
}

// ---- Google Gemini ----

func TestGoogleParts(t *testing.T) {
	b := body(t, geminiT, `[
		{"role":"assistant","provider":"google","api":"google-generative-ai","model":"gemini-2.5-pro","stopReason":"stop","content":[
			{"type":"thinking","thinking":"t","thinkingSignature":"c2ln"},
			{"type":"text","text":"a","textSignature":"bad!"},
			{"type":"toolCall","id":"c1","name":"f","arguments":{"x":1},"thoughtSignature":"dGhvdWdodA=="}]},
		{"role":"toolResult","toolCallId":"c1","toolName":"f","content":[{"type":"text","text":"r"}],"isError":true},
		{"role":"toolResult","toolCallId":"c2","toolName":"g","content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}]`)
	assertJSON(t, "contents", b["contents"], `[
		{"role":"model","parts":[{"thought":true,"text":"t","thoughtSignature":"c2ln"},{"text":"a"},
			{"functionCall":{"name":"f","args":{"x":1}},"thoughtSignature":"dGhvdWdodA=="}]},
		{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"error":"r"}}},
			{"functionResponse":{"name":"g","response":{"output":"(see attached image)"}}}]},
		{"role":"user","parts":[{"text":"Tool result image:"},{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}]`)
	assertJSON(t, "config", b["config"], `{}`)
}

func TestGoogleGemini3NestsImagesAndClaudeGetsIDs(t *testing.T) {
	b := body(t, "google|google-generative-ai|gemini-3-pro-preview", `[{"role":"toolResult","toolCallId":"c","toolName":"g","content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}]`)
	assertJSON(t, "contents", b["contents"], `[{"role":"user","parts":[{"functionResponse":{"name":"g",
		"response":{"output":"(see attached image)"},"parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}}]}]`)
	b = body(t, "google|google-generative-ai|claude-x", `[`+otherAsst(`[{"type":"toolCall","id":"a.b","name":"f"}]`)+`]`, system("s"))
	assertJSON(t, "claude", b, `{"model":"claude-x","contents":[
		{"role":"model","parts":[{"functionCall":{"name":"f","args":{},"id":"a_b"}}]},
		{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"error":"No result provided"},"id":"a_b"}}]}],
		"config":{"systemInstruction":"s"}}`)
}

// ---- Bedrock Converse ----

func TestBedrockMessages(t *testing.T) {
	b := body(t, bedrockT, `[{"role":"user","content":[]},
		`+otherAsst(`[{"type":"thinking","thinking":"t"},{"type":"toolCall","id":"c:1","name":"f","arguments":{"a":1}}]`)+`,
		{"role":"toolResult","toolCallId":"c:1","content":[{"type":"image","data":"AAEC","mimeType":"image/jpg"}],"isError":false}]`)
	assertJSON(t, "messages", b["messages"], `[
		{"role":"user","content":[]},
		{"role":"assistant","content":[{"text":"t"},{"toolUse":{"toolUseId":"c_1","name":"f","input":{"a":1}}}]},
		{"role":"user","content":[{"toolResult":{"toolUseId":"c_1","content":[{"image":{"source":{"bytes":{"0":0,"1":1,"2":2}},"format":"jpeg"}}],"status":"success"}},
			{"cachePoint":{"type":"default"}}]}]`)
	assertJSON(t, "inferenceConfig", b["inferenceConfig"], `{}`)
}

func TestBedrockThinkingForOtherModelsAndUnknownImages(t *testing.T) {
	b := body(t, "amazon-bedrock|bedrock-converse-stream|amazon.nova-pro-v1:0", `[{"role":"assistant","provider":"amazon-bedrock","api":"bedrock-converse-stream","model":"amazon.nova-pro-v1:0",
		"stopReason":"stop","content":[{"type":"thinking","thinking":"t","thinkingSignature":"s"}]}]`, system("s"))
	assertJSON(t, "nova", b, `{"modelId":"amazon.nova-pro-v1:0","messages":[{"role":"assistant","content":[
		{"reasoningContent":{"reasoningText":{"text":"t"}}}]}],"system":[{"text":"s"}],"inferenceConfig":{}}`)
	if _, err := payloadOf(t, bedrockT, `[{"role":"user","content":[{"type":"image","data":"AA==","mimeType":"image/bmp"}]}]`); err == nil ||
		!strings.Contains(err.Error(), "Unknown image type: image/bmp") {
		t.Errorf("want Unknown image type, got %v", err)
	}
}

// ---- Mistral ----

func TestMistralMessages(t *testing.T) {
	b := body(t, mistralT, `[`+otherAsst(`[{"type":"thinking","thinking":"t"},{"type":"text","text":"a"},
		{"type":"toolCall","id":"call_abcdefghij","name":"f"},{"type":"toolCall","id":"abc-def-ghi","name":"g","arguments":{"y":1,"x":2}}]`)+`,
		{"role":"toolResult","toolCallId":"call_abcdefghij","toolName":"f","content":[{"type":"text","text":"  out  "}],"isError":true},
		{"role":"toolResult","toolCallId":"abc-def-ghi","toolName":"g","content":[]}]`, system("s"))
	long := wire.MistralDeriveID("call_abcdefghij", 0)
	if len(long) != 9 {
		t.Fatalf("derived id %q", long)
	}
	assertJSON(t, "messages", b["messages"], `[{"role":"system","content":"s"},
		{"role":"assistant","content":[{"type":"text","text":"t"},{"type":"text","text":"a"}],"toolCalls":[
			{"id":"`+long+`","type":"function","function":{"name":"f","arguments":"{}"}},
			{"id":"abcdefghi","type":"function","function":{"name":"g","arguments":"{\"y\":1,\"x\":2}"}}]},
		{"role":"tool","toolCallId":"`+long+`","name":"f","content":[{"type":"text","text":"[tool error] out"}]},
		{"role":"tool","toolCallId":"abcdefghi","name":"g","content":[{"type":"text","text":"(no tool output)"}]}]`)
}

func TestMistralSameModelKeepsThinkingParts(t *testing.T) {
	b := body(t, mistralT, `[{"role":"assistant","provider":"mistral","api":"mistral-conversations","model":"mistral-large-latest","stopReason":"stop",
		"content":[{"type":"thinking","thinking":"t"}]}]`)
	assertJSON(t, "messages", b["messages"], `[{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"t"}]}]}]`)
}

// ---- entry point ----

func TestBuildPayloadErrors(t *testing.T) {
	if _, err := payloadOf(t, "x|unknown-api|m", `[]`); err == nil {
		t.Error("unknown api: want an error")
	}
	if _, err := payloadOf(t, anthropicT, `[{"role":"assistant","content":"not an array"}]`); err == nil {
		t.Error("assistant content must be an array (TypeError in JavaScript)")
	}
}
