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

// DecodeMessages decodes context messages, each object with its members in
// JavaScript's order (see jsvalue.DecodeMessages).
func DecodeMessages(raw []json.RawMessage, release bool) ([]Message, error) {
	return jsvalue.DecodeMessages(raw, release)
}

// AppendMessages appends JSON.stringify(msgs).
func AppendMessages(dst []byte, msgs []Message) ([]byte, error) {
	return jsvalue.AppendMessages(dst, msgs)
}
