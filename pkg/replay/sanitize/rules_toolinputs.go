package sanitize

import (
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// R9: sanitizeToolCallInputs (src/agents/session-transcript-repair.ts,
// src/agents/tool-call-shared.ts).

const (
	toolCallNameMaxChars     = 64
	redactedAttachmentMarker = "__OPENCLAW_REDACTED__"
)

var toolCallNameRE = lazyre.New(`^[A-Za-z0-9_:.-]+$`)

// allowedNames is a normalised tool allow-list; nil means no list.
type allowedNames map[string]bool

func normalizeAllowedToolNames(names []string) allowedNames {
	if names == nil {
		return nil
	}
	set := allowedNames{}
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

// isAllowedToolCallName: a trimmed name of 1-64 chars from [A-Za-z0-9_:.-],
// in the allow-list when there is one.
func isAllowedToolCallName(v any, allowed allowedNames) bool {
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

// isRawToolCallBlock: toolCall, toolUse or functionCall.
func isRawToolCallBlock(b any) bool {
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

func hasToolCallInput(bm *jsvalue.Object) bool {
	return jsvalue.Present(bm, "input") || jsvalue.Present(bm, "arguments")
}

func isRedactedAttachment(item any) bool {
	m, ok := jsvalue.AsObject(item)
	if !ok || m.Get("content") != redactedAttachmentMarker {
		return false
	}
	for _, mb := range m.Members {
		if mb.Key == "content" {
			continue
		}
		allowed := false
		for _, mk := range attachmentMetadataKeys() {
			if mb.Key == mk {
				allowed = true
			}
		}
		s, isStr := mb.Value.(string)
		if !allowed || !isStr || jsjson.Blank(s) {
			return false
		}
	}
	return true
}

// attachmentMetadataKeys are the metadata members OpenClaw keeps on a
// sessions_spawn attachment it redacts, in its order.
func attachmentMetadataKeys() [3]string { return [3]string{"name", "encoding", "mimeType"} }

// redactAttachment is {content: marker, ...metadata} (the object literal's
// order).
func redactAttachment(item any) *jsvalue.Object {
	next := jsvalue.NewObject("content", redactedAttachmentMarker)
	if m, ok := jsvalue.AsObject(item); ok {
		for _, k := range attachmentMetadataKeys() {
			if s, ok := jsvalue.StringMember(m, k); ok && !jsjson.Blank(s) {
				next.Set(k, s)
			}
		}
	}
	return next
}

// redactSessionsSpawnArgs redacts attachment contents and the ACP fields
// resumeSessionId/streamTo; changed reports a new value (JavaScript
// identity, so present ACP fields always count).
func redactSessionsSpawnArgs(v any) (any, bool) {
	m, ok := jsvalue.AsObject(v)
	if !ok {
		return v, false
	}
	changed := false
	if raw, ok := m.Get("attachments").([]any); ok && raw != nil {
		var next []any
		for j, item := range raw {
			if isRedactedAttachment(item) {
				if next != nil {
					next = append(next, item)
				}
				continue
			}
			if next == nil {
				next = append(make([]any, 0, len(raw)), raw[:j]...)
			}
			next = append(next, redactAttachment(item))
		}
		if next != nil {
			m = m.With("attachments", next)
			changed = true
		}
	}
	for _, k := range []string{"resumeSessionId", "streamTo"} {
		if jsvalue.Has(m, k) {
			if !changed {
				m = m.Clone()
			}
			m.Set(k, redactedAttachmentMarker)
			changed = true
		}
	}
	return m, changed
}

func isSessionsSpawn(bm *jsvalue.Object) bool {
	n, _ := jsvalue.StringMember(bm, "name")
	return strings.ToLower(jsjson.Trim(n)) == "sessions_spawn"
}

// sanitizeToolCallBlock trims the name and, for sessions_spawn, redacts
// attachment payloads. changed follows JavaScript identity.
func sanitizeToolCallBlock(bm *jsvalue.Object) (*jsvalue.Object, bool) {
	raw, isStr := jsvalue.StringMember(bm, "name")
	trimmed := jsjson.Trim(raw)
	nameChanged := isStr && trimmed != "" && raw != trimmed
	if strings.ToLower(trimmed) != "sessions_spawn" || !isStr {
		if !nameChanged {
			return bm, false
		}
		return bm.With("name", trimmed), true
	}
	args, argsChanged := redactSessionsSpawnArgs(bm.Get("arguments"))
	input, inputChanged := redactSessionsSpawnArgs(bm.Get("input"))
	if !argsChanged && !inputChanged && !nameChanged {
		return bm, false
	}
	next := bm.Clone()
	if nameChanged {
		next.Set("name", trimmed)
	}
	if argsChanged || jsvalue.Has(bm, "arguments") {
		next.Set("arguments", args)
	}
	if inputChanged || jsvalue.Has(bm, "input") {
		next.Set("input", input)
	}
	return next, true
}

// isReplaySafeThinkingTurn: every tool call of a signed-thinking turn has
// input, a unique id, an allowed name and needs no rewrite.
func isReplaySafeThinkingTurn(content []any, allowed allowedNames) bool {
	sawCall := false
	seen := map[string]bool{}
	for _, b := range content {
		if !isRawToolCallBlock(b) {
			continue
		}
		bm := b.(*jsvalue.Object)
		sawCall = true
		id, _ := jsvalue.StringMember(bm, "id")
		id = jsjson.Trim(id)
		if !hasToolCallInput(bm) || id == "" || seen[id] || !isAllowedToolCallName(bm.Get("name"), allowed) {
			return false
		}
		seen[id] = true
		if _, changed := sanitizeToolCallBlock(bm); changed {
			return false
		}
	}
	return sawCall
}

// toolCallIDsOf is extractToolCallsFromAssistant: tool calls (toolCall,
// toolUse, functionCall) with a non-empty string id.
type toolCallRef struct {
	id      string
	name    string
	hasName bool
}

func toolCallsOf(m Message) []toolCallRef {
	content, ok := jsvalue.ArrayMember(m, "content")
	if !ok {
		return nil
	}
	var out []toolCallRef
	for _, b := range content {
		bm, ok := jsvalue.AsObject(b)
		if !ok {
			continue
		}
		id, ok := jsvalue.StringMember(bm, "id")
		if !ok || id == "" {
			continue
		}
		switch jsvalue.StringOrEmpty(bm, "type") {
		case "toolCall", "toolUse", "functionCall":
			name, hasName := jsvalue.StringMember(bm, "name")
			out = append(out, toolCallRef{id: id, name: name, hasName: hasName})
		}
	}
	return out
}

type toolInputOptions struct {
	allowed       allowedNames
	ownedThinking bool
}

// sanitizeToolCallInputs drops tool calls that cannot be replayed (no input,
// no id, a name providers reject), trims names, redacts sessions_spawn
// attachments, and drops assistant turns left empty. Signed-thinking turns
// on provider-owned thinking routes are kept byte for byte or dropped whole.
func sanitizeToolCallInputs(in []Message, o toolInputOptions, log *changeLog) []Message {
	out := make([]Message, 0, len(in))
	changed := false
	claimed := map[string]bool{}
	for i, m := range in {
		content, ok := assistantContent(m)
		if !ok {
			out = append(out, m)
			continue
		}
		calls := 0
		thinking := false
		for _, b := range content {
			if isRawToolCallBlock(b) {
				calls++
			}
			if isThinkingBlock(b) {
				thinking = true
			}
		}
		if o.ownedThinking && thinking && calls > 0 {
			refs := toolCallsOf(m)
			safe := isReplaySafeThinkingTurn(content, o.allowed)
			for _, r := range refs {
				if claimed[r.id] {
					safe = false
				}
			}
			if safe {
				for _, r := range refs {
					claimed[r.id] = true
				}
				out = append(out, m)
			} else {
				changed = true
				log.add(i, KindMessageDropped, "signed-thinking turn with %s that would need changes dropped whole", countNoun(calls, "tool call", "tool calls"))
			}
			continue
		}
		next := make([]any, 0, len(content))
		dropped := 0
		msgChanged := false
		for j, b := range content {
			if !isRawToolCallBlock(b) {
				next = append(next, b)
				continue
			}
			bm := b.(*jsvalue.Object)
			id, _ := jsvalue.StringMember(bm, "id")
			switch {
			case !hasToolCallInput(bm):
				dropped++
				log.add(i, KindBlockDropped, "tool call %d (%s) has no input", j, describeCall(bm))
				continue
			case jsjson.Blank(id):
				dropped++
				log.add(i, KindBlockDropped, "tool call %d (%s) has no id", j, describeCall(bm))
				continue
			case !isAllowedToolCallName(bm.Get("name"), o.allowed):
				dropped++
				log.add(i, KindBlockDropped, "tool call %d has an invalid name %q", j, jsvalue.StringOrEmpty(bm, "name"))
				continue
			}
			if isSessionsSpawn(bm) {
				s, c := sanitizeToolCallBlock(bm)
				if c {
					msgChanged = true
					log.add(i, KindContentChanged, "sessions_spawn tool call %d: attachments redacted", j)
				}
				next = append(next, s)
				continue
			}
			if name, ok := jsvalue.StringMember(bm, "name"); ok {
				if t := jsjson.Trim(name); t != name && t != "" {
					next = append(next, bm.With("name", t))
					msgChanged = true
					log.add(i, KindContentChanged, "tool call %d name trimmed to %q", j, t)
					continue
				}
			}
			next = append(next, b)
		}
		if dropped > 0 {
			changed = true
			if len(next) == 0 {
				log.add(i, KindMessageDropped, "assistant turn left empty after dropping tool calls")
				continue
			}
			out = append(out, m.With("content", next))
			continue
		}
		if msgChanged {
			changed = true
			out = append(out, m.With("content", next))
			continue
		}
		out = append(out, m)
	}
	if !changed {
		return in
	}
	return out
}

func describeCall(bm *jsvalue.Object) string {
	name, _ := jsvalue.StringMember(bm, "name")
	id, _ := jsvalue.StringMember(bm, "id")
	if id == "" {
		return "name " + name
	}
	return name + " " + id
}
