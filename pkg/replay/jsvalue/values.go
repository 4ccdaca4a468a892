package jsvalue

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
)

// Helpers that give decoded values JavaScript's semantics where OpenClaw's
// rules and pi-ai's renderers depend on them (typeof checks, `in`, spread
// copies, trimStart/trimEnd, numbers, ===). None of them mutates its input
// (Object's Clone and With copy).

// AsObject returns v as a JSON object (JavaScript `typeof v === "object"`
// for a non-null, non-array value).
func AsObject(v any) (*Object, bool) {
	m, ok := v.(*Object)
	return m, ok && m != nil
}

// IsObjectOrArray is `!!v && typeof v === "object"`: objects and arrays.
func IsObjectOrArray(v any) bool {
	switch x := v.(type) {
	case *Object:
		return x != nil
	case []any:
		return x != nil
	}
	return false
}

// StringMember returns m[key] when it is a string.
func StringMember(m *Object, key string) (string, bool) {
	if m == nil {
		return "", false
	}
	s, ok := m.Get(key).(string)
	return s, ok
}

// StringOrEmpty returns m[key] when it is a string, else "".
func StringOrEmpty(m *Object, key string) string {
	s, _ := StringMember(m, key)
	return s
}

// Role is message.role when it is a string, else "".
func Role(m Message) string { return StringOrEmpty(m, "role") }

// ArrayMember returns m[key] when it is an array.
func ArrayMember(m *Object, key string) ([]any, bool) {
	if m == nil {
		return nil, false
	}
	a, ok := m.Get(key).([]any)
	return a, ok && a != nil
}

// Has is JavaScript's `key in m` for a JSON object.
func Has(m *Object, key string) bool {
	_, ok := m.Lookup(key)
	return ok
}

// Present is `m[key] !== undefined && m[key] !== null`.
func Present(m *Object, key string) bool {
	v, ok := m.Lookup(key)
	return ok && v != nil
}

// TrimStart and TrimEnd are String.prototype.trimStart / trimEnd.
func TrimStart(s string) string { return strings.TrimLeftFunc(s, jsjson.IsSpace) }
func TrimEnd(s string) string   { return strings.TrimRightFunc(s, jsjson.IsSpace) }

// CollapseSpace is `s.replace(/\s+/g, " ")`.
func CollapseSpace(s string) string {
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

// Number returns a JSON number as float64 (typeof v === "number" and
// finite).
func Number(v any) (float64, bool) {
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

// JSONNumber is f as a decoded value, spelled the way JSON.stringify prints
// it.
func JSONNumber(f float64) json.Number { return json.Number(jsjson.FormatNumber(f)) }

// StrictEqual is `a === b` for JSON values that are numbers, strings,
// booleans or null (objects compare by identity in JavaScript: never equal
// here; the pipeline compares *Object pointers where it needs identity).
func StrictEqual(a, b any) bool {
	if fa, ok := Number(a); ok {
		fb, ok := Number(b)
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
