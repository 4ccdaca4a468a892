package policy

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// testdata/replay/policy-expected.json holds the oracle's `policy` answer
// for many (provider, api, model) triples: every bundled provider id and
// alias, unknown providers, every API, and model ids that hit each model
// rule. Regenerate it (about half an hour: the oracle loads the provider's
// plugin for every triple) with
//
//	go test ./pkg/policy -run TestExpectedPolicies -update-policies -timeout 2h
var updatePolicies = flag.Bool("update-policies", false, "re-ask the oracle for every triple of testdata/replay/policy-expected.json")

const expectedFile = "../../testdata/replay/policy-expected.json"

type expectedRow struct {
	Provider string          `json:"provider"`
	API      string          `json:"api"`
	Model    string          `json:"model"`
	Policy   json.RawMessage `json:"policy"`
}

func loadExpected(t *testing.T) []expectedRow {
	t.Helper()
	b, err := os.ReadFile(expectedFile)
	if err != nil {
		t.Fatal(err)
	}
	var rows []expectedRow
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatalf("%s: %v", expectedFile, err)
	}
	return rows
}

// canonical re-encodes a JSON value with sorted keys.
func canonical(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestExpectedPolicies(t *testing.T) {
	rows := loadExpected(t)
	if *updatePolicies {
		rows = askOracle(t, rows, 2*time.Hour)
		writeExpected(t, rows)
	}
	if len(rows) < 500 {
		t.Fatalf("only %d expected rows", len(rows))
	}
	bad := 0
	for _, r := range rows {
		got, err := json.Marshal(For(r.Provider, r.API, r.Model))
		if err != nil {
			t.Fatal(err)
		}
		if g, w := canonical(t, got), canonical(t, r.Policy); g != w {
			bad++
			if bad <= 20 {
				t.Errorf("policy(%q, %q, %q):\n got  %s\n want %s", r.Provider, r.API, r.Model, g, w)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d triples differ from the oracle", bad, len(rows))
	}
	oracletest.Compared(t, "stored policy answers equal (testdata expectation rows)", len(rows)-bad, len(rows))
}

// TestPolicyJSONKeyOrder: the JSON has the oracle's member order, so that
// `oc replay --explain --json` prints the policy as OpenClaw would.
func TestPolicyJSONKeyOrder(t *testing.T) {
	for _, r := range loadExpected(t)[:50] {
		got, _ := json.Marshal(For(r.Provider, r.API, r.Model))
		if !bytes.Equal(got, r.Policy) {
			t.Errorf("policy(%q, %q, %q) bytes:\n got  %s\n want %s", r.Provider, r.API, r.Model, got, r.Policy)
		}
	}
}

// TestPolicyLiveOracle asks the oracle about triples sampled across the
// table (one batch), including ones not in the checked-in expectation.
func TestPolicyLiveOracle(t *testing.T) {
	if testing.Short() {
		oracletest.Unavailable(t, "-short: live oracle comparison not run")
	}
	triples := [][3]string{
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
		{"  AWS-Bedrock ", "bedrock-converse-stream", "anthropic.claude-3-haiku-20240307-v1:0"},
		{"lmstudio", "openai-completions", "google/gemma-4-12b"},
		{"vllm", "openai-completions", "Qwen3.6-27B"},
		{"github-copilot", "openai-completions", "claude-opus-4.6"},
		{"minimax-portal", "openai-completions", "MiniMax-M2.5"},
		{"anthropic-vertex", "anthropic-messages", "claude-3-5-haiku@20241022"},
		{"azure-openai-responses", "azure-openai-responses", "gpt-5-mini"},
		{"some-new-provider", "google-gemini-cli", "gemini-3-pro-preview"},
		{"opencode-zen", "openai-responses", "gemini-3-flash"},
		{"moonshot", "openai-completions", "kimi-k2.6"},
	}
	jobs := make([]oracletest.Job, len(triples))
	for i, tr := range triples {
		jobs[i] = oracletest.Job{ID: fmt.Sprint(i), Mode: "policy", Args: tr[:]}
	}
	res := oracletest.Batch(t, jobs, 10*time.Minute)
	compared := 0
	for i, tr := range triples {
		r, ok := res[fmt.Sprint(i)]
		if !ok || !r.OK {
			t.Errorf("%v: oracle failed: %s", tr, r.Error)
			continue
		}
		got, err := json.Marshal(For(tr[0], tr[1], tr[2]))
		if err != nil {
			t.Fatal(err)
		}
		if g, w := canonical(t, got), canonical(t, r.Out); g != w {
			t.Errorf("policy%v:\n got  %s\n want %s", tr, g, w)
			continue
		}
		compared++
	}
	oracletest.Compared(t, "live policy answers equal (sampled triples)", compared, len(triples))
}

func askOracle(t *testing.T, rows []expectedRow, timeout time.Duration) []expectedRow {
	t.Helper()
	jobs := make([]oracletest.Job, len(rows))
	for i, r := range rows {
		jobs[i] = oracletest.Job{ID: fmt.Sprint(i), Mode: "policy", Args: []string{r.Provider, r.API, r.Model}}
	}
	res := oracletest.Batch(t, jobs, timeout)
	out := make([]expectedRow, 0, len(rows))
	for i, r := range rows {
		a, ok := res[fmt.Sprint(i)]
		if !ok || !a.OK {
			t.Fatalf("oracle policy %q %q %q: %s", r.Provider, r.API, r.Model, a.Error)
		}
		r.Policy = a.Out
		out = append(out, r)
	}
	return out
}

func writeExpected(t *testing.T, rows []expectedRow) {
	t.Helper()
	var b strings.Builder
	b.WriteString("[\n")
	for i, r := range rows {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		if i < len(rows)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	path := filepath.Clean(expectedFile)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestNormalizeProviderID(t *testing.T) {
	cases := map[string]string{
		" Anthropic ": "anthropic", "z.ai": "zai", "Z-AI": "zai", "modelstudio": "qwen", "qwencloud": "qwen",
		"opencode-zen": "opencode", "opencode-go-auth": "opencode-go", "kimi-code": "kimi", "kimi-coding": "kimi",
		"bedrock": "amazon-bedrock", "aws-bedrock": "amazon-bedrock", "doubao": "volcengine", "bytedance": "volcengine",
		"moonshotai": "moonshotai", "": "",
	}
	for in, want := range cases {
		if got := NormalizeProviderID(in); got != want {
			t.Errorf("NormalizeProviderID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestModelDetectors(t *testing.T) {
	preserve := map[string]bool{
		"claude-sonnet-4-5": true, "claude-opus-4-1": true, "anthropic.claude-haiku-4-5": true, "claude-5-x": true,
		"claude-12": true, "claude-3-7-sonnet-20250219": false, "claude-3-5-sonnet": false, "gpt-5": false, "Claude-2.1": false,
	}
	for id, want := range preserve {
		if got := ShouldPreserveThinkingBlocks(id); got != want {
			t.Errorf("ShouldPreserveThinkingBlocks(%q) = %v", id, got)
		}
	}
	gemma := map[string]bool{"gemma4:27b": true, "google/gemma-4-31b-it": true, "gemma_4": true, "gemma4": true, "gemma-3-27b": false, "gemma40": false, "xgemma4": false}
	for id, want := range gemma {
		if got := IsGemma4Model(id); got != want {
			t.Errorf("IsGemma4Model(%q) = %v", id, got)
		}
	}
}

// TestTableCoversFamilies: every family of the issue resolves through the
// table, and unknown providers fall back by api.
func TestTableCoversFamilies(t *testing.T) {
	want := map[string]string{
		"anthropic": "native-anthropic-by-model", "openai": "openai", "openai-codex": "openai",
		"google": "google-gemini", "google-gemini-cli": "google-gemini", "google-vertex": "google-gemini",
		"amazon-bedrock": "anthropic-by-model", "mistral": "mistral", "openrouter": "passthrough-gemini",
		"minimax": "hybrid-anthropic-openai", "github-copilot": "github-copilot", "ollama": "ollama",
		"vllm": "fallback", "lmstudio": "fallback", "azure-openai-responses": "fallback", "google-antigravity": "fallback",
	}
	for p, fam := range want {
		if got := Resolve(Route{Provider: p, API: "openai-completions", Model: "m"}).Family; got != fam {
			t.Errorf("family of %q = %q, want %q", p, got, fam)
		}
	}
}

// The alias list oc prints for an unknown --provider is the one
// NormalizeProviderID applies.
func TestProviderAliasesNormalize(t *testing.T) {
	aliases := ProviderAliases()
	if len(aliases) < 12 {
		t.Fatalf("want the 12 built-in aliases, got %d", len(aliases))
	}
	for _, a := range aliases {
		if got := NormalizeProviderID(a[0]); got != a[1] {
			t.Errorf("NormalizeProviderID(%q) = %q, ProviderAliases says %q", a[0], got, a[1])
		}
	}
	if len(KnownProviders()) < 20 {
		t.Errorf("KnownProviders lists %d", len(KnownProviders()))
	}
}
