// Package jsvalue is the value model replay's stages and renderers share:
// messages as OpenClaw holds them (decoded as JSON.parse does, every object
// an Object that keeps its members in JavaScript's property order), the
// ordered objects of the wire bodies, and encoding and coercion with
// JavaScript's semantics (JSON.stringify, truthiness, String(v)).
package jsvalue

// Message is one model message as OpenClaw holds it in memory: the shape of
// the oracle's context.messages entries (nil for a null message). Numbers
// are json.Number so that values pass through unchanged.
type Message = *Object

// nonObjectKey is the one key of a NonObjectMessage: not a key JSON text
// can give a message OpenClaw reads.
const nonObjectKey = "\x00oc:non-object message"

// NonObjectMessage carries a context message that is not an object (a
// string, number, boolean or array under "message"): OpenClaw 2026.5.6
// replays it as it is (the sanitize steps pass it on, the LLM boundary
// drops it). It is encoded as the value itself.
func NonObjectMessage(v any) Message {
	return &Object{Members: []Member{{Key: nonObjectKey, Value: v}}}
}

// NonObjectValue returns the value of a NonObjectMessage.
func NonObjectValue(m Message) (any, bool) {
	if m.Len() != 1 || m.Members[0].Key != nonObjectKey {
		return nil, false
	}
	return m.Members[0].Value, true
}

// TextBlock is the content block {type: "text", text: s}.
func TextBlock(s string) *Object { return NewObject("type", "text", "text", s) }
