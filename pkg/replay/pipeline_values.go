package replay

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
)

// Helpers that give Go values JavaScript's semantics where OpenClaw's rules
// depend on them (typeof checks, truthiness, trim, UTF-16 lengths, numbers).
// The pipeline never mutates its input: every change copies the message.

// asMap returns v as a JSON object (JavaScript `typeof v === "object"` for a
// non-null, non-array value).
func asMap(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	return m, ok && m != nil
}

// isObject is `!!v && typeof v === "object"`: objects and arrays.
func isObject(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return x != nil
	case []any:
		return x != nil
	}
	return false
}

// str returns m[key] when it is a string.
func str(m map[string]any, key string) (string, bool) {
	if m == nil {
		return "", false
	}
	s, ok := m[key].(string)
	return s, ok
}

// strOr returns m[key] when it is a string, else "".
func strOr(m map[string]any, key string) string {
	s, _ := str(m, key)
	return s
}

// role is message.role when it is a string.
func role(m Message) string { return strOr(m, "role") }

// blocks returns m[key] as an array.
func blocks(m map[string]any, key string) ([]any, bool) {
	if m == nil {
		return nil, false
	}
	a, ok := m[key].([]any)
	return a, ok && a != nil
}

// has is JavaScript's `key in m` for a JSON object.
func has(m map[string]any, key string) bool {
	_, ok := m[key]
	return ok
}

// present is `m[key] !== undefined && m[key] !== null`.
func present(m map[string]any, key string) bool {
	v, ok := m[key]
	return ok && v != nil
}

// clone is a shallow copy (JavaScript's `{...m}`).
func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// with returns a shallow copy of m with key set to v.
func with(m map[string]any, key string, v any) map[string]any {
	out := clone(m)
	out[key] = v
	return out
}

// trim is String.prototype.trim.
func trim(s string) string { return jsjson.Trim(s) }

// trimStart and trimEnd are String.prototype.trimStart / trimEnd.
func trimStart(s string) string { return strings.TrimLeftFunc(s, jsjson.IsSpace) }
func trimEnd(s string) string   { return strings.TrimRightFunc(s, jsjson.IsSpace) }

// blank is `s.trim().length === 0`, without allocating.
func blank(s string) bool { return jsjson.Blank(s) }

// utf16Len is JavaScript's String.prototype.length.
func utf16Len(s string) int { return jsjson.Len(s) }

// collapseJSSpace is `s.replace(/\s+/g, " ")`.
func collapseJSSpace(s string) string {
	var b strings.Builder
	inSpace := false
	for _, r := range s {
		if jsjson.IsSpace(r) {
			if !inSpace {
				b.WriteByte(' ')
			}
			inSpace = true
			continue
		}
		inSpace = false
		b.WriteRune(r)
	}
	return b.String()
}

// num returns a JSON number as float64 (typeof v === "number").
func num(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			// Out of range: JSON.parse gives ±Infinity, which is not finite.
			return 0, false
		}
		return f, true
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// jsNumber encodes f the way JSON.stringify prints a number.
func jsNumber(f float64) json.Number { return json.Number(jsjson.FormatNumber(f)) }

// jsEqual is `a === b` for JSON values that are numbers, strings, booleans
// or null (objects compare by identity in JavaScript: never equal here).
func jsEqual(a, b any) bool {
	if fa, ok := num(a); ok {
		fb, ok := num(b)
		return ok && fa == fb
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}
