package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// Route selection for `oc replay`: which api and model a provider is
// previewed with when the operator names only the provider.

// RouteDefault is the documented default api and model of a provider,
// used when the transcript has no turn of that provider.
type RouteDefault struct {
	Provider string
	API      string
	Model    string
}

// routeDefaults lists the providers `oc replay --provider all` compares,
// one per replay family, with their default api and model.
func routeDefaults() []RouteDefault {
	return []RouteDefault{
		{"anthropic", "anthropic-messages", "claude-sonnet-4-5"},
		{"openai", "openai-responses", "gpt-5"},
		{"openai-codex", "openai-codex-responses", "gpt-5.5"},
		{"azure-openai-responses", "azure-openai-responses", "gpt-5"},
		{"google", "google-generative-ai", "gemini-2.5-pro"},
		{"google-gemini-cli", "google-gemini-cli", "gemini-2.5-pro"},
		{"google-antigravity", "google-gemini-cli", "gemini-3-pro-high"},
		{"google-vertex", "google-vertex", "gemini-2.5-pro"},
		{"amazon-bedrock", "bedrock-converse-stream", "anthropic.claude-sonnet-4-5"},
		{"mistral", "mistral-conversations", "mistral-large-latest"},
		{"openrouter", "openai-completions", "google/gemini-2.5-pro"},
		{"minimax", "anthropic-messages", "MiniMax-M2"},
		{"github-copilot", "openai-completions", "claude-sonnet-4.5"},
		{"ollama", "openai-completions", "gemma4:27b"},
	}
}

// extraDefaults are providers outside the comparison table with a known
// default route.
func extraDefaults() []RouteDefault {
	return []RouteDefault{
		{"anthropic-vertex", "anthropic-messages", "claude-sonnet-4-5"},
		{"azure-openai", "azure-openai-responses", "gpt-5"},
		{"xai", "openai-completions", "grok-4"},
		{"deepseek", "openai-completions", "deepseek-chat"},
		{"moonshot", "openai-completions", "kimi-k2.6"},
		{"zai", "openai-completions", "glm-4.6"},
		{"minimax-portal", "anthropic-messages", "MiniMax-M2"},
		{"vllm", "openai-completions", "Qwen3-32B"},
		{"lmstudio", "openai-completions", "google/gemma-4-12b"},
	}
}

// ComparedProviders is the list `--provider all` walks.
func ComparedProviders() []RouteDefault { return routeDefaults() }

// RouteDefaults is every provider with a documented default route.
func RouteDefaults() []RouteDefault { return append(routeDefaults(), extraDefaults()...) }

// ResolvedRoute is the route a preview uses and where its parts came from.
type ResolvedRoute struct {
	Provider string `json:"provider"`
	API      string `json:"api"`
	Model    string `json:"model"`
	// Source says how api and model were chosen: "flags", "transcript" (the
	// latest assistant turn of that provider) or "default".
	Source string `json:"source"`
}

// ResolveRoute fills in api and model for provider: explicit values win,
// then the transcript's latest assistant turn of the same provider, then
// the documented default. It fails when nothing names them.
func ResolveRoute(provider, api, model string, msgs []Message) (ResolvedRoute, error) {
	r := ResolvedRoute{Provider: provider, API: api, Model: model, Source: "flags"}
	if api != "" && model != "" {
		return r, nil
	}
	want := policy.NormalizeProviderID(provider)
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if jsvalue.Role(m) != "assistant" || policy.NormalizeProviderID(jsvalue.StringOrEmpty(m, "provider")) != want {
			continue
		}
		a, mo := jsvalue.StringOrEmpty(m, "api"), jsvalue.StringOrEmpty(m, "model")
		if (api == "" && a == "") || (model == "" && mo == "") {
			continue
		}
		if r.API == "" {
			r.API = a
		}
		if r.Model == "" {
			r.Model = mo
		}
		r.Source = "transcript"
		return r, nil
	}
	for _, d := range RouteDefaults() {
		if policy.NormalizeProviderID(d.Provider) != want {
			continue
		}
		if r.API == "" {
			r.API = d.API
		}
		if r.Model == "" {
			r.Model = d.Model
		}
		r.Source = "default"
		return r, nil
	}
	return r, fmt.Errorf("provider %q: no turn of it in the transcript and no default route: give --api and --model", provider)
}

// Summary counts what the pipeline did, for one row of `--provider all`.
type Summary struct {
	Route            ResolvedRoute `json:"route"`
	Family           string        `json:"family"`
	ContextMessages  int           `json:"contextMessages"`
	MessagesSent     int           `json:"messagesSent"`
	IDsRewritten     int           `json:"idsRewritten"`
	BlocksDropped    int           `json:"blocksDropped"`
	MessagesDropped  int           `json:"messagesDropped"`
	SyntheticResults int           `json:"syntheticResults"`
	Changes          int           `json:"changes"`
	// Problems are what the provider would most likely reject in the
	// messages it is sent (empty: it should accept them).
	Problems []string `json:"problems"`
	// PayloadError is set when no wire body could be built; NoWireBody when
	// the api has none at all (OpenClaw runs a CLI for it).
	PayloadError string `json:"payloadError,omitempty"`
	NoWireBody   bool   `json:"noWireBody,omitempty"`
}

// Summarize counts a result's changes.
func Summarize(route ResolvedRoute, contextLen int, res *Result) Summary {
	s := Summary{Route: route, Family: policy.Resolve(policy.Route{Provider: route.Provider, API: route.API, Model: route.Model}).Family,
		ContextMessages: contextLen, MessagesSent: len(res.Limited), Changes: len(res.Changes), Problems: []string{}}
	for _, c := range res.Changes {
		switch c.Kind {
		case sanitize.KindIDRewritten:
			s.IDsRewritten++
		case sanitize.KindBlockDropped:
			s.BlocksDropped++
		case sanitize.KindMessageDropped:
			s.MessagesDropped++
		case sanitize.KindSyntheticResult:
			s.SyntheticResults++
		}
	}
	s.Problems = sanitize.CheckAcceptance(route.API, res.Limited, res.Policy)
	return s
}

// FindSession resolves the SESSION argument of `oc replay`: a transcript
// path ("-" for stdin), else a session id looked up as
// <stateDir>/agents/*/sessions/<id>.jsonl.
func FindSession(stateDir, arg string) (string, error) {
	if arg == "-" {
		return arg, nil
	}
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return arg, nil
	}
	if stateDir != "" && !strings.ContainsAny(arg, `/\`) {
		id := strings.TrimSuffix(arg, ".jsonl")
		matches, _ := filepath.Glob(filepath.Join(stateDir, "agents", "*", "sessions", id+".jsonl"))
		if len(matches) == 1 {
			return matches[0], nil
		}
		if len(matches) > 1 {
			return "", fmt.Errorf("%s: session id matches %d transcripts (%s, ...): give the path", arg, len(matches), matches[0])
		}
	}
	return "", fmt.Errorf("%s: no such transcript (a path, or a session id under %s/agents/*/sessions)", arg, stateDir)
}
