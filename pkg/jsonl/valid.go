package jsonl

import gojson "github.com/goccy/go-json"

// Valid reports whether line parses with JavaScript's JSON.parse, which is what
// OpenClaw uses to decide that a line is malformed. Like JSON.parse it accepts
// invalid UTF-8 (Node decodes it to U+FFFD first), lone surrogate escapes,
// duplicate keys, huge exponents, top-level scalars and surrounding JSON
// whitespace; it rejects raw control characters in strings, bad escapes, a
// byte-order mark and anything after the first value.
//
// One known difference: values nested deeper than 10,000 levels, which Node
// accepts, are rejected here (no real transcript comes near).
func Valid(line []byte) bool {
	return gojson.Valid(line)
}
