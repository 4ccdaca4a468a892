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

// replaySafeToolCalls: content has a tool call (isCall) and every one has
// input, a unique trimmed id and an allowed name, and needs no change for
// replay (needsChange is the release's test).
func replaySafeToolCalls(content []any, allowed allowedNames, isCall func(any) bool, needsChange func(*jsvalue.Object) bool) bool {
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
		if !hasToolCallInput(bm) || id == "" || seen[id] || !isAllowedToolCallName(bm.Get("name"), allowed) || needsChange(bm) {
			return false
		}
		seen[id] = true
	}
	return sawCall
}

// toolCallBlockChanges56: sanitizeToolCallBlock would change the block.
func toolCallBlockChanges56(bm *jsvalue.Object) bool {
	_, changed := sanitizeToolCallBlock(bm)
	return changed
}

// toolCallsOf is extractToolCallsFromAssistant (readToolCall in 2026.9.6):
// the toolCall, toolUse and functionCall blocks with a non-empty string id.
func toolCallsOf(m Message) []toolOccurrence {
	content, ok := jsvalue.ArrayMember(m, "content")
	if !ok {
		return nil
	}
	var out []toolOccurrence
	for i, b := range content {
		bm, ok := jsvalue.AsObject(b)
		if !ok || !isOpenAIToolCallType(jsvalue.StringOrEmpty(bm, "type")) {
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
		out = append(out, toolOccurrence{id: id, name: name, contentIndex: i})
	}
	return out
}

// toolOccurrence is one tool call of an assistant turn (and, in 2026.9.6's
// pairing repair, the result found for it).
type toolOccurrence struct {
	id           string
	name         any // the block's name when a string, else nil
	result       Message
	source       Message
	sourceIndex  int
	contentIndex int
}

// stringName is the call's name when it is a string.
func (c toolOccurrence) stringName() (string, bool) {
	s, ok := c.name.(string)
	return s, ok
}

type toolInputOptions struct {
	allowed       allowedNames
	ownedThinking bool
}

// toolInputRelease is what a release's sanitizeToolCallInputs does its own
// way.
type toolInputRelease struct {
	// objectsOnly: messages that are not JavaScript objects are dropped
	// (2026.9.6).
	objectsOnly bool
	// isCallBlock says which content blocks are tool calls.
	isCallBlock func(b any) bool
	// keepSignedTurn decides whether signed-thinking turn i of a route that
	// owns its thinking is kept byte for byte (or else dropped whole);
	// changed reports that keeping it still changes the list.
	keepSignedTurn func(seen *toolInputCalls, in []Message, i int, content []any, allowed allowedNames) (keep, changed bool)
	// sanitizeCall is tool-call block j of message i: the block to keep
	// (keep false drops it) and whether it changed, logging what it did.
	sanitizeCall func(m Message, i, j int, bm *jsvalue.Object, allowed allowedNames, log *changeLog) (next *jsvalue.Object, keep, changed bool)
	// replaceContent is m with its content replaced by next.
	replaceContent func(m Message, next []any) Message
	// noteTurn, when set, records the calls of an assistant turn kept
	// other than as a signed-thinking turn.
	noteTurn func(seen *toolInputCalls, m Message)
}

// toolInputCalls is what sanitizeToolCallInputs remembers of the tool calls
// it has passed.
type toolInputCalls struct {
	// preserved: ids of the calls of signed-thinking turns kept as they are.
	preserved map[string]bool
	// prior: ids of the calls of every assistant turn kept (2026.9.6).
	prior map[string]bool
}

// toolInputRelease56 is 2026.5.6's sanitizeToolCallInputs.
func toolInputRelease56() toolInputRelease {
	return toolInputRelease{
		isCallBlock:    isRawToolCallBlock,
		keepSignedTurn: keepSignedTurn56,
		sanitizeCall:   sanitizeToolCall56,
		replaceContent: func(m Message, next []any) Message { return m.With("content", next) },
	}
}

// keepSignedTurn56 keeps a replay-safe signed-thinking turn whose call ids
// no earlier kept turn claimed.
func keepSignedTurn56(seen *toolInputCalls, in []Message, i int, content []any, allowed allowedNames) (bool, bool) {
	refs := toolCallsOf(in[i])
	safe := replaySafeToolCalls(content, allowed, isRawToolCallBlock, toolCallBlockChanges56)
	for _, r := range refs {
		if seen.preserved[r.id] {
			safe = false
		}
	}
	if safe {
		for _, r := range refs {
			seen.preserved[r.id] = true
		}
	}
	return safe, false
}

// sanitizeToolCall56 drops a call without input, id or an allowed name,
// redacts sessions_spawn attachments and trims the name.
func sanitizeToolCall56(_ Message, i, j int, bm *jsvalue.Object, allowed allowedNames, log *changeLog) (*jsvalue.Object, bool, bool) {
	id, _ := jsvalue.StringMember(bm, "id")
	switch {
	case !hasToolCallInput(bm):
		log.add(i, KindBlockDropped, "tool call %d (%s) has no input", j, describeCall(bm))
		return nil, false, true
	case jsjson.Blank(id):
		log.add(i, KindBlockDropped, "tool call %d (%s) has no id", j, describeCall(bm))
		return nil, false, true
	case !isAllowedToolCallName(bm.Get("name"), allowed):
		log.add(i, KindBlockDropped, "tool call %d has an invalid name %q", j, jsvalue.StringOrEmpty(bm, "name"))
		return nil, false, true
	}
	if isSessionsSpawn(bm) {
		s, c := sanitizeToolCallBlock(bm)
		if c {
			log.add(i, KindContentChanged, "sessions_spawn tool call %d: attachments redacted", j)
		}
		return s, true, c
	}
	if name, ok := jsvalue.StringMember(bm, "name"); ok {
		if t := jsjson.Trim(name); t != name && t != "" {
			log.add(i, KindContentChanged, "tool call %d name trimmed to %q", j, t)
			return bm.With("name", t), true, true
		}
	}
	return bm, true, false
}

// sanitizeToolCallInputs drops tool calls that cannot be replayed (no input,
// no id, a name providers reject), trims names, and drops assistant turns
// left empty, as release rel does (2026.5.6 also redacts sessions_spawn
// attachments). Signed-thinking turns on provider-owned thinking routes are
// kept byte for byte or dropped whole.
func sanitizeToolCallInputs(in []Message, o toolInputOptions, rel toolInputRelease, log *changeLog) []Message {
	out := make([]Message, 0, len(in))
	changed := false
	seen := &toolInputCalls{preserved: map[string]bool{}, prior: map[string]bool{}}
	for i, m := range in {
		if rel.objectsOnly && !isJSObjectMessage(m) {
			changed = true
			log.add(i, KindMessageDropped, "message that is not an object dropped")
			continue
		}
		content, ok := assistantContent(m)
		if !ok {
			out = append(out, m)
			continue
		}
		calls, thinking := 0, false
		for _, b := range content {
			if rel.isCallBlock(b) {
				calls++
			}
			thinking = thinking || isThinkingBlock(b)
		}
		if o.ownedThinking && thinking && calls > 0 {
			if keep, c := rel.keepSignedTurn(seen, in, i, content, o.allowed); keep {
				changed = changed || c
				out = append(out, m)
			} else {
				changed = true
				log.add(i, KindMessageDropped, "signed-thinking turn with %s that would need changes dropped whole", countNoun(calls, "tool call", "tool calls"))
			}
			continue
		}
		next := make([]any, 0, len(content))
		msgChanged := false
		for j, b := range content {
			if !rel.isCallBlock(b) {
				next = append(next, b)
				continue
			}
			nb, keep, c := rel.sanitizeCall(m, i, j, b.(*jsvalue.Object), o.allowed, log)
			msgChanged = msgChanged || c
			if keep {
				next = append(next, nb)
			}
		}
		if msgChanged {
			changed = true
			if len(next) == 0 {
				log.add(i, KindMessageDropped, "assistant turn left empty after dropping tool calls")
				continue
			}
			m = rel.replaceContent(m, next)
		}
		if rel.noteTurn != nil {
			rel.noteTurn(seen, m)
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
