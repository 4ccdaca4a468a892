// Package jsvalue is the value model replay's stages and renderers share:
// messages as OpenClaw holds them (decoded as JSON.parse does, with the key
// order of their objects recorded in a KeyOrder), ordered objects for the
// wire bodies, and encoding and coercion with JavaScript's semantics
// (JSON.stringify, truthiness, String(v)).
package jsvalue

// Message is one model message as OpenClaw holds it in memory: the shape of
// the oracle's context.messages entries. Numbers are json.Number so that
// values pass through unchanged.
type Message = map[string]any

// nonObjectKey is the one key of a NonObjectMessage: not a key JSON text
// can give a message OpenClaw reads.
const nonObjectKey = "\x00oc:non-object message"

// NonObjectMessage carries a context message that is not an object (a
// string, number, boolean or array under "message"): OpenClaw 2026.5.6
// replays it as it is (the sanitize steps pass it on, the LLM boundary
// drops it). It is encoded as the value itself.
func NonObjectMessage(v any) Message { return Message{nonObjectKey: v} }

// NonObjectValue returns the value of a NonObjectMessage.
func NonObjectValue(m Message) (any, bool) {
	if len(m) != 1 {
		return nil, false
	}
	v, ok := m[nonObjectKey]
	return v, ok
}

// TextBlock is the content block {type: "text", text: s}; KeyOrder writes
// it in that order, as the object literal.
func TextBlock(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
