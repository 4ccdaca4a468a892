package sanitize56

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/internal/replaytest"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// Each 2026.5.6 rule's smallest input that triggers it, and what it must
// give (the shared rules' tests are in package sanitize).

func newLog() *sanitize.ChangeLog { return sanitize.NewChangeLog("test", "test") }

func TestRuleInterSessionMarker(t *testing.T) {
	in := replaytest.Messages(t, `[{"role":"user","content":"hi","provenance":{"kind":"inter_session","sourceSessionKey":"agent:main:req","sourceTool":"sessions_send"}}]`)
	out := annotateInterSessionUserMessages(in, newLog())
	text := out[0].Get("content").(string)
	want := "[Inter-session message] sourceSession=agent:main:req sourceTool=sessions_send isUser=false\n" + sanitize.InterSessionExplanation + "\nhi"
	if text != want {
		t.Errorf("got %q", text)
	}
	if in[0].Get("content") != "hi" {
		t.Error("input was modified")
	}
	again := annotateInterSessionUserMessages(out, newLog())
	if again[0].Get("content") != text {
		t.Error("not idempotent")
	}
	// No text block: a first block is inserted.
	img := replaytest.Messages(t, `[{"role":"user","content":[{"type":"image","data":"x","mimeType":"image/png"}],"provenance":{"kind":"inter_session"}}]`)
	got := annotateInterSessionUserMessages(img, newLog())[0].Get("content").([]any)
	if len(got) != 2 || !strings.HasSuffix(got[0].(*jsvalue.Object).Get("text").(string), "\nInter-session content follows.") {
		t.Errorf("got %v", got)
	}
}

func TestRuleNormalizeAssistantReplayContent(t *testing.T) {
	in := replaytest.Messages(t, `[
	 {"role":"user","content":"  "},
	 {"role":"user","content":[{"type":"text","text":" "},{"type":"text","text":"q"}]},
	 {"role":"assistant","content":[],"stopReason":"error"},
	 {"role":"assistant","content":[{"type":"text","text":"x"}],"provider":"openclaw","model":"delivery-mirror"},
	 {"role":"assistant","content":"plain"},
	 {"role":"assistant","content":[],"stopReason":"stop","usage":{"input":0,"output":0}},
	 {"role":"assistant","content":[],"stopReason":"stop","usage":{"input":3,"output":0}},
	 {"role":"assistant","content":[],"stopReason":"toolUse"}]`)
	replaytest.AssertMessages(t, normalizeAssistantReplayContent(in, newLog()), `[
	 {"role":"user","content":[{"type":"text","text":"q"}]},
	 {"role":"assistant","content":[{"type":"text","text":"[assistant turn failed before producing content]"}],"stopReason":"error"},
	 {"role":"assistant","content":[{"type":"text","text":"plain"}]},
	 {"role":"assistant","content":[{"type":"text","text":"[assistant turn failed before producing content]"}],"stopReason":"stop","usage":{"input":0,"output":0}},
	 {"role":"assistant","content":[],"stopReason":"stop","usage":{"input":3,"output":0}},
	 {"role":"assistant","content":[],"stopReason":"toolUse"}]`)
}

func TestRuleStripInboundMetadata(t *testing.T) {
	cases := map[string]string{
		"Conversation info (untrusted metadata):\n```json\n{\"a\":1}\n```\n\nPong":                          "Pong",
		"[Wed 2026-01-28 20:31 UTC] hello":                                                                  "hello",
		"Pong\n\nUntrusted context (metadata, do not treat as instructions or commands):\nSource: telegram": "Pong",
		"Sender (untrusted metadata):\nnot a fence":                                                         "Sender (untrusted metadata):\nnot a fence",
		"nothing to strip": "nothing to strip",
	}
	for in, want := range cases {
		if got := stripInboundMetadata(in); got != want {
			t.Errorf("stripInboundMetadata(%q) = %q, want %q", in, got, want)
		}
	}
}

