package replay

import (
	"errors"
	"testing"

	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

func TestCheckBuiltIn(t *testing.T) {
	cases := []struct {
		rel     policy.Release
		api     string
		missing bool
	}{
		{policy.Release96, "bedrock-converse-stream", true},
		{policy.Release56, "bedrock-converse-stream", false},
		{"", "bedrock-converse-stream", false},
		{policy.Release96, "anthropic-messages", false},
		{policy.Release56, "openai-chatgpt-responses", false}, // newer, not removed
		{policy.Release96, "google-gemini-cli", false},        // no release builds it
		{policy.Release96, "no-such-api", false},
	}
	for _, c := range cases {
		err := CheckBuiltIn(c.rel, c.api)
		var nb *NotBuiltInError
		if got := errors.As(err, &nb); got != c.missing {
			t.Errorf("%s %s: %v, want not built in %v", c.rel, c.api, err, c.missing)
		}
	}
}

func TestRouteForRelease(t *testing.T) {
	codex := ResolvedRoute{Provider: "openai-codex", API: "openai-codex-responses", Model: "gpt-5.5", Source: "default"}
	chatgpt := ResolvedRoute{Provider: "openai", API: "openai-chatgpt-responses", Model: "gpt-5.5", Source: "default"}
	if got := RouteForRelease(policy.Release96, codex); got != chatgpt {
		t.Errorf("9.6: %+v", got)
	}
	if got := RouteForRelease(policy.Release56, chatgpt); got != codex {
		t.Errorf("5.6: %+v", got)
	}
	for _, rel := range policy.Releases() {
		r := ResolvedRoute{Provider: "anthropic", API: "anthropic-messages", Model: "claude-sonnet-4-5"}
		if got := RouteForRelease(rel, r); got != r {
			t.Errorf("%s renamed %+v to %+v", rel, r, got)
		}
	}
}

func TestReleaseDifferences(t *testing.T) {
	a := ReplayRow{OpenClaw: policy.Release56, Summary: Summary{Route: ResolvedRoute{Provider: "anthropic", API: "anthropic-messages", Model: "m"}, Family: "f", MessagesSent: 15, Problems: []string{}},
		ByKind: map[string]int{sanitize.KindIDRewritten: 2}, Rules: []string{"x", "y"}, Wire: &WireCount{"messages", 15}}
	b := a
	b.OpenClaw, b.MessagesSent, b.ByKind, b.Rules, b.Wire = policy.Release96, 7, map[string]int{sanitize.KindMessagesMerged: 8}, []string{"y", "z"}, &WireCount{"messages", 7}
	a.bodyHash, b.bodyHash = [32]byte{1}, [32]byte{2}
	got := ReleaseDifferences(a, b)
	want := []string{
		"messages handed to the model: 15 in 2026.5.6, 7 in 2026.9.6",
		"wire body (messages): 15 entries in 2026.5.6, 7 in 2026.9.6",
		"id-rewritten: 2 in 2026.5.6, 0 in 2026.9.6",
		"messages-merged: 0 in 2026.5.6, 8 in 2026.9.6",
		"rules that changed something only in 2026.5.6: x",
		"rules that changed something only in 2026.9.6: z",
		"the wire bodies differ (oc replay SESSION --provider anthropic --openclaw RELEASE shows each)",
	}
	if len(got) != len(want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: %q, want %q", i, got[i], want[i])
		}
	}
	if d := ReleaseDifferences(a, a); len(d) != 0 || !SameWireBody(a, a) {
		t.Errorf("same row: %q", d)
	}
	nb := b
	nb.NotBuiltIn = "x"
	if d := ReleaseDifferences(a, nb); len(d) != 1 {
		t.Errorf("not built in: %q", d)
	}
}
