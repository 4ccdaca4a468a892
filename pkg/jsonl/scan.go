package jsonl

import (
	"bytes"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/internal/jsjson"
)

// A small JSON scanner that works on byte offsets, so that a changed value can
// be spliced into a line while every other byte stays as it was, and fields
// can be read without decoding (or copying) the rest of a line. On valid JSON
// it finds exact value boundaries; on damaged input it reports failure and
// never panics (repair also uses it to read what survives of a cut-off line).
// The string helpers follow JavaScript: keys compare after unescaping, invalid
// UTF-8 reads as U+FFFD, blank means empty after String.prototype.trim.

// IsSpace reports whether c is JSON whitespace.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first non-whitespace byte at or after i.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// SkipString returns the index after the string that starts at b[i] == '"',
// or -1 if it is not terminated.
func SkipString(b []byte, i int) int {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		end := i + j
		// count the backslashes just before the quote
		n := 0
		for k := end - 1; k >= i && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return end + 1
		}
		i = end + 1
	}
}

// SkipValue returns the index after the value starting at b[i] (no leading
// whitespace), or -1 if the input ends before it does or is not a value start.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; c {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		return skipNested(b, i)
	default:
		j := i
		for j < len(b) {
			c := b[j]
			if c == ',' || c == '}' || c == ']' || IsSpace(c) {
				break
			}
			j++
		}
		if j == i {
			return -1
		}
		if j == len(b) && !isScalarStart(c) {
			return -1
		}
		return j
	}
}

func isScalarStart(c byte) bool {
	return c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n'
}

// skipNested finds the end of an object or array by bracket counting,
// skipping strings. It does not validate.
func skipNested(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			j := SkipString(b, i)
			if j < 0 {
				return -1
			}
			i = j
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
}

// Member is one "key": value pair of an object, as offsets into the buffer.
type Member struct {
	Key        []byte // raw key text between the quotes (may hold escapes)
	Start, End int    // the value
}

// EachMember calls fn for every member of the object starting at b[i] == '{'
// (after whitespace), in order, duplicates included. It returns the index
// after the object and whether the object was complete. fn returning false
// stops the walk (complete is then false).
func EachMember(b []byte, i int, fn func(m Member) bool) (int, bool) {
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return i, false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for i < len(b) {
		if b[i] != '"' {
			return i, false
		}
		ke := SkipString(b, i)
		if ke < 0 {
			return i, false
		}
		key := b[i+1 : ke-1]
		i = SkipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		vs := SkipSpace(b, i+1)
		ve := SkipValue(b, vs)
		if ve < 0 {
			return vs, false
		}
		if !fn(Member{Key: key, Start: vs, End: ve}) {
			return ve, false
		}
		i = SkipSpace(b, ve)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
	return i, false
}

// EachElement calls fn for every element of the array starting at b[i] == '['.
func EachElement(b []byte, i int, fn func(start, end int) bool) (int, bool) {
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != '[' {
		return i, false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for i < len(b) {
		ve := SkipValue(b, i)
		if ve < 0 {
			return i, false
		}
		if !fn(i, ve) {
			return ve, false
		}
		i = SkipSpace(b, ve)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case ']':
			return i + 1, true
		default:
			return i, false
		}
	}
	return i, false
}

// KeyText is a raw key's text: raw itself when it holds no escape (no
// copy), else its decoded text; a key that does not decode stays raw. One
// look at the key, then a switch over the names a caller wants, instead of
// a KeyIs per name.
func KeyText(raw []byte) []byte {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw
	}
	q := make([]byte, 0, len(raw)+2)
	if s, ok := jsjson.StringValue(append(append(append(q, '"'), raw...), '"')); ok {
		return []byte(s)
	}
	return raw
}

// KeyIs compares a raw key with a plain ASCII name, decoding escapes if any.
func KeyIs(raw []byte, name string) bool { return string(KeyText(raw)) == name }

// StringValue decodes a JSON string value; ok is false for any other value.
// Invalid UTF-8 reads as U+FFFD as Node's UTF-8 decoding reads it, and so
// does each lone surrogate (see jsjson.StringValue). A malformed literal
// gives its raw text, so that callers comparing names still work.
func StringValue(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	if s, ok := jsjson.StringValue(v); ok {
		return s, true
	}
	return string(v[1 : len(v)-1]), true
}

// StringIs reports whether v is the JSON string name (which holds no
// U+FFFD). An escape makes a literal longer than its text, and a byte that
// is not UTF-8 reads as U+FFFD, never in name: so a literal of name's
// length is name only byte for byte, a shorter one never is, and only a
// longer one with an escape is decoded.
func StringIs(v []byte, name string) bool {
	switch {
	case len(v) < len(name)+2 || v[0] != '"':
		return false
	case len(v) == len(name)+2:
		return string(v[1:len(v)-1]) == name
	case bytes.IndexByte(v, '\\') < 0:
		return false
	}
	s, ok := StringValue(v)
	return ok && s == name
}

// TrimJSLeft is String.prototype.trimStart on raw file bytes (an invalid
// byte, U+FFFD to Node, is not white space).
func TrimJSLeft(b []byte) []byte {
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError || !jsjson.IsSpace(r) {
			break
		}
		b = b[n:]
	}
	return b
}

// IsBlank is JSBlank for raw file bytes decoded as Node decodes UTF-8
// (an invalid byte is U+FFFD, which is not white space).
func IsBlank(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			switch c {
			case ' ', '\t', '\n', '\v', '\f', '\r':
				i++
				continue
			}
			return false
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError || !jsjson.IsSpace(r) {
			return false
		}
		i += n
	}
	return true
}

// ValueKind classifies a raw JSON value by its first byte.
func ValueKind(v []byte) byte {
	if len(v) == 0 {
		return 0
	}
	return v[0]
}

// TrimSpace is bytes.TrimSpace, returning at once when there is nothing to
// trim: a raw JSON value (what the hot paths trim) starts and ends with a
// printable ASCII byte, and bytes.TrimSpace leaves such ends alone.
func TrimSpace(b []byte) []byte {
	if len(b) == 0 {
		return nil // as bytes.TrimSpace returns it
	}
	if max(b[0]-'!', b[len(b)-1]-'!') < 0x80-'!' {
		return b
	}
	return bytes.TrimSpace(b)
}
