package replay

import (
	"errors"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/pkg/replay/wire"
)

// Unit tests for the API families added after the first seven:
// azure-openai-responses, google-vertex, and google-gemini-cli (no body).
// Each uses the smallest input for one rule of pi-ai 0.73's
// azure-openai-responses.js / google-vertex.js.

const (
	azureT  = "azure-openai-responses|azure-openai-responses|gpt-5"
	vertexT = "google-vertex|google-vertex|gemini-2.5-pro"
)

func TestRenderAzureBodyBytes(t *testing.T) {
	// model, input, stream; no store (openai-responses sends store:false);
	// the system prompt goes first as a developer item for reasoning models.
	p, err := payloadOf(t, azureT, `[{"role":"user","content":"q"}]`, system("sys"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"gpt-5","input":[{"role":"developer","content":"sys"},{"role":"user","content":[{"type":"input_text","text":"q"}]}],"stream":true}`
	if string(got) != want {
		t.Errorf("azure body:\n got %s\nwant %s", got, want)
	}
}

func TestRenderAzureReasoningEffortFromOffLevel(t *testing.T) {
	for _, tc := range []struct {
		triple    string
		reasoning bool
		want      string // "" for no reasoning field
	}{
		{azureT, false, ""}, // gpt-5: off is null
		{"azure-openai-responses|azure-openai-responses|o3", false, `{"effort":"none"}`}, // reasoning, no off level
		{"azure-openai-responses|azure-openai-responses|gpt-4o-mini", false, ""},         // not a reasoning model
		{"azure-openai-responses|azure-openai-responses|my-deployment", true, `{"effort":"none"}`},
		{"github-copilot|azure-openai-responses|my-model", true, `{"effort":"none"}`}, // no github-copilot exception on Azure
	} {
		b := body(t, tc.triple, `[{"role":"user","content":"q"}]`, func(in *PayloadInput) { in.Reasoning = tc.reasoning })
		r, ok := b["reasoning"]
		switch {
		case tc.want == "" && ok:
			t.Errorf("%s: unexpected reasoning %v", tc.triple, r)
		case tc.want != "" && !ok:
			t.Errorf("%s: no reasoning field, want %s", tc.triple, tc.want)
		case tc.want != "":
			assertJSON(t, tc.triple+" reasoning", r, tc.want)
		}
		if _, ok := b["store"]; ok {
			t.Errorf("%s: azure sends no store field", tc.triple)
		}
	}
}

func TestRenderAzureKeepsToolCallIDPairsForItsOwnProvider(t *testing.T) {
	// A foreign "call|item" id: azure-openai-responses is in Azure's
	// allowedToolCallProviders, so the pair is kept and the item id hashed;
	// another provider on the same api (not in the set) gets one flat id.
	msgs := `[` + otherAsst(`[{"type":"toolCall","id":"call.a|item/b","name":"f","arguments":{}}]`) + `,
		{"role":"toolResult","toolCallId":"call.a|item/b","toolName":"f","content":[{"type":"text","text":"r"}]}]`
	b := body(t, azureT, msgs)
	hashed := "fc_" + wire.ShortHash("item/b")
	assertJSON(t, "azure input", b["input"], `[
		{"type":"function_call","id":"`+hashed+`","call_id":"call_a","name":"f","arguments":"{}"},
		{"type":"function_call_output","call_id":"call_a","output":"r"}]`)

	b = body(t, "azure-openai|azure-openai-responses|gpt-5", msgs)
	assertJSON(t, "other provider input", b["input"], `[
		{"type":"function_call","call_id":"call_a_item_b","name":"f","arguments":"{}"},
		{"type":"function_call_output","call_id":"call_a_item_b","output":"r"}]`)
}

func TestRenderAzureOwnTurnsKeepItemIDs(t *testing.T) {
	// Same provider and api: ids are not foreign, so the item id is kept
	// (cleaned); another model of the same provider and api drops fc_ ids.
	own := `{"role":"assistant","provider":"azure-openai-responses","api":"azure-openai-responses","model":"gpt-5","stopReason":"toolUse",
		"content":[{"type":"toolCall","id":"call_1|fc_1","name":"f","arguments":{"a":1}}]}`
	b := body(t, azureT, `[`+own+`,{"role":"toolResult","toolCallId":"call_1|fc_1","toolName":"f","content":[]}]`)
	assertJSON(t, "same model", b["input"].([]any)[0], `{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{\"a\":1}"}`)

	other := strings.Replace(own, `"model":"gpt-5"`, `"model":"gpt-5-mini"`, 1)
	b = body(t, azureT, `[`+other+`,{"role":"toolResult","toolCallId":"call_1|fc_1","toolName":"f","content":[]}]`)
	assertJSON(t, "other model", b["input"].([]any)[0], `{"type":"function_call","call_id":"call_1","name":"f","arguments":"{\"a\":1}"}`)
}

func TestRenderVertexIsGoogleBodyForVertexModel(t *testing.T) {
	p, err := payloadOf(t, vertexT, `[{"role":"user","content":"q"}]`, system("sys"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := p.AppendJSON(nil)
	want := `{"model":"gemini-2.5-pro","contents":[{"role":"user","parts":[{"text":"q"}]}],"config":{"systemInstruction":"sys"}}`
	if string(got) != want {
		t.Errorf("vertex body:\n got %s\nwant %s", got, want)
	}
}

func TestRenderVertexSameModelIsProviderAndModel(t *testing.T) {
	// A google (AI Studio) turn of the same model id is another model for
	// google-vertex: its thinking becomes text and its signatures go.
	turn := func(provider, api string) string {
		return `{"role":"assistant","provider":"` + provider + `","api":"` + api + `","model":"gemini-2.5-pro","stopReason":"stop","content":[
			{"type":"thinking","thinking":"t","thinkingSignature":"c2ln"},
			{"type":"toolCall","id":"c1","name":"f","arguments":{},"thoughtSignature":"dGhvdWdodA=="}]}`
	}
	result := `{"role":"toolResult","toolCallId":"c1","toolName":"f","content":[{"type":"text","text":"r"}]}`
	b := body(t, vertexT, `[`+turn("google-vertex", "google-vertex")+`,`+result+`]`)
	assertJSON(t, "own turn", b["contents"].([]any)[0], `{"role":"model","parts":[
		{"thought":true,"text":"t","thoughtSignature":"c2ln"},
		{"functionCall":{"name":"f","args":{}},"thoughtSignature":"dGhvdWdodA=="}]}`)
	b = body(t, vertexT, `[`+turn("google", "google-generative-ai")+`,`+result+`]`)
	assertJSON(t, "google turn", b["contents"].([]any)[0], `{"role":"model","parts":[
		{"text":"t"},{"functionCall":{"name":"f","args":{}}}]}`)
}

func TestPayloadGeminiCLIHasNoWireBody(t *testing.T) {
	for _, tr := range []string{"google-gemini-cli|google-gemini-cli|gemini-2.5-pro", "google-antigravity|google-gemini-cli|gemini-3-pro-high"} {
		_, err := payloadOf(t, tr, `[{"role":"user","content":"q"}]`)
		if err == nil {
			t.Fatalf("%s: want an error (pi-ai 0.73 has no provider for google-gemini-cli)", tr)
		}
		if !errors.Is(err, ErrNoWireBody) {
			t.Errorf("%s: want ErrNoWireBody, got %v", tr, err)
		}
		if msg := err.Error(); !strings.Contains(msg, `"google-gemini-cli"`) || !strings.Contains(msg, "gemini CLI") {
			t.Errorf("%s: error should name the api and say why: %v", tr, msg)
		}
	}
}
