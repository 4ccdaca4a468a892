package replay

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// The ten (provider, api, model) triples the stored oracle answers cover
// (../shared/corpus/README.md); the sanitize and payload tests share them.
var oracleTriples = [][3]string{
	{"anthropic", "anthropic-messages", "claude-sonnet-4-5"},
	{"openai", "openai-responses", "gpt-5"},
	{"openai", "openai-completions", "gpt-4o-mini"},
	{"openai-codex", "openai-codex-responses", "gpt-5.5"},
	{"google", "google-generative-ai", "gemini-2.5-pro"},
	{"amazon-bedrock", "bedrock-converse-stream", "anthropic.claude-sonnet-4-5"},
	{"mistral", "mistral-conversations", "mistral-large-latest"},
	{"openrouter", "openai-completions", "google/gemini-2.5-pro"},
	{"minimax", "anthropic-messages", "MiniMax-M2"},
	{"ollama", "openai-completions", "gemma4:27b"},
}

// syntheticTime marks messages the pipeline made up (Date.now()
// timestamps): the comparison takes the oracle's time for them.
const syntheticTime = -424242

func fixedNow() int64 { return syntheticTime }

// contextMessages decodes an oracle `context` answer's messages.
func contextMessages(t testing.TB, out json.RawMessage) []Message {
	t.Helper()
	var c struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatalf("context answer: %v", err)
	}
	msgs, err := jsvalue.DecodeMessages(c.Messages)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

type sanitizeAnswer struct {
	Sanitized []json.RawMessage `json:"sanitized"`
	Validated []json.RawMessage `json:"validated"`
	Limited   []json.RawMessage `json:"limited"`
}

// plain turns Go values into what json.Unmarshal gives for their JSON, so
// that reflect.DeepEqual compares JSON values.
func plain(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func plainRaw(t testing.TB, raws []json.RawMessage) []any {
	t.Helper()
	out := make([]any, len(raws))
	for i, r := range raws {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// compareStage compares a stage list with the oracle's, after giving
// synthetic messages the oracle's timestamps. It returns "" when equal.
func compareStage(t testing.TB, got []Message, want []any) string {
	t.Helper()
	g, _ := plain(t, got).([]any)
	if g == nil {
		g = []any{}
	}
	for i, m := range g {
		mm, ok := m.(map[string]any)
		if !ok || mm["timestamp"] != float64(syntheticTime) || i >= len(want) {
			continue
		}
		if w, ok := want[i].(map[string]any); ok {
			mm["timestamp"] = w["timestamp"]
		}
	}
	if reflect.DeepEqual(g, want) {
		return ""
	}
	return firstDiff(g, want, "")
}

func firstDiff(got, want any, path string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %s, want object", path, brief(got))
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				return fmt.Sprintf("%s.%s: missing (want %s)", path, k, brief(wv))
			}
			if !reflect.DeepEqual(gv, wv) {
				return firstDiff(gv, wv, path+"."+k)
			}
		}
		for k, gv := range g {
			if _, ok := w[k]; !ok {
				return fmt.Sprintf("%s.%s: unexpected %s", path, k, brief(gv))
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: got %s, want array", path, brief(got))
		}
		for i := 0; i < len(w) && i < len(g); i++ {
			if !reflect.DeepEqual(g[i], w[i]) {
				return firstDiff(g[i], w[i], fmt.Sprintf("%s[%d]", path, i))
			}
		}
		if len(g) != len(w) {
			return fmt.Sprintf("%s: %d items, want %d", path, len(g), len(w))
		}
	}
	return fmt.Sprintf("%s: got %s, want %s", path, brief(got), brief(want))
}

func brief(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// TestSanitizeMatchesStoredOracleAnswers runs the pipeline on every corpus
// transcript's context (the oracle's own context answer, so only the
// pipeline is tested) for the ten triples and compares all three stages
// with the oracle's sanitize answer.
func TestSanitizeMatchesStoredOracleAnswers(t *testing.T) {
	answers := oracletest.StoredAnswers(t)
	files := oracletest.Transcripts(t)
	total, matched := 0, 0
	for _, f := range files {
		name := filepath.Base(f)
		ctx, ok := answers[name+"|context"]
		if !ok || !ctx.OK {
			t.Errorf("%s: no stored context answer (ok=%v %s)", name, ctx.OK, ctx.Error)
			continue
		}
		msgs := contextMessages(t, ctx.Out)
		for _, tr := range oracleTriples {
			key := strings.Join([]string{name, "sanitize", tr[0], tr[1], tr[2]}, "|")
			ans, ok := answers[key]
			if !ok || !ans.OK {
				t.Errorf("%s: no stored sanitize answer (ok=%v %s)", key, ans.OK, ans.Error)
				continue
			}
			total++
			var want sanitizeAnswer
			if err := json.Unmarshal(ans.Out, &want); err != nil {
				t.Fatal(err)
			}
			res, err := Sanitize(msgs, Options{Provider: tr[0], API: tr[1], Model: tr[2], Now: fixedNow})
			if err != nil {
				t.Errorf("%s %v: %v", name, tr, err)
				continue
			}
			diffs := []string{}
			for _, st := range []struct {
				name string
				got  []Message
				want []json.RawMessage
			}{{"sanitized", res.Sanitized, want.Sanitized}, {"validated", res.Validated, want.Validated}, {"limited", res.Limited, want.Limited}} {
				if d := compareStage(t, st.got, plainRaw(t, st.want)); d != "" {
					diffs = append(diffs, st.name+d)
				}
			}
			if len(diffs) > 0 {
				t.Errorf("%s %v:\n  %s", name, tr, strings.Join(diffs, "\n  "))
				continue
			}
			matched++
		}
	}
	t.Logf("sanitize parity: %d of %d (file, triple) pairs equal in all three stages", matched, total)
	oracletest.Compared(t, "stored sanitize answers equal in all three stages (corpus transcripts x triples)", matched, len(files)*len(oracleTriples))
}
