package replay

import (
	"fmt"
	"reflect"
	"sort"

	"github.com/openclaw-tools/oc/pkg/policy"
)

// What `oc replay` needs to know about a release besides its rules: how it
// names a route, and which APIs it no longer builds itself.

// RouteForRelease is the route as the release names it. 2026.9.6 renamed
// the api openai-codex-responses to openai-chatgpt-responses, served by the
// provider openai (its import rewrites stored messages so); a route of a
// 2026.9.6 session replayed with 2026.5.6's rules is renamed back.
func RouteForRelease(rel policy.Release, r ResolvedRoute) ResolvedRoute {
	if rel == policy.Release96 {
		if r.API == "openai-codex-responses" {
			r.API = "openai-chatgpt-responses"
			if policy.NormalizeProviderID(r.Provider) == "openai-codex" {
				r.Provider = "openai"
			}
		}
		return r
	}
	if r.API == "openai-chatgpt-responses" {
		r.API = "openai-codex-responses"
		if policy.NormalizeProviderID(r.Provider) == "openai" {
			r.Provider = "openai-codex"
		}
	}
	return r
}

// NotBuiltInError says that a release does not build requests for an api an
// earlier release built: the provider became an installable plugin, whose
// rules oc cannot see (2026.9.6: bedrock-converse-stream). oc does not
// guess them.
type NotBuiltInError struct {
	Release policy.Release
	API     string
}

func (e *NotBuiltInError) Error() string {
	return fmt.Sprintf("api %s is not built into OpenClaw %s (a plugin): its replay rules and wire body come from the plugin, which oc does not reproduce", e.API, e.Release)
}

// CheckBuiltIn returns a *NotBuiltInError when rel no longer builds api
// itself though an earlier release did; nil otherwise, also for apis no
// release builds (their absence is reported by BuildPayload).
func CheckBuiltIn(rel policy.Release, api string) error {
	if policy.BuildsAPI(rel, api) {
		return nil
	}
	for _, r := range policy.Releases() {
		if r == policy.Release(rel.String()) {
			break
		}
		if policy.BuildsAPI(r, api) {
			return &NotBuiltInError{Release: policy.Release(rel.String()), API: api}
		}
	}
	return nil
}

// WireCount is how many entries the wire body's conversation list holds:
// "messages" (Anthropic, OpenAI Chat Completions, Bedrock, Mistral),
// "contents" (Gemini) or "input" (Responses: messages and tool items).
type WireCount struct {
	Field string `json:"field"`
	Count int    `json:"count"`
}

// CountWire finds the conversation list of a wire body.
func CountWire(p *Payload) *WireCount {
	if p == nil || p.Body == nil {
		return nil
	}
	for _, field := range []string{"messages", "contents", "input"} {
		v, ok := p.Body.Lookup(field)
		if !ok || v == nil {
			continue
		}
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice {
			return &WireCount{Field: field, Count: rv.Len()}
		}
	}
	return nil
}

// ChangesByKind counts changes by Change.Kind.
func ChangesByKind(changes []Change) map[string]int {
	out := map[string]int{}
	for _, c := range changes {
		out[c.Kind]++
	}
	return out
}

// RulesFired lists the rules that changed something, in the order they
// first did.
func RulesFired(changes []Change) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, c := range changes {
		if !seen[c.Rule] {
			seen[c.Rule] = true
			out = append(out, c.Rule)
		}
	}
	return out
}

