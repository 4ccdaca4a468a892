package replay

import (
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/internal/replaytest"
)

// With nothing left to send, 2026.9.6's Google convertMessages sends one
// placeholder user turn (dist/google-messages-*.mjs: `if (contents.length
// === 0) contents.push({ role: "user", parts: [{ text: " " }] })`). The
// expected bodies are the 9.6 oracle's payload answers on an empty session
// (a crafted transcript whose only message line is not valid UTF-8, so the
// import kept no event); Vertex shares the converter.
func TestPayload96GoogleWithNothingToSend(t *testing.T) {
	cases := []struct{ provider, api, model, want string }{
		{"google", "google-generative-ai", "gemini-2.5-pro",
			`{"model":"gemini-2.5-pro","contents":[{"role":"user","parts":[{"text":" "}]}],"config":{}}`},
		{"google-vertex", "google-vertex", "gemini-2.5-pro",
			`{"model":"gemini-2.5-pro","contents":[{"role":"user","parts":[{"text":" "}]}],"config":{}}`},
		{"anthropic", "anthropic-messages", "claude-sonnet-4-5",
			`{"model":"claude-sonnet-4-5","messages":[],"max_tokens":8192,"stream":true}`},
	}
	for _, c := range cases {
		res, err := Sanitize(nil, Options{Release: policy.Release96, Provider: c.provider, API: c.api, Model: c.model, Now: replaytest.FixedNow96})
		if err != nil {
			t.Fatalf("%s: %v", c.api, err)
		}
		if len(res.Limited) != 0 {
			t.Fatalf("%s: %d limited messages from an empty session", c.api, len(res.Limited))
		}
		p, err := BuildPayload(PayloadInput{Release: policy.Release96, Now: replaytest.FixedNow96, Provider: c.provider, API: c.api, Model: c.model,
			Messages: res.Limited})
		if err != nil {
			t.Fatalf("%s: %v", c.api, err)
		}
		got, err := p.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := oracletest.Difference96(got, []byte(c.want)); d != "" {
			t.Errorf("%s: %s\n got %s", c.api, d, got)
		}
	}
}
