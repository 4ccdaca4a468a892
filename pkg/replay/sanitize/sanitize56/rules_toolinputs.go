package sanitize56

import (
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// R9: 2026.5.6's values for sanitizeToolCallInputs
// (src/agents/session-transcript-repair.ts, src/agents/tool-call-shared.ts):
// sessions_spawn attachments are redacted.

const (
	redactedAttachmentMarker = "__OPENCLAW_REDACTED__"
)

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

// toolCallBlockChanges: sanitizeToolCallBlock would change the block.
func toolCallBlockChanges(bm *jsvalue.Object) bool {
	_, changed := sanitizeToolCallBlock(bm)
	return changed
}

// stringName is the call's name when it is a string.
func stringName(c sanitize.ToolOccurrence) (string, bool) {
	s, ok := c.Name.(string)
	return s, ok
}

// toolInputRelease is 2026.5.6's sanitizeToolCallInputs.
func toolInputRelease() sanitize.ToolInputRelease {
	return sanitize.ToolInputRelease{
		IsCallBlock:    sanitize.IsRawToolCallBlock,
		KeepSignedTurn: keepSignedTurn,
		SanitizeCall:   sanitizeToolCall,
		ReplaceContent: func(m sanitize.Message, next []any) sanitize.Message { return m.With("content", next) },
	}
}

// keepSignedTurn keeps a replay-safe signed-thinking turn whose call ids
// no earlier kept turn claimed.
func keepSignedTurn(seen *sanitize.ToolInputCalls, in []sanitize.Message, i int, content []any, allowed sanitize.AllowedNames) (bool, bool) {
	refs := sanitize.ToolCallsOf(in[i])
	safe := sanitize.ReplaySafeToolCalls(content, allowed, sanitize.IsRawToolCallBlock, toolCallBlockChanges)
	for _, r := range refs {
		if seen.Preserved[r.ID] {
			safe = false
		}
	}
	if safe {
		for _, r := range refs {
			seen.Preserved[r.ID] = true
		}
	}
	return safe, false
}

// sanitizeToolCall drops a call without input, id or an allowed name,
// redacts sessions_spawn attachments and trims the name.
func sanitizeToolCall(_ sanitize.Message, i, j int, bm *jsvalue.Object, allowed sanitize.AllowedNames, log *sanitize.ChangeLog) (*jsvalue.Object, bool, bool) {
	id, _ := jsvalue.StringMember(bm, "id")
	switch {
	case !sanitize.HasToolCallInput(bm):
		log.Add(i, sanitize.KindBlockDropped, "tool call %d (%s) has no input", j, sanitize.DescribeCall(bm))
		return nil, false, true
	case jsjson.Blank(id):
		log.Add(i, sanitize.KindBlockDropped, "tool call %d (%s) has no id", j, sanitize.DescribeCall(bm))
		return nil, false, true
	case !sanitize.IsAllowedToolCallName(bm.Get("name"), allowed):
		log.Add(i, sanitize.KindBlockDropped, "tool call %d has an invalid name %q", j, jsvalue.StringOrEmpty(bm, "name"))
		return nil, false, true
	}
	if isSessionsSpawn(bm) {
		s, c := sanitizeToolCallBlock(bm)
		if c {
			log.Add(i, sanitize.KindContentChanged, "sessions_spawn tool call %d: attachments redacted", j)
		}
		return s, true, c
	}
	if name, ok := jsvalue.StringMember(bm, "name"); ok {
		if t := jsjson.Trim(name); t != name && t != "" {
			log.Add(i, sanitize.KindContentChanged, "tool call %d name trimmed to %q", j, t)
			return bm.With("name", t), true, true
		}
	}
	return bm, true, false
}
