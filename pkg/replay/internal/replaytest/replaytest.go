// Package replaytest holds what the replay and sanitize tests share: the
// synthetic clock the pipelines run on and the JSON comparison of a stage
// with an oracle's answer.
package replaytest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// SyntheticTime marks messages the pipeline made up (Date.now()
// timestamps): the comparison takes the oracle's time for them.
const SyntheticTime = -424242

// FixedNow is the 2026.5.6 comparisons' Date.now().
func FixedNow() int64 { return SyntheticTime }

// SyntheticTime96 is the Date.now() of the 2026.9.6 comparisons. It must be
// later than every message (9.6 dates a model switch "now" and drops the
// reasoning of every turn before it), and it marks the messages the pipeline
// made up, which take the oracle's timestamp in the comparison.
const SyntheticTime96 = 4102444800000 // 2100-01-01

// FixedNow96 is the 2026.9.6 comparisons' Date.now().
func FixedNow96() int64 { return SyntheticTime96 }

// Plain turns Go values into what json.Unmarshal gives for their JSON, so
// that reflect.DeepEqual compares JSON values.
func Plain(t testing.TB, v any) any {
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

// PlainRaw is json.Unmarshal of each raw message.
func PlainRaw(t testing.TB, raws []json.RawMessage) []any {
	t.Helper()
	out := make([]any, len(raws))
	for i, r := range raws {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// CompareStage compares a stage list with the oracle's, after giving
// synthetic messages the oracle's timestamps. It returns "" when equal.
func CompareStage(t testing.TB, got []jsvalue.Message, want []any) string {
	t.Helper()
	g, _ := Plain(t, got).([]any)
	if g == nil {
		g = []any{}
	}
	for i, m := range g {
		mm, ok := m.(map[string]any)
		if !ok || mm["timestamp"] != float64(SyntheticTime) || i >= len(want) {
			continue
		}
		if w, ok := want[i].(map[string]any); ok {
			mm["timestamp"] = w["timestamp"]
		}
	}
	if reflect.DeepEqual(g, want) {
		return ""
	}
	return FirstDifference(g, want, "")
}

// Messages decodes a JSON array of messages written in a test.
func Messages(t testing.TB, js string) []jsvalue.Message {
	t.Helper()
	var raws []json.RawMessage
	if err := json.Unmarshal([]byte(js), &raws); err != nil {
		t.Fatalf("bad test JSON: %v\n%s", err, js)
	}
	m, err := jsvalue.DecodeMessages(raws, false)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// AssertMessages fails the test when got is not the JSON array want (a
// stage comparison: synthetic messages take want's timestamps).
func AssertMessages(t testing.TB, got []jsvalue.Message, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON: %v", err)
	}
	g := Plain(t, got)
	if g == nil {
		g = []any{}
	}
	if d := CompareStage(t, got, w.([]any)); d != "" {
		gb, _ := json.Marshal(g)
		t.Errorf("mismatch %s\n got  %s\n want %s", d, gb, want)
	}
}

// The ten (provider, api, model) triples the stored oracle answers cover
// (../shared/corpus/README.md); the sanitize and payload tests share them.
// OracleTriples returns them.
func OracleTriples() [][3]string {
	return [][3]string{
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
}

// ReadJSONLines calls fn with each line of a JSONL file; an absent file is
// oracletest.Unavailable (a skip locally, a failure in CI).
func ReadJSONLines(t testing.TB, path string, fn func([]byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		oracletest.Unavailable(t, err.Error())
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		fn(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// FirstDifference describes where two decoded JSON values first differ.
func FirstDifference(got, want any, path string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %s, want an object", path, Short(got))
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			gv, gok := g[k]
			wv, wok := w[k]
			switch {
			case !gok:
				return fmt.Sprintf("%s.%s: missing, want %s", path, k, Short(wv))
			case !wok:
				return fmt.Sprintf("%s.%s: unexpected %s", path, k, Short(gv))
			case !reflect.DeepEqual(gv, wv):
				return FirstDifference(gv, wv, path+"."+k)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: got %s, want an array", path, Short(got))
		}
		for i := 0; i < len(w) && i < len(g); i++ {
			if !reflect.DeepEqual(g[i], w[i]) {
				return FirstDifference(g[i], w[i], fmt.Sprintf("%s[%d]", path, i))
			}
		}
		if len(g) != len(w) {
			return fmt.Sprintf("%s: %d elements, want %d (next want %s)", path, len(g), len(w), Short(w[min(len(g), len(w)-1)]))
		}
	}
	return fmt.Sprintf("%s: got %s, want %s", path, Short(got), Short(want))
}

// Short is v as JSON, cut after 300 bytes.
func Short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}
