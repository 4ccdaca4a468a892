package upgrade

import (
	"encoding/json"

	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/vocab"
)

// legacyEntryTypes is sessionEntryTypeSchema of transcript-payload-*.mjs.
var legacyEntryTypes = map[string]bool{
	"message": true, "thinking_level_change": true, "model_change": true, "compaction": true, "reset": true,
	"branch_summary": true, "custom": true, "custom_message": true, "label": true, "session_info": true,
}

// legacyRecognized is classifySessionFileEntry(entry, sourceVersion < 3) of
// transcript-payload-*.mjs, after normalizeLoadedFileEntry
// (session-manager-codec-*.mjs): a known entry type and, for a message, a
// readable message (isReadableLegacySessionEntry). Recognised entries of a
// format-v1 transcript get new ids; the others keep theirs. Only called for
// transcripts without a v2+ header, so the full decode is rare.
func legacyRecognized(text []byte) bool {
	var v map[string]any
	if json.Unmarshal(text, &v) != nil {
		return false
	}
	typ, _ := v["type"].(string)
	if !legacyEntryTypes[typ] {
		return false
	}
	if typ != "message" {
		return true
	}
	msg, ok := v["message"].(map[string]any)
	if !ok {
		return false
	}
	role, _ := msg["role"].(string)
	// normalizeLoadedFileEntry: string content of assistant/toolResult becomes
	// one text block; an object toolResult content becomes a one-element array
	if c, ok := msg["content"].(string); ok && (role == "assistant" || role == vocab.RoleToolResult) {
		msg["content"] = []any{map[string]any{"type": "text", "text": c}}
	} else if c, ok := msg["content"].(map[string]any); ok && role == vocab.RoleToolResult {
		msg["content"] = []any{c}
	}
	// normalizePersistedLegacyHookMessage: custom without customType is a hook
	if role == "custom" && msg["customType"] == nil && readableContent(msg["content"]) {
		msg["customType"] = "hook"
	}
	if role == "hookMessage" {
		return readableContent(msg["content"])
	}
	return readableMessage(msg, role)
}

// readableContentSchema: a string or an array of objects with a string type.
func readableContent(c any) bool {
	switch c := c.(type) {
	case string:
		return true
	case []any:
		for _, b := range c {
			o, ok := b.(map[string]any)
			if !ok {
				return false
			}
			if _, ok := o["type"].(string); !ok {
				return false
			}
		}
		return true
	}
	return false
}

// readableMessageSchema of transcript-payload-*.mjs.
func readableMessage(m map[string]any, role string) bool {
	str := func(k string) bool { _, ok := m[k].(string); return ok }
	switch role {
	case "user", "assistant":
		return readableContent(m["content"])
	case vocab.RoleToolResult:
		_, isErr := m["isError"].(bool)
		_, arr := m["content"].([]any)
		return str("toolCallId") && str("toolName") && isErr && arr
	case "custom":
		return str("customType") && readableContent(m["content"])
	case "bashExecution":
		return str("command") && str("output")
	}
	return false
}

// recoverable reports whether readLegacyPrimaryTranscriptIdentity
// (doctor-session-sqlite-readers-*.mjs) accepts a non-header record of an
// unregistered transcript whose first event is header (version from it):
// classifySessionFileEntry recognises it, or it is an opaque leaf or a
// parent-linked opaque record (transcript-payload-*.mjs). The indexed-entry
// schema of a version-3 transcript is approximated by the legacy check plus
// a non-empty string id (its type-specific fields are not checked).
func recoverable(text []byte, header event) bool {
	version := 1
	if header.session {
		version = header.version
	}
	var typ, id, parent, target []byte
	jsonl.Members(text, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ = v
		case "id":
			id = v
		case "parentId":
			parent = v
		case "targetId":
			target = v
		}
		return true
	})
	idText, _ := jsonl.StringValue(id)
	idOK := jsonl.ValueKind(id) == '"' && idText != ""
	linked := func(v []byte) bool { k := jsonl.ValueKind(v); return v != nil && (k == '"' || k == 'n') }
	if idOK && linked(parent) {
		if !jsonl.StringIs(typ, "leaf") || linked(target) {
			return true
		}
	}
	if version < 3 {
		return legacyRecognized(text)
	}
	return idOK && (parent == nil || linked(parent)) && legacyRecognized(text)
}
