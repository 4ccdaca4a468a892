package replay

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/replay/internal/replaytest"
)

// 2026.9.6's transformMessages (@openclaw/ai host-*.mjs transformAssistant)
// trims every tool call id before normalising it, maps a tool result's
// trimmed id, and strips thoughtSignature and async from another model's
// calls whatever their value. Fuzz-found (difffuzz 9.6 seed 4: an id
// "  padded  " went out padded on OpenRouter). toolids.jsonl (crafted) has
// padded ids on the same route, a tab/newline-padded id whose result is
// already trimmed, another model's padded "call|item" id with a falsy
// thoughtSignature and async, and a padded call without a result (the
// synthetic "No result provided" takes the trimmed id). Expected: the 9.6
// oracle's answers (gen.sh).
func TestPayload96TrimsToolCallIDs(t *testing.T) {
	answers, cases := storedRouteCases96(t, "testdata/payload96-toolids/oracle-answers.jsonl", "toolids", []string{"openrouter|openai-completions|google/gemini-2.5-pro", "openai|openai-responses|gpt-5",
		"openai|openai-completions|gpt-4o-mini", "anthropic|anthropic-messages|claude-sonnet-4-5",
		"google|google-generative-ai|gemini-2.5-pro", "mistral|mistral-conversations|mistral-large-latest",
		"azure-openai-responses|azure-openai-responses|gpt-5", "openai|openai-chatgpt-responses|gpt-5.5"})
	// The answers must show the trim, or the test compares nothing new: the
	// sanitized list keeps the padded id, OpenRouter's wire body does not.
	route := "openrouter|openai-completions|google/gemini-2.5-pro"
	if !bytes.Contains(answers["sanitize|"+route], []byte(`"  call padded  "`)) || bytes.Contains(answers["payload|"+route], []byte(`"  call padded  "`)) ||
		!bytes.Contains(answers["payload|"+route], []byte(`"call padded"`)) {
		t.Fatalf("stored answers for %s do not show a trimmed tool call id", route)
	}
	equal, _ := runPayload96Cases(t, cases)
	oracletest.Compared(t, "2026.9.6 tool call ids trimmed: payload equal byte for byte", equal, len(cases))
}

// 2026.9.6's projectGoogleMessages (@openclaw/ai google-messages-*.mjs,
// replay "signed-parts") keeps a functionCall's id, and the id of the
// functionResponse answering it, when a call with that id came from the
// same provider, api and model (sameRouteToolCallIds); 2026.5.6 sent ids
// only to models that require them. Fuzz-found (difffuzz 9.6 seed 5: a
// Gemini call went out without its id). google-ids.jsonl (crafted): calls
// from Gemini on google-generative-ai, from Gemini on google-vertex and
// from Claude, then a Gemini call reusing each id. Expected: the 9.6
// oracle's answers (testdata/payload96-google-ids/gen.sh).
func TestPayload96GoogleSameRouteIDs(t *testing.T) {
	answers, cases := storedRouteCases96(t, "testdata/payload96-google-ids/oracle-answers.jsonl", "google ids", []string{"google|google-generative-ai|gemini-2.5-pro", "google-vertex|google-vertex|gemini-2.5-pro",
		"google|google-generative-ai|gemini-3-pro-preview"})
	if !bytes.Contains(answers["payload|google|google-generative-ai|gemini-2.5-pro"], []byte(`"id":"gemcall1"`)) {
		t.Fatal("stored answers hold no same-route functionCall id: the test would compare nothing new")
	}
	equal, _ := runPayload96Cases(t, cases)
	oracletest.Compared(t, "2026.9.6 Gemini same-route tool call ids: payload equal byte for byte", equal, len(cases))
}

// storedRouteCases96 reads a gen.sh answer file ({"id":"mode|provider|api|model",
// "ok":true,"out":…} per line; a failed or unreadable answer fails the test)
// and builds one payload96Case per route from its sanitize and payload
// answers (a route without both fails the test).
func storedRouteCases96(t *testing.T, path, name string, routes []string) (map[string]json.RawMessage, []payload96Case) {
	t.Helper()
	answers := map[string]json.RawMessage{}
	replaytest.ReadJSONLines(t, path, func(line []byte) {
		var r struct {
			ID  string          `json:"id"`
			OK  bool            `json:"ok"`
			Out json.RawMessage `json:"out"`
		}
		if err := json.Unmarshal(line, &r); err != nil || !r.OK {
			t.Fatalf("bad stored answer %.200q: %v", line, err)
		}
		answers[r.ID] = r.Out
	})
	var cases []payload96Case
	for _, route := range routes {
		s, p := answers["sanitize|"+route], answers["payload|"+route]
		if s == nil || p == nil {
			t.Fatalf("no stored answers for %s", route)
		}
		f := strings.Split(route, "|")
		cases = append(cases, payload96Case{name: name + " " + route, provider: f[0], api: f[1], mdl: f[2],
			limited: s, want: p, wantOK: true})
	}
	return answers, cases
}
