// Package replay previews what OpenClaw 2026.5.6 sends a provider for a
// session: the sanitize pipeline (in OpenClaw's order, each step reporting what
// it changed), the LLM boundary and one wire renderer per API family.
package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Message is one model message as OpenClaw holds it in memory: the shape of
// the oracle's context.messages entries. Numbers are json.Number so that
// values pass through unchanged.
type Message = map[string]any

// DecodeMessages decodes a JSON array of messages (or a list of raw messages).
func DecodeMessages(raw []json.RawMessage) ([]Message, error) {
	out := make([]Message, 0, len(raw))
	for i, r := range raw {
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.UseNumber()
		var m Message
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		out = append(out, m)
	}
	return out, nil
}
