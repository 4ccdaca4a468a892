// Package replay previews what OpenClaw 2026.5.6 sends a provider for a
// session: the sanitize pipeline (in OpenClaw's order, each step reporting what
// it changed), the LLM boundary and one wire renderer per API family.
package replay

import (
	"encoding/json"

	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// Message is one model message as OpenClaw holds it in memory (see
// jsvalue.Message).
type Message = jsvalue.Message

// KeyOrder remembers the key order of decoded objects (see
// jsvalue.KeyOrder).
type KeyOrder = jsvalue.KeyOrder

// DecodeMessagesKeyed decodes context messages and records their key order
// (see jsvalue.DecodeMessagesKeyed).
func DecodeMessagesKeyed(raw []json.RawMessage, release bool) ([]Message, *KeyOrder, error) {
	return jsvalue.DecodeMessagesKeyed(raw, release)
}

// AppendMessages appends JSON.stringify(msgs) with the key order of k.
func AppendMessages(dst []byte, msgs []Message, k *KeyOrder) ([]byte, error) {
	return jsvalue.AppendMessages(dst, msgs, k)
}
