package jsonl

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Members calls fn with the key and the raw value bytes of each member of the
// JSON object in b, in order, without copying or decoding anything; fn
// returning false stops early. b must be valid JSON (as Valid reports): the
// scanner trusts it and only guards against running off the end. A key that
// contains escapes is passed unescaped (and invalid UTF-8 in a key reads
// as U+FFFD, as Node decodes it). Members reports false when b is not
// an object. Like JSON.parse, when a key repeats, the caller that assigns in
// order ends up with the last value.
func Members(b []byte, fn func(key, value []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) && b[i] == '"' {
		end := skipString(b, i)
		if end < 0 {
			return true
		}
		key := b[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			var s string
			if json.Unmarshal(b[i:end], &s) == nil {
				key = []byte(s)
			}
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return true
		}
		vs := skipSpace(b, i+1)
		ve := SkipValue(b, vs)
		if ve < 0 {
			return true
		}
		if !fn(key, b[vs:ve]) {
			return true
		}
		i = skipSpace(b, ve)
		if i >= len(b) || b[i] != ',' {
			return true
		}
		i = skipSpace(b, i+1)
	}
	return true
}

// SkipValue returns the index just past the JSON value starting at b[i], or
// -1 when b ends first.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				if i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	default: // number, true, false, null
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return i
			}
			i++
		}
		return i
	}
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// String decodes a raw JSON string value; ok is false for any other value.
// It copies only when the string holds escapes.
func String(raw []byte) (s string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// Elements calls fn with the raw bytes of each element of the JSON array in
// b, in order; fn returning false stops early. Like Members it trusts that b
// is valid JSON, and reports false when b is not an array.
func Elements(b []byte, fn func(value []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return true
	}
	for i < len(b) {
		end := SkipValue(b, i)
		if end < 0 {
			return true
		}
		if !fn(b[i:end]) {
			return true
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ',' {
			return true
		}
		i = skipSpace(b, i+1)
	}
	return true
}
