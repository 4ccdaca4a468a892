package policy

import (
	"fmt"
	"time"

	"encoding/json"
	"os"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// testdata/replay/policy-expected-2026.9.6.json holds the 2026.9.6 oracle's
// `policy` answer for the same 1,086 (provider, api, model) triples as the
// 2026.5.6 file. Made with one `oracle batch` of `policy` jobs (see
// TestPolicy96LiveOracle for the live check).
const expected96File = "../../testdata/replay/policy-expected-2026.9.6.json"

func TestExpectedPolicies96(t *testing.T) {
	b, err := os.ReadFile(expected96File)
	if err != nil {
		t.Fatal(err)
	}
	var rows []expectedRow
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatalf("%s: %v", expected96File, err)
	}
	if len(rows) != 1086 {
		t.Fatalf("%s: %d rows, want 1086", expected96File, len(rows))
	}
	bad := 0
	for _, r := range rows {
		got, err := json.Marshal(Resolve96(Route{Provider: r.Provider, API: r.API, Model: r.Model}).Policy)
		if err != nil {
			t.Fatal(err)
		}
		// Byte equality: member order and presence are part of the answer.
		if string(got) != string(r.Policy) {
			bad++
			if bad <= 60 {
				t.Errorf("policy 2026.9.6 (%q, %q, %q):\n got  %s\n want %s", r.Provider, r.API, r.Model, got, r.Policy)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d triples differ from the 2026.9.6 oracle", bad, len(rows))
	}
	oracletest.Compared(t, "stored 2026.9.6 policy answers equal byte for byte (testdata expectation rows)", len(rows)-bad, len(rows))
}

// TestPolicy96LiveOracle asks the 2026.9.6 oracle about triples that are not
// in the checked-in expectation (new model generations, odd spellings, the
// providers whose ownership depends on the model), in one batch.
func TestPolicy96LiveOracle(t *testing.T) {
	if testing.Short() {
		oracletest.Unavailable(t, "-short: live oracle comparison not run")
	}
	triples := [][3]string{
		{"anthropic", "anthropic-messages", "claude-opus-5-5"},
		{"anthropic", "anthropic-messages", "claude-fable-5.1"},
		{"anthropic", "openai-responses", "claude-sonnet-5"},
		{"openai", "openai-chatgpt-responses", "gpt-5.6-sol"},
		{"azure-openai", "openai-responses", "o3-mini"},
		{"azure-openai", "openai-responses", "llama-3"},
		{"google-antigravity", "google-generative-ai", "claude-sonnet-4-5"},
		{"openrouter", "openai-completions", "mistralai/mistral-large"},
		{"openrouter", "openai-completions", "~openrouter/gemini-3-pro"},
		{"clawrouter", "anthropic-messages", "claude-3-7-sonnet"},
		{"clawrouter", "openai-completions", "kimi-k2.6"},
		{"sglang", "openai-completions", "qwen3"},
		{"xai", "openai-chatgpt-responses", "grok-4"},
		{"ollama", "ollama", "gemma4:27b"},
		{"ollama-cloud", "openai-responses", "gpt-oss:120b"},
		{"github-copilot", "anthropic-messages", "claude-opus-4.6"},
		{"minimax-cn", "anthropic-messages", "claude-3-haiku"},
		{"some-new-provider", "openai-completions", "moonshot/kimi-k2-thinking:cloud"},
		{"vllm", "azure-openai-responses", "anthropic/claude-sonnet-4-5"},
		{"opencode-go", "openai-completions", "gemini-3-flash"},
	}
	jobs := make([]oracletest.Job, len(triples))
	for i, tr := range triples {
		jobs[i] = oracletest.Job{ID: fmt.Sprint(i), Mode: "policy", Args: tr[:]}
	}
	res := oracletest.Batch96(t, jobs, 10*time.Minute)
	compared := 0
	for i, tr := range triples {
		r := res[fmt.Sprint(i)]
		if !r.OK {
			t.Errorf("%v: 2026.9.6 oracle failed: %s", tr, r.Error)
			continue
		}
		got, _ := json.Marshal(Resolve96(Route{Provider: tr[0], API: tr[1], Model: tr[2]}).Policy)
		compared++
		if string(got) != string(r.Out) {
			t.Errorf("policy 2026.9.6 %v:\n got  %s\n want %s", tr, got, r.Out)
		}
	}
	oracletest.Compared(t, "live 2026.9.6 policy answers equal byte for byte (sampled triples)", compared, len(triples))
}

func TestParseReleaseAndAPIs(t *testing.T) {
	for in, want := range map[string]Release{"2026.5.6": Release56, "v2026.9.6": Release96} {
		got, err := ParseRelease(in)
		if err != nil || got != want {
			t.Errorf("ParseRelease(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseRelease("2026.7.1"); err == nil {
		t.Error("ParseRelease accepted an unknown release")
	}
	if BuildsAPI(Release96, "bedrock-converse-stream") || !BuildsAPI(Release56, "bedrock-converse-stream") {
		t.Error("bedrock-converse-stream: built in 2026.5.6 only")
	}
	if !BuildsAPI(Release96, "openai-chatgpt-responses") || BuildsAPI(Release96, "openai-codex-responses") {
		t.Error("2026.9.6 renamed openai-codex-responses to openai-chatgpt-responses")
	}
}