// sortedKeys is m's keys, sorted.
func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ReleaseDifferences says, in short sentences, what changed for one
// provider between two releases' replays of the same session (a is the
// older release): the route, whether the release builds it, the messages
// handed to the model and put on the wire, the changes by kind, the rules
// that fired in only one of them, the likely rejections and the wire body.
func ReleaseDifferences(a, b ReplayRow) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	ra, rb := a.Route, b.Route
	if ra.Provider != rb.Provider || ra.API != rb.API || ra.Model != rb.Model {
		add("route: %s/%s/%s in %s, %s/%s/%s in %s", ra.Provider, ra.API, ra.Model, a.OpenClaw, rb.Provider, rb.API, rb.Model, b.OpenClaw)
	}
	if a.NotBuiltIn != "" || b.NotBuiltIn != "" || a.Fails != "" || b.Fails != "" {
		for _, r := range []ReplayRow{a, b} {
			switch {
			case r.NotBuiltIn != "":
				add("%s: not built into OpenClaw %s (a plugin): not compared", r.Route.API, r.OpenClaw)
			case r.Fails != "":
				add("OpenClaw %s fails and sends nothing: %s", r.OpenClaw, r.Fails)
			}
		}
		return out
	}
	if a.Family != b.Family {
		add("policy family: %s in %s, %s in %s", a.Family, a.OpenClaw, b.Family, b.OpenClaw)
	}
	if a.MessagesSent != b.MessagesSent {
		add("messages handed to the model: %d in %s, %d in %s", a.MessagesSent, a.OpenClaw, b.MessagesSent, b.OpenClaw)
	}
	switch {
	case a.Wire == nil || b.Wire == nil || *a.Wire == *b.Wire:
	case a.Wire.Field == b.Wire.Field:
		add("wire body (%s): %d entries in %s, %d in %s", a.Wire.Field, a.Wire.Count, a.OpenClaw, b.Wire.Count, b.OpenClaw)
	default:
		add("wire body: %s %d in %s, %s %d in %s", a.Wire.Field, a.Wire.Count, a.OpenClaw, b.Wire.Field, b.Wire.Count, b.OpenClaw)
	}
	kinds := map[string]int{}
	for k := range a.ByKind {
		kinds[k]++
	}
	for k := range b.ByKind {
		kinds[k]++
	}
	for _, k := range sortedKeys(kinds) {
		if a.ByKind[k] != b.ByKind[k] {
			add("%s: %d in %s, %d in %s", k, a.ByKind[k], a.OpenClaw, b.ByKind[k], b.OpenClaw)
		}
	}
	if only := missingFrom(b.Rules, a.Rules); len(only) > 0 {
		add("rules that changed something only in %s: %s", a.OpenClaw, joinComma(only))
	}
	if only := missingFrom(a.Rules, b.Rules); len(only) > 0 {
		add("rules that changed something only in %s: %s", b.OpenClaw, joinComma(only))
	}
	switch pa, pb := len(a.Problems) > 0, len(b.Problems) > 0; {
	case pa && !pb:
		add("likely rejected under %s (%s), no known cause of rejection under %s", a.OpenClaw, a.Problems[0], b.OpenClaw)
	case pb && !pa:
		add("no known cause of rejection under %s, likely rejected under %s (%s)", a.OpenClaw, b.OpenClaw, b.Problems[0])
	}
	switch {
	case (a.PayloadError == "") != (b.PayloadError == ""):
		for _, r := range []ReplayRow{a, b} {
			if r.PayloadError != "" {
				add("no wire body in %s: %s", r.OpenClaw, r.PayloadError)
			}
		}
	case a.PayloadError == "" && a.bodyHash != [32]byte{} && b.bodyHash != [32]byte{} && a.bodyHash != b.bodyHash:
		add("the wire bodies differ (oc replay SESSION --provider %s --openclaw RELEASE shows each)", b.Route.Provider)
	}
	return out
}

// missingFrom lists the members of list that are not in of, in order.
func missingFrom(of, list []string) []string {
	have := map[string]bool{}
	for _, s := range of {
		have[s] = true
	}
	var out []string
	for _, s := range list {
		if !have[s] {
			out = append(out, s)
		}
	}
	return out
}

func joinComma(list []string) string {
	s := ""
	for i, v := range list {
		if i > 0 {
			s += ", "
		}
		s += v
	}
	return s
}