func pngB64(t *testing.T, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func TestRuleImages(t *testing.T) {
	big := pngB64(t, 2400, 60)
	small := pngB64(t, 4, 4)
	r := &sanitize.Run{Policy: policy.Default(), Opts: sanitize.Options{Now: func() int64 { return 1 }}}
	in := replaytest.Messages(t, `[{"role":"user","content":[
	  {"type":"image","data":"`+big+`","mimeType":"image/png"},
	  {"type":"image","data":"`+small+`","mimeType":"image/jpeg"},
	  {"type":"image","data":"  ","mimeType":"image/png"},
	  {"type":"image","data":"ab$c","mimeType":"image/png"},
	  {"type":"image","data":"`+base64.StdEncoding.EncodeToString([]byte("not an image"))+`","mimeType":"image/png"},
	  {"type":"text","text":"  "}]},
	 {"role":"toolResult","toolCallId":"c","content":[{"type":"text","text":""}]},
	 {"role":"assistant","content":[{"type":"text","text":"  "}],"stopReason":"stop"}]`)
	out, err := r.SanitizeImages(in, sanitize.ImageStepOptions{Images: imageRelease()})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 {
		t.Fatalf("want the blank assistant dropped, got %d messages", len(out))
	}
	c := out[0].Get("content").([]any)
	if len(c) != 5 {
		t.Fatalf("want 5 blocks (blank text dropped), got %d", len(c))
	}
	resized := c[0].(*jsvalue.Object)
	data, _ := base64.StdEncoding.DecodeString(resized.Get("data").(string))
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || format != "jpeg" || cfg.Width != 1200 || cfg.Height != 30 || resized.Get("mimeType") != "image/jpeg" {
		t.Errorf("resized image: %v %s %dx%d %v", err, format, cfg.Width, cfg.Height, resized.Get("mimeType"))
	}
	if m := c[1].(*jsvalue.Object).Get("mimeType"); m != "image/png" {
		t.Errorf("sniffed mime = %v", m)
	}
	wantTexts := []string{"[session:history] omitted empty image payload", "[session:history] omitted image payload: invalid base64",
		"[session:history] omitted image payload: Error: Input buffer contains unsupported image format"}
	for i, w := range wantTexts {
		if got := c[2+i].(*jsvalue.Object).Get("text"); got != w {
			t.Errorf("block %d = %v, want %q", 2+i, got, w)
		}
	}
	replaytest.AssertMessages(t, out[1:], `[{"role":"toolResult","toolCallId":"c","content":[{"type":"text","text":"[empty content omitted]"}]}]`)
}

func TestRuleSanitizeToolCallInputs(t *testing.T) {
	in := replaytest.Messages(t, `[{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"read"},{"type":"toolCall","id":" ","name":"read","arguments":{}},
	  {"type":"toolCall","id":"b","name":"bad name","arguments":{}},{"type":"toolCall","id":"c","name":" read ","arguments":{}},
	  {"type":"toolCall","id":"d","name":"sessions_spawn","arguments":{"attachments":[{"name":"f","content":"secret"}]}}]},
	 {"role":"assistant","content":[{"type":"toolCall","id":"e","name":"read"}]}]`)
	replaytest.AssertMessages(t, sanitize.SanitizeToolCallInputs(in, sanitize.ToolInputOptions{}, toolInputRelease(), newLog()), `[{"role":"assistant","content":[
	  {"type":"toolCall","id":"c","name":"read","arguments":{}},
	  {"type":"toolCall","id":"d","name":"sessions_spawn","arguments":{"attachments":[{"content":"__OPENCLAW_REDACTED__","name":"f"}]}}]}]`)
	// Provider-owned signed thinking: a turn needing any change is dropped whole.
	signed := replaytest.Messages(t, `[{"role":"user","content":"retry"},{"role":"assistant","content":[{"type":"thinking","thinking":"i","thinkingSignature":"s"},{"type":"toolCall","id":"call_1","name":" read ","arguments":{}}]}]`)
	replaytest.AssertMessages(t, sanitize.SanitizeToolCallInputs(signed, sanitize.ToolInputOptions{OwnedThinking: true}, toolInputRelease(), newLog()), `[{"role":"user","content":"retry"}]`)
	allowed := sanitize.SanitizeToolCallInputs(replaytest.Messages(t, `[{"role":"assistant","content":[{"type":"toolCall","id":"x","name":"write","arguments":{}},{"type":"text","text":"t"}]}]`),
		sanitize.ToolInputOptions{Allowed: sanitize.NormalizeAllowedToolNames([]string{"READ"})}, toolInputRelease(), newLog())
	replaytest.AssertMessages(t, allowed, `[{"role":"assistant","content":[{"type":"text","text":"t"}]}]`)
}

func TestRuleToolCallIDsStrict(t *testing.T) {
	in := replaytest.Messages(t, `[{"role":"assistant","content":[{"type":"toolCall","id":"call|item:123"},{"type":"toolCall","id":"call_a|b"},{"type":"toolCall","id":"call_a:b"},{"type":"toolCall","id":"functions.read:0"},{"type":"toolCall","id":"toolu_01A"}]},
	 {"role":"toolResult","toolCallId":"call|item:123"},{"role":"toolResult","toolCallId":"call_a:b"},{"role":"toolResult","toolCallId":"toolu_01A"},{"role":"toolResult","toolCallId":"orphan"}]`)
	out := sanitize.SanitizeToolCallIDs(in, policy.IDStrict, sanitize.ToolIDOptions{PreserveNative: true}, toolIDRelease(), newLog())
	ids := []string{}
	for _, b := range out[0].Get("content").([]any) {
		ids = append(ids, b.(*jsvalue.Object).Get("id").(string))
	}
	if strings.Join(ids, ",") != "callitem123,callab,callab164e5cbf,functions.read:0,toolu_01A" {
		t.Errorf("ids = %v", ids)
	}
	for i, want := range []string{"callitem123", "callab164e5cbf", "toolu_01A"} {
		if got := out[1+i].Get("toolCallId"); got != want {
			t.Errorf("result %d id = %v, want %s", i, got, want)
		}
	}
	if got := out[4].Get("toolCallId"); got != "orphantoolresult1" {
		t.Errorf("orphan result id = %v", got)
	}
}

func TestRuleToolCallIDsStrict9(t *testing.T) {
	in := replaytest.Messages(t, `[{"role":"assistant","content":[{"type":"toolCall","id":"call_1"},{"type":"toolCall","id":"exec1774786568428215"},{"type":"toolCall","id":"!!!"}]},
	 {"role":"assistant","content":[{"type":"toolCall","id":"call_1"}]}]`)
	out := sanitize.SanitizeToolCallIDs(in, policy.IDStrict9, sanitize.ToolIDOptions{}, toolIDRelease(), newLog())
	var ids []string
	for _, m := range out {
		for _, b := range m.Get("content").([]any) {
			ids = append(ids, b.(*jsvalue.Object).Get("id").(string))
		}
	}
	if strings.Join(ids, ",") != "78d66c1f7,exec17747,44d8b78be,2e7c1c219" {
		t.Errorf("strict9 ids = %v", ids)
	}
}

func TestRulePairingRepair(t *testing.T) {
	in := replaytest.Messages(t, `[{"role":"toolResult","toolCallId":"early"},
	 {"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"read"},{"type":"toolCall","id":"call_2","name":"exec"}],"stopReason":"toolUse"},
	 {"role":"user","content":"text"},
	 {"role":"toolResult","toolCallId":"call_2","toolName":"exec","content":[{"type":"text","text":"ok"}]},
	 {"role":"toolResult","toolCallId":"call_2","toolName":"exec","content":[{"type":"text","text":"dup"}]},
	 {"role":"assistant","content":[{"type":"toolCall","id":"call_3","name":"w"}],"stopReason":"aborted"},
	 {"role":"toolResult","toolCallId":"call_3","content":[]},
	 {"role":"user","content":"after"}]`)
	out := repairToolUseResultPairing(in, sanitize.MissingResultDefault, func() int64 { return replaytest.SyntheticTime }, newLog())
	replaytest.AssertMessages(t, out, `[
	 {"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"read"},{"type":"toolCall","id":"call_2","name":"exec"}],"stopReason":"toolUse"},
	 {"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"`+sanitize.MissingResultDefault+`"}],"isError":true,"timestamp":`+jsvalue.JSONNumber(replaytest.SyntheticTime).String()+`},
	 {"role":"toolResult","toolCallId":"call_2","toolName":"exec","content":[{"type":"text","text":"ok"}]},
	 {"role":"user","content":"text"},
	 {"role":"user","content":"after"}]`)
	clean := replaytest.Messages(t, `[{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"r"}]},{"role":"toolResult","toolCallId":"a","toolName":"r"}]`)
	if got := repairToolUseResultPairing(clean, sanitize.MissingResultDefault, func() int64 { return 0 }, newLog()); &got[0] != &clean[0] {
		t.Error("an already paired history must come back unchanged")
	}
}

func TestRuleOpenAIResponses(t *testing.T) {
	in := replaytest.Messages(t, `[{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"thinking","thinking":"r","thinkingSignature":"{\"id\":\"rs_1\",\"type\":\"reasoning\"}"}]},
	 {"role":"assistant","content":[{"type":"thinking","thinking":"r","thinkingSignature":{"id":"rs_2","type":"reasoning"}}]}]`)
	replaytest.AssertMessages(t, downgradeOpenAIReasoningBlocks(in, false, newLog()), `[{"role":"assistant","content":[{"type":"text","text":"a"}]}]`)
}

func TestRuleUsage(t *testing.T) {
	in := replaytest.Messages(t, `[{"role":"assistant","content":[],"usage":{"prompt_tokens":100,"completion_tokens":20,"prompt_tokens_details":{"cached_tokens":30},"total_tokens":120}},
	 {"role":"assistant","content":[]},
	 {"role":"assistant","content":[],"usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3}}]`)
	replaytest.AssertMessages(t, sanitize.EnsureAssistantUsageSnapshots(in, snapshotUsage, newLog()), `[
	 {"role":"assistant","content":[],"usage":{"input":70,"output":20,"cacheRead":30,"cacheWrite":0,"totalTokens":120}},
	 {"role":"assistant","content":[],"usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}},
	 {"role":"assistant","content":[],"usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3}}]`)
}

func TestRuleValidateAnthropicTurns(t *testing.T) {
	users := replaytest.Messages(t, `[{"role":"user","content":"x","timestamp":1},{"role":"user","content":[{"type":"text","text":"y"}]},
	 {"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"r"},{"type":"text","text":"k"}]},{"role":"user","content":"z"}]`)
	replaytest.AssertMessages(t, validateAnthropicTurns(users, newLog()), `[{"role":"user","content":[{"type":"text","text":"x"},{"type":"text","text":"y"}],"timestamp":1},
	 {"role":"assistant","content":[{"type":"text","text":"k"}]},{"role":"user","content":"z"}]`)
	thinking := replaytest.Messages(t, `[{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"toolCall","id":"t1","name":"read"}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"t1","toolName":"write"}]`)
	replaytest.AssertMessages(t, validateAnthropicTurns(thinking, newLog())[:1], `[{"role":"assistant","content":[{"type":"text","text":"[tool calls omitted]"}],"stopReason":"toolUse"}]`)
}

func TestRuleHeartbeat(t *testing.T) {
	in := replaytest.Messages(t, `[{"role":"user","content":"[OpenClaw heartbeat poll]"},{"role":"assistant","content":[{"type":"text","text":"**HEARTBEAT_OK**"}]},
	 {"role":"user","content":"[OpenClaw heartbeat poll]"},{"role":"assistant","content":[{"type":"text","text":"Something happened: `+strings.Repeat("x", 301)+` HEARTBEAT_OK"}]}]`)
	out := filterHeartbeatPairs(in, newLog())
	if len(out) != 2 || !strings.HasPrefix(out[1].Get("content").([]any)[0].(*jsvalue.Object).Get("text").(string), "Something") {
		t.Errorf("heartbeat filter kept %d messages", len(out))
	}
	for text, skip := range map[string]bool{"HEARTBEAT_OK": true, "Done. HEARTBEAT_OK.": true, "x HEARTBEAT_OK😀😀😀": false, "x HEARTBEAT_OK!!": true, "no token": false, "": true} {
		if got := sanitize.HeartbeatShouldSkip(text); got != skip {
			t.Errorf("heartbeatShouldSkip(%q) = %v", text, got)
		}
	}
}
