package replay

import (
	"errors"
	"fmt"
	"time"

	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// PayloadInput is what BuildPayload needs.
type PayloadInput struct {
	// Release is the OpenClaw release whose LLM boundary and renderers run
	// (zero: 2026.5.6).
	Release policy.Release
	// Location is the time zone 2026.9.6 stamps user turns in (nil: UTC,
	// as the oracle runs with TZ=UTC). 2026.5.6 ignores it.
	Location *time.Location
	// Now gives Date.now() in milliseconds where a release needs the clock
	// (nil: the clock).
	Now func() int64
	// SessionVersion is the transcript header's version, which 2026.9.6's
	// boundary reads (usesEscapedRuntimeContext): 0 (unknown) or 3 leave
	// runtime context as stored, 4 projects it; other values are an error
	// there, as in OpenClaw. 2026.5.6 ignores it.
	SessionVersion int
	// ModelOverrides is a JSON object whose members replace those of the
	// model record (the oracle's ORACLE_MODEL_JSON; nil: none).
	ModelOverrides []byte
	Provider       string // provider id, e.g. "anthropic", "openrouter"
	API            string // API family, e.g. "anthropic-messages" (see APIs)
	Model          string // model id
	// Messages is the sanitized message list the runner hands the model
	// (the oracle's sanitize `limited`); it is not modified.
	Messages []Message
	// SystemPrompt is the system prompt ("" for none, as the oracle's default).
	SystemPrompt string
	// Reasoning marks a model pi-ai does not know as a reasoning model (the
	// oracle's ORACLE_REASONING=1); known models use pi-ai's own flag.
	Reasoning bool
}

// Payload is a provider wire body. AppendJSON writes the exact bytes
// pi-ai hands the provider SDK (the oracle's `payload` output); do not
// json.Marshal it (Go's encoder escapes <, > and & and knows no key order).
type Payload struct {
	Body *jsvalue.Object
}

// AppendJSON appends the body exactly as JSON.stringify writes it.
func (p *Payload) AppendJSON(dst []byte) ([]byte, error) {
	return jsvalue.AppendJS(dst, p.Body)
}

// APIs lists the API families BuildPayload renders for 2026.5.6 (a new
// slice each call); policy.WireAPIs gives each release's.
func APIs() []string {
	return []string{
		"anthropic-messages",
		"openai-completions",
		"openai-responses",
		"openai-codex-responses",
		"google-generative-ai",
		"bedrock-converse-stream",
		"mistral-conversations",
		"azure-openai-responses",
		"google-vertex",
	}
}

// ErrNoWireBody is wrapped by BuildPayload's error for an API family that
// has no HTTP request body in OpenClaw 2026.5.6 (google-gemini-cli): the
// oracle has none either. Callers may show it as "no wire body" rather than
// as a failure.
var ErrNoWireBody = errors.New("no wire body")

// unrenderedReason says why an API family has no wire body in OpenClaw
// 2026.5.6 ("" when it is not one of those).
func unrenderedReason(api string) string {
	switch api {
	case "google-gemini-cli":
		// pi-ai 0.73 removed its Cloud Code Assist provider (pi-coding-agent
		// 0.73.0 changelog: "Removed built-in Google Gemini CLI and Google
		// Antigravity support") and OpenClaw registers no stream for this
		// api: it runs Gemini CLI models through the `gemini` command-line
		// backend. The oracle answers "No API provider registered for api:
		// google-gemini-cli" for google-gemini-cli and google-antigravity.
		return "OpenClaw 2026.5.6 runs the gemini CLI for this api; pi-ai 0.73 has no provider for it"
	case "ollama":
		// OpenClaw's bundled Ollama plugin streams these turns itself, to
		// Ollama's native /api/chat (createOllamaStreamFn and
		// convertToOllamaMessages in dist/stream-*.js), with options taken
		// from the configured model (num_ctx, ...). pi-ai has no provider
		// for the api, so the oracle's payload capture answers "No API
		// provider registered for api: ollama": there is no body to compare
		// a rendering with, and oc shows none.
		return "OpenClaw 2026.5.6 sends api \"ollama\" turns through its Ollama plugin to Ollama's native /api/chat, built from the sanitized messages with options from the configured model; that body is outside pi-ai and cannot be captured to check a rendering against, so oc does not render one"
	}
	return ""
}

// How cmd/replay.go is expected to call it:
//
//	msgs, err := replay.DecodeMessages(raw, true) // the context messages, objects in JavaScript's order
//	limited := ...sanitize pipeline(msgs)...      // copies messages shallowly
//	p, err := replay.BuildPayload(replay.PayloadInput{Provider: p, API: a, Model: m, Messages: limited})
//	b, err := p.AppendJSON(nil)                   // the oracle's bytes
//
// Every object carries its own member order, so JSON.stringify of tool-call
// `arguments` inside a body writes them as OpenClaw does, whatever copies
// the pipeline made.
//
// BuildPayload returns the request body the OpenClaw release in.Release
// sends for in.Messages, as that release's oracle's `payload` mode computes
// it (with no tools and default options). 2026.5.6 (the zero Release), through
// pi-ai: runtime-context messages from earlier turns dropped, pi's
// convertToLlm, then the API family's converter. 2026.9.6: its LLM boundary
// (sanitize96.Boundary: timestamps in in.Location, inbound metadata, runtime
// context, the malformed-tool-call stream wrapper), the oracle's minimal
// model record with in.ModelOverrides, then @openclaw/ai's converter
// (package wire). The per-release steps are a table (payload_release.go).
//
// It fails where the release would throw instead of sending (a malformed
// message, an image type Bedrock does not know, an unparseable 5.6 Responses
// reasoning signature, ...), for an API the release does not build
// (ErrNoWireBody, ErrNotBuiltIn) and for input oc cannot reproduce (9.6:
// a user turn with persisted media and no text).
func BuildPayload(in PayloadInput) (*Payload, error) {
	rel, err := payloadReleaseFor(in.Release)
	if err != nil {
		return nil, err
	}
	if !rel.renderers.Builds(in.API) {
		return nil, rel.unbuilt(in.API)
	}
	model, err := rel.model(&in)
	if err != nil {
		return nil, fmt.Errorf("payload for %s/%s/%s: %w", in.Provider, in.API, in.Model, err)
	}
	msgs, err := rel.boundary(&in)
	if err != nil {
		return nil, fmt.Errorf("payload for %s/%s/%s: %w", in.Provider, in.API, in.Model, err)
	}
	body, err := rel.renderers.Render(in.API, msgs, in.SystemPrompt, &model)
	if err != nil {
		return nil, fmt.Errorf("payload for %s/%s/%s: %w", in.Provider, in.API, in.Model, err)
	}
	return &Payload{Body: body}, nil
}
