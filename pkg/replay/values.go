// Package replay previews what OpenClaw (2026.5.6, 2026.9.6) sends a
// provider for a session, by stage: the sanitize pipeline and the LLM
// boundary (package sanitize), then one wire renderer per API family
// (package wire). It holds the glue: BuildPayload, the routes, Compare and
// the provider findings.
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
