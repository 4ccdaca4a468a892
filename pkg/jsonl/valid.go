package jsonl

import "github.com/openclaw-tools/oc/internal/jsjson"

// Valid reports whether line parses with JavaScript's JSON.parse, which is what
// OpenClaw uses to decide that a line is malformed. Like JSON.parse it accepts
// invalid UTF-8 (Node decodes it to U+FFFD first), lone surrogate escapes,
// duplicate keys, huge exponents, top-level scalars and surrounding JSON
// whitespace and any nesting depth (Node 20 parses a million levels); it
// rejects raw control characters in strings, bad escapes, a byte-order mark
// and anything after the first value. See jsjson.Tape, which also records
// where the values are.
func Valid(line []byte) bool {
	return jsjson.Valid(line)
}
