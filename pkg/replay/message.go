// Package replay previews what OpenClaw 2026.5.6 sends a provider for a
// session: the sanitize pipeline (in OpenClaw's order, each step reporting what
// it changed), the LLM boundary and one wire renderer per API family.
package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"
)

// Message is one model message as OpenClaw holds it in memory: the shape of
// the oracle's context.messages entries. Numbers are json.Number so that
// values pass through unchanged.
type Message = map[string]any

// DecodeMessages decodes a JSON array of messages (or a list of raw messages).
func DecodeMessages(raw []json.RawMessage) ([]Message, error) {
	out := make([]Message, 0, len(raw))
	for i, r := range raw {
		var m Message
		var err error
		if needsStdDecoder(r) {
			dec := json.NewDecoder(bytes.NewReader(r))
			dec.UseNumber()
			err = dec.Decode(&m)
		} else {
			// goccy/go-json is several times faster on large transcripts;
			// it gives the same values for valid UTF-8 without surrogate escapes.
			dec := gojson.NewDecoder(bytes.NewReader(r))
			dec.UseNumber()
			err = dec.Decode(&m)
		}
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// needsStdDecoder: text whose decoding encoding/json defines the way
// JSON.parse does (invalid UTF-8 and surrogate escapes become U+FFFD).
func needsStdDecoder(r []byte) bool {
	return !utf8.Valid(r) || bytes.Contains(r, []byte(`\ud`)) || bytes.Contains(r, []byte(`\uD`))
}
