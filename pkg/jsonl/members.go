package jsonl

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Members calls fn with the key and the raw value bytes of each member of the
// JSON object in b, in order, without copying or decoding anything; fn
// returning false stops early. A key that contains escapes is passed
// unescaped (and invalid UTF-8 in a key reads as U+FFFD, as Node decodes it).
// Members reports false when b is not an object. Like JSON.parse, when a key
// repeats, the caller that assigns in order ends up with the last value. On
// damaged input it stops where the damage starts.
func Members(b []byte, fn func(key, value []byte) bool) bool {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	EachMember(b, i, func(m Member) bool {
		key := m.Key
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			var s string
			q := make([]byte, 0, len(key)+2)
			if json.Unmarshal(append(append(append(q, '"'), key...), '"'), &s) == nil {
				key = []byte(s)
			}
		}
		return fn(key, b[m.Start:m.End])
	})
	return true
}

// Elements calls fn with the raw bytes of each element of the JSON array in
// b, in order; fn returning false stops early. It reports false when b is not
// an array.
func Elements(b []byte, fn func(value []byte) bool) bool {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	EachElement(b, i, func(start, end int) bool { return fn(b[start:end]) })
	return true
}
