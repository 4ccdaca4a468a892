package replay

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/internal/replaytest"
)

// fileType96Routes are the routes testdata/payload96-filetype was asked
// about (gen.sh).
var fileType96Routes = []string{"anthropic|anthropic-messages|claude-sonnet-4-5", "minimax|anthropic-messages|MiniMax-M2",
	"openai|openai-completions|gpt-4o-mini", "google|google-generative-ai|gemini-2.5-pro",
	"openai|openai-responses|gpt-5", "mistral|mistral-conversations|mistral-large-latest"}

// TestFileType: 2026.9.6 reads an image's real type from its bytes.
// filetype.jsonl (crafted) has a 3x2 BMP labelled image/png in a user turn
// and labelled image/jpeg in a tool result (fuzz-found: campaign seeds
// 3501-3506 once the generator made BMPs).
//   - sanitize (every route): 9.6's image library (Rastermill) reads the
//     BMP header, so the image is within the limits and kept as it is, under
//     its declared type (2026.5.6's sharp could not read it: "omitted image
//     payload").
//   - payload (anthropic-messages): the transport host's
//     normalizeAnthropicInlineImage sniffs the bytes (file-type) and, for a
//     BMP, sends a PNG conversion; other routes send the bytes under the
//     declared type.
//
// Expected: the 9.6 oracle's answers (gen.sh): the sanitize stage from its
// context answer, the payload stage from its limited list.
func TestFileType(t *testing.T) {
	const path = "testdata/payload96-filetype/oracle-answers.jsonl"
	answers, cases := storedRouteCases96(t, path, "filetype", fileType96Routes)
	var ctx struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(answers["context"], &ctx); err != nil {
		t.Fatalf("context answer: %v", err)
	}
	sanitizedEqual := 0
	for _, route := range fileType96Routes {
		f := strings.Split(route, "|")
		msgs, err := DecodeMessages(ctx.Messages, false)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Sanitize(msgs, Options{Release: policy.Release96, Provider: f[0], API: f[1], Model: f[2], Now: replaytest.FixedNow96})
		if err != nil {
			t.Errorf("%s: %v", route, err)
			continue
		}
		got, err := AppendMessages(nil, res.Limited)
		if err != nil {
			t.Fatal(err)
		}
		var want struct {
			Limited json.RawMessage `json:"limited"`
		}
		if err := json.Unmarshal(answers["sanitize|"+route], &want); err != nil {
			t.Fatal(err)
		}
		if d := oracletest.Difference96(got, want.Limited); d != "" {
			t.Errorf("%s: sanitized differs from the 2026.9.6 oracle's: %s", route, d)
			continue
		}
		sanitizedEqual++
	}
	// The stored answers must hold the conversion, or the payload half
	// tests nothing: the Anthropic body carries image/png where the
	// transcript says image/jpeg.
	if !strings.Contains(string(answers["payload|anthropic|anthropic-messages|claude-sonnet-4-5"]), `"media_type":"image/png"`) {
		t.Fatal("stored anthropic payload has no image/png: regenerate with gen.sh")
	}
	payloadEqual, _ := runPayload96Cases(t, cases)
	oracletest.Compared(t, "2026.9.6 file-type sniffing: sanitized and payload equal", sanitizedEqual+payloadEqual, 2*len(fileType96Routes))
}
