package wire

import "github.com/openclaw-tools/oc/pkg/replay/jsvalue"

// Message is a message as the renderers read it (after the LLM boundary).
type Message = jsvalue.Message

// KeyOrder gives the key order of the messages' objects.
type KeyOrder = jsvalue.KeyOrder

// textBlock is the object literal {type: "text", text: s}.
func textBlock(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
