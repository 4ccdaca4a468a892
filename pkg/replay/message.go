// Package replay previews what OpenClaw 2026.5.6 sends a provider for a
// session: the sanitize pipeline (in OpenClaw's order, each step reporting what
// it changed), the LLM boundary and one wire renderer per API family.
package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"
)

// Message is one model message as OpenClaw holds it in memory: the shape of
// the oracle's context.messages entries. Numbers are json.Number so that
// values pass through unchanged.
type Message = map[string]any

// DecodeMessages decodes a JSON array of messages (or a list of raw messages).
func DecodeMessages(raw []json.RawMessage) ([]Message, error) {
	out := make([]Message, len(raw))
	// goccy/go-json is several times faster on large transcripts; it gives
	// the same values for valid UTF-8 without surrogate escapes. One stream
	// decoder reads all such messages in turn (a decoder per message costs
	// a buffer each); the others go through encoding/json.
	var fast []int
	for i, r := range raw {
		if !needsStdDecoder(r) {
			fast = append(fast, i)
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.UseNumber()
		if err := dec.Decode(&out[i]); err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
	}
	dec := gojson.NewDecoder(&messagesReader{raw: raw, order: fast})
	dec.UseNumber()
	for _, i := range fast {
		if err := dec.Decode(&out[i]); err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
	}
	return out, nil
}

// messagesReader reads the chosen raw messages one after another, each
// followed by a newline, as one stream of JSON values.
type messagesReader struct {
	raw   []json.RawMessage
	order []int
	next  int // position in order
	off   int // bytes of the current message already read
}

func (r *messagesReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && r.next < len(r.order) {
		cur := r.raw[r.order[r.next]]
		if r.off < len(cur) {
			c := copy(p[n:], cur[r.off:])
			n += c
			r.off += c
			continue
		}
		p[n] = '\n'
		n++
		r.next++
		r.off = 0
	}
	if n == 0 && r.next >= len(r.order) {
		return 0, io.EOF
	}
	return n, nil
}

// needsStdDecoder: text whose decoding encoding/json defines the way
// JSON.parse does (invalid UTF-8 and surrogate escapes become U+FFFD).
func needsStdDecoder(r []byte) bool {
	return !utf8.Valid(r) || bytes.Contains(r, []byte(`\ud`)) || bytes.Contains(r, []byte(`\uD`))
}
