package jsjson

import (
	"encoding/json"
	"fmt"
	"strconv"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s quoted as JSON.stringify writes a string: `"`, `\`
// and the control characters escaped (\b \f \n \r \t, else \u00xx), lone
// surrogates (WTF-8) as \udxxx, everything else as it is. A byte that is
// neither UTF-8 nor WTF-8 is written as U+FFFD.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x80 && c != '"' && c != '\\' {
			i++
			continue
		}
		if c < 0x80 {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"':
				dst = append(dst, '\\', '"')
			case '\\':
				dst = append(dst, '\\', '\\')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := Unit(s, i)
		switch {
		case r >= 0xD800 && r <= 0xDFFF:
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
			start = i + size
		case size == 6: // a pair written as two WTF-8 halves
			dst = append(dst, s[start:i]...)
			dst = AppendUnit(dst, r)
			start = i + size
		case r == 0xFFFD && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			start = i + size
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Append appends JSON.stringify(v) (no indentation). Values: nil, bool,
// float64, int, int64, json.Number (spelled as JavaScript would print its
// value), string, *Object, []any, json.RawMessage (written as it is).
func Append(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case float64:
		return AppendNumber(dst, x), nil
	case int:
		return AppendNumber(dst, float64(x)), nil
	case int64:
		return AppendNumber(dst, float64(x)), nil
	case json.Number:
		f, err := ParseNumber(string(x))
		if err != nil {
			return nil, fmt.Errorf("jsjson: bad number %q", string(x))
		}
		return AppendNumber(dst, f), nil
	case string:
		return AppendString(dst, x), nil
	case json.RawMessage:
		return append(dst, x...), nil
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = Append(dst, e); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case *Object:
		dst = append(dst, '{')
		for i, k := range x.Keys() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, k)
			dst = append(dst, ':')
			val, _ := x.Get(k)
			var err error
			if dst, err = Append(dst, val); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	}
	return nil, fmt.Errorf("jsjson: cannot encode %T", v)
}

// Marshal is JSON.stringify(v).
func Marshal(v any) ([]byte, error) { return Append(nil, v) }
