package sanitize

import (
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// R9: sanitizeToolCallInputs (src/agents/session-transcript-repair.ts,
// src/agents/tool-call-shared.ts), with what each release does its own way
// in a ToolInputRelease.

const (
	toolCallNameMaxChars = 64
)

var toolCallNameRE = lazyre.New(`^[A-Za-z0-9_:.-]+$`)

// AllowedNames is a normalised tool allow-list; nil means no list.
type AllowedNames map[string]bool

// NormalizeAllowedToolNames is the allow-list of the tool names, trimmed and
// lower-cased (nil: no list, also when no name is left).
func NormalizeAllowedToolNames(names []string) AllowedNames {
	if names == nil {
		return nil
	}
	set := AllowedNames{}
	for _, n := range names {
		if t := jsjson.Trim(n); t != "" {
			set[strings.ToLower(t)] = true
		}
	}
	if len(set) == 0 {
		return nil
	}
	return set
}

// IsAllowedToolCallName: a trimmed name of 1-64 chars from [A-Za-z0-9_:.-],
// in the allow-list when there is one.
func IsAllowedToolCallName(v any, allowed AllowedNames) bool {
	name, ok := v.(string)
	if !ok {
		return false
	}
	t := jsjson.Trim(name)
	if t == "" || jsjson.Len(t) > toolCallNameMaxChars || !toolCallNameRE().MatchString(t) {
		return false
	}
	return allowed == nil || allowed[strings.ToLower(t)]
}

// IsRawToolCallBlock: toolCall, toolUse or functionCall.
func IsRawToolCallBlock(b any) bool {
	bm, ok := b.(*jsvalue.Object)
	if !ok || bm == nil {
		return false
	}
	switch jsvalue.StringOrEmpty(bm, "type") {
	case "toolCall", "toolUse", "functionCall":
		return true
	}
	return false
}

// HasToolCallInput: the call has a present input or arguments member.
func HasToolCallInput(bm *jsvalue.Object) bool {
	return jsvalue.Present(bm, "input") || jsvalue.Present(bm, "arguments")
}

// ReplaySafeToolCalls: content has a tool call (isCall) and every one has
// input, a unique trimmed id and an allowed name, and needs no change for
// replay (needsChange is the release's test).
func ReplaySafeToolCalls(content []any, allowed AllowedNames, isCall func(any) bool, needsChange func(*jsvalue.Object) bool) bool {
	sawCall := false
	seen := map[string]bool{}
	for _, b := range content {
		if !isCall(b) {
			continue
		}
		bm := b.(*jsvalue.Object)
		sawCall = true
		id, _ := jsvalue.StringMember(bm, "id")
		id = jsjson.Trim(id)
		if !HasToolCallInput(bm) || id == "" || seen[id] || !IsAllowedToolCallName(bm.Get("name"), allowed) || needsChange(bm) {
			return false
		}
		seen[id] = true
	}
	return sawCall
}

// ToolCallsOf is extractToolCallsFromAssistant (readToolCall in 2026.9.6):
// the toolCall, toolUse and functionCall blocks with a non-empty string id.
func ToolCallsOf(m Message) []ToolOccurrence {
	content, ok := jsvalue.ArrayMember(m, "content")
	if !ok {
		return nil
	}
	var out []ToolOccurrence
	for i, b := range content {
		bm, ok := jsvalue.AsObject(b)
		if !ok || !IsOpenAIToolCallType(jsvalue.StringOrEmpty(bm, "type")) {
			continue
		}
		id, ok := jsvalue.StringMember(bm, "id")
		if !ok || id == "" {
			continue
		}
		var name any
		if s, ok := jsvalue.StringMember(bm, "name"); ok {
			name = s
		}
		out = append(out, ToolOccurrence{ID: id, Name: name, contentIndex: i})
	}
	return out
}

// ToolOccurrence is one tool call of an assistant turn (and, in 2026.9.6's
// pairing repair, the result found for it).
type ToolOccurrence struct {
	ID           string
	Name         any // the block's name when a string, else nil
	Result       Message
	Source       Message
	SourceIndex  int
	contentIndex int
}

// ToolInputOptions is what the run says to SanitizeToolCallInputs: the tool
// allow-list, and whether the route owns its thinking replay.
type ToolInputOptions struct {
	Allowed       AllowedNames
	OwnedThinking bool
}

// ToolInputRelease is what a release's sanitizeToolCallInputs does its own
// way.
type ToolInputRelease struct {
	// ObjectsOnly: messages that are not JavaScript objects are dropped
	// (2026.9.6).
	ObjectsOnly bool
	// IsCallBlock says which content blocks are tool calls.
	IsCallBlock func(b any) bool
	// KeepSignedTurn decides whether signed-thinking turn i of a route that
	// owns its thinking is kept byte for byte (or else dropped whole);
	// changed reports that keeping it still changes the list.
	KeepSignedTurn func(seen *ToolInputCalls, in []Message, i int, content []any, allowed AllowedNames) (keep, changed bool)
	// SanitizeCall is tool-call block j of message i: the block to keep
	// (keep false drops it) and whether it changed, logging what it did.
	SanitizeCall func(m Message, i, j int, bm *jsvalue.Object, allowed AllowedNames, log *ChangeLog) (next *jsvalue.Object, keep, changed bool)
	// ReplaceContent is m with its content replaced by next.
	ReplaceContent func(m Message, next []any) Message
	// NoteTurn, when set, records the calls of an assistant turn kept
	// other than as a signed-thinking turn.
	NoteTurn func(seen *ToolInputCalls, m Message)
}

// ToolInputCalls is what sanitizeToolCallInputs remembers of the tool calls
// it has passed.
type ToolInputCalls struct {
	// Preserved: ids of the calls of signed-thinking turns kept as they are.
	Preserved map[string]bool
	// Prior: ids of the calls of every assistant turn kept (2026.9.6).
	Prior map[string]bool
}

// SanitizeToolCallInputs drops tool calls that cannot be replayed (no input,
// no id, a name providers reject), trims names, and drops assistant turns
// left empty, as release rel does (2026.5.6 also redacts sessions_spawn
// attachments). Signed-thinking turns on provider-owned thinking routes are
// kept byte for byte or dropped whole.
func SanitizeToolCallInputs(in []Message, o ToolInputOptions, rel ToolInputRelease, log *ChangeLog) []Message {
	out := make([]Message, 0, len(in))
	changed := false
	seen := &ToolInputCalls{Preserved: map[string]bool{}, Prior: map[string]bool{}}
	for i, m := range in {
		if rel.ObjectsOnly && !IsJSObjectMessage(m) {
			changed = true
			log.Add(i, KindMessageDropped, "message that is not an object dropped")
			continue
		}
		content, ok := AssistantContent(m)
		if !ok {
			out = append(out, m)
			continue
		}
		calls, thinking := 0, false
		for _, b := range content {
			if rel.IsCallBlock(b) {
				calls++
			}
			thinking = thinking || IsThinkingBlock(b)
		}
		if o.OwnedThinking && thinking && calls > 0 {
			if keep, c := rel.KeepSignedTurn(seen, in, i, content, o.Allowed); keep {
				changed = changed || c
				out = append(out, m)
			} else {
				changed = true
				log.Add(i, KindMessageDropped, "signed-thinking turn with %s that would need changes dropped whole", CountNoun(calls, "tool call", "tool calls"))
			}
			continue
		}
		next := make([]any, 0, len(content))
		msgChanged := false
		for j, b := range content {
			if !rel.IsCallBlock(b) {
				next = append(next, b)
				continue
			}
			nb, keep, c := rel.SanitizeCall(m, i, j, b.(*jsvalue.Object), o.Allowed, log)
			msgChanged = msgChanged || c
			if keep {
				next = append(next, nb)
			}
		}
		if msgChanged {
			changed = true
			if len(next) == 0 {
				log.Add(i, KindMessageDropped, "assistant turn left empty after dropping tool calls")
				continue
			}
			m = rel.ReplaceContent(m, next)
		}
		if rel.NoteTurn != nil {
			rel.NoteTurn(seen, m)
		}
		out = append(out, m)
	}
	if !changed {
		return in
	}
	return out
}

// DescribeCall names a tool call for a change log: "name id", or "name
// name" without an id.
func DescribeCall(bm *jsvalue.Object) string {
	name, _ := jsvalue.StringMember(bm, "name")
	id, _ := jsvalue.StringMember(bm, "id")
	if id == "" {
		return "name " + name
	}
	return name + " " + id
}
