package jsvalue

// JSON helpers shared by the sanitize stage, the LLM boundary and the wire
// renderers. They make Go produce what JavaScript's JSON.stringify produces
// for the same values:
//
//   - Object is a JavaScript object: its members in JavaScript's property
//     order. Every JSON object of the value model is one (the decoder makes
//     the messages' objects, the pipeline and the renderers copy and build
//     them), so the order travels with the object: JSON.stringify of a
//     message, or of toolCall.arguments inside a wire body, writes the
//     members as OpenClaw does.
//   - AppendJS encodes like JSON.stringify: members in that order, numbers
//     in JavaScript's shortest form, only the escapes JSON.stringify makes
//     (no HTML or U+2028 escaping).

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
)

// Member is one member of an Object.
type Member struct {
	Key   string
	Value any
}

// Object is a JavaScript object: its members in JavaScript's property
// order, array-index keys ("0", "1", ...) ascending first, then the other
// keys in insertion order. NewObject and Set keep that order, so that
// writing the members one after another is what JSON.stringify writes.
// The methods that read treat a nil *Object as an object without members.
type Object struct {
	Members []Member
}

// NewObject builds an Object from alternating keys and values (an object
// literal: a repeated key keeps its first place and takes the last value).
func NewObject(kv ...any) *Object {
	o := &Object{Members: make([]Member, 0, len(kv)/2+1)}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Len is the number of members.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.Members)
}

// Lookup returns the value of key and whether o has it.
func (o *Object) Lookup(key string) (any, bool) {
	if o == nil {
		return nil, false
	}
	for i := range o.Members {
		if o.Members[i].Key == key {
			return o.Members[i].Value, true
		}
	}
	return nil, false
}

// Get returns the value of key, nil when o does not have it.
func (o *Object) Get(key string) any {
	v, _ := o.Lookup(key)
	return v
}

// Set is assignment: an existing key takes the new value in its place, a
// new key goes last (an array-index key among the array-index keys, in
// ascending order, as JavaScript orders it).
func (o *Object) Set(key string, v any) {
	for i := range o.Members {
		if o.Members[i].Key == key {
			o.Members[i].Value = v
			return
		}
	}
	if !jsjson.IsArrayIndex(key) {
		o.Members = append(o.Members, Member{Key: key, Value: v})
		return
	}
	i := 0
	for i < len(o.Members) && jsjson.IsArrayIndex(o.Members[i].Key) && indexCompare(o.Members[i].Key, key) < 0 {
		i++
	}
	o.Members = slices.Insert(o.Members, i, Member{Key: key, Value: v})
}

// indexCompare orders two canonical array indices numerically.
func indexCompare(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// Delete is the delete operator.
func (o *Object) Delete(key string) {
	if o == nil {
		return
	}
	for i := range o.Members {
		if o.Members[i].Key == key {
			o.Members = slices.Delete(o.Members, i, i+1)
			return
		}
	}
}

// Clone is a shallow copy (JavaScript's {...o}): the same members in the
// same order, in a list of its own.
func (o *Object) Clone() *Object {
	n := o.Len()
	out := &Object{Members: make([]Member, n, n+1)}
	if n > 0 {
		copy(out.Members, o.Members)
	}
	return out
}

// With is a shallow copy with key set to v ({...o, [key]: v}).
func (o *Object) With(key string, v any) *Object {
	out := o.Clone()
	out.Set(key, v)
	return out
}

// MarshalJSON encodes the object like JSON.stringify.
func (o *Object) MarshalJSON() ([]byte, error) { return AppendJS(nil, o) }

// UnmarshalJSON reads a JSON object as JSON.parse does (see Parse).
func (o *Object) UnmarshalJSON(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	p, ok := v.(*Object)
	if !ok {
		return fmt.Errorf("jsvalue: JSON %s is not an object", TypeName(v, true))
	}
	*o = *p
	return nil
}

// AppendMessages appends JSON.stringify(msgs).
func AppendMessages(dst []byte, msgs []Message) ([]byte, error) {
	dst = append(dst, '[')
	var err error
	for i, m := range msgs {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = AppendJS(dst, m); err != nil {
			return nil, err
		}
	}
	return append(dst, ']'), nil
}

// Undefined marks a value JSON.stringify leaves out (an object member) or
// writes as null (an array element).
type Undefined struct{}

// AppendJS appends the JSON.stringify encoding of v. Values: *Object (its
// members in order, Undefined ones left out; nil is null), []any, string,
// json.Number, float64, integers, bool, nil, Undefined (null, as an array
// element), []byte (a Uint8Array: an object of its bytes), json.RawMessage
// (written as is).
func AppendJS(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case Undefined:
		return append(dst, "null"...), nil
	case string:
		return jsjson.AppendString(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("bad number %q", string(x))
		}
		return append(dst, jsjson.FormatNumber(f)...), nil
	case float64:
		return append(dst, jsjson.FormatNumber(x)...), nil
	case float32:
		return append(dst, jsjson.FormatNumber(float64(x))...), nil
	case int:
		return append(dst, jsjson.FormatNumber(float64(x))...), nil
	case int64:
		return append(dst, jsjson.FormatNumber(float64(x))...), nil
	case json.RawMessage:
		return append(dst, x...), nil
	case []byte:
		dst = append(dst, '{')
		for i, b := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '"')
			dst = strconv.AppendInt(dst, int64(i), 10)
			dst = append(dst, '"', ':')
			dst = strconv.AppendInt(dst, int64(b), 10)
		}
		return append(dst, '}'), nil
	case *Object:
		if x == nil {
			return append(dst, "null"...), nil
		}
		if v, ok := NonObjectValue(x); ok {
			return AppendJS(dst, v)
		}
		dst = append(dst, '{')
		first := true
		var err error
		for _, m := range x.Members {
			if _, skip := m.Value.(Undefined); skip {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = jsjson.AppendString(dst, m.Key)
			dst = append(dst, ':')
			if dst, err = AppendJS(dst, m.Value); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case []any:
		dst = append(dst, '[')
		var err error
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = AppendJS(dst, e); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case []*Object:
		dst = append(dst, '[')
		var err error
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = AppendJS(dst, e); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	}
	return nil, fmt.Errorf("cannot encode %T", v)
}

// Stringify is JSON.stringify(v) for a value that may be absent: ok is
// false when JavaScript would return undefined.
func Stringify(v any, present bool) (string, bool, error) {
	if !present {
		return "", false, nil
	}
	b, err := AppendJS(nil, v)
	if err != nil {
		return "", false, err
	}
	return string(b), true, nil
}

// Truthy is JavaScript truthiness for a decoded JSON value.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil, Undefined:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return err != nil || (f != 0 && !math.IsNaN(f))
	case float64:
		return x != 0 && !math.IsNaN(x)
	case int:
		return x != 0
	case int64:
		return x != 0
	}
	return true
}

// ToString is String(v) (template literals) for a decoded JSON value;
// absent values are "undefined".
func ToString(v any, present bool) string {
	if !present {
		return "undefined"
	}
	switch x := v.(type) {
	case nil:
		return "null"
	case Undefined:
		return "undefined"
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return string(x)
		}
		s := jsjson.FormatNumber(f)
		if s == "null" {
			return "NaN"
		}
		return s
	case float64:
		return jsjson.FormatNumber(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			if e != nil {
				parts[i] = ToString(e, true)
			}
		}
		return strings.Join(parts, ",")
	}
	return "[object Object]"
}

// Copy sets key to src[srcKey] when src has it (JavaScript copies an
// undefined property, which JSON.stringify then leaves out).
func (o *Object) Copy(key string, src *Object, srcKey string) {
	if v, ok := src.Lookup(srcKey); ok {
		if _, undef := v.(Undefined); !undef {
			o.Set(key, v)
		}
	}
}

// Label names m in a TypeError message: "<role> message:", "<type>
// block:" or "value:".
func Label(m *Object) string {
	if r, ok := m.Get("role").(string); ok {
		return r + " message:"
	}
	if t, ok := m.Get("type").(string); ok {
		return t + " block:"
	}
	return "value:"
}

// TypeName names what v is in a TypeError message ("undefined", "null",
// "a string", "an object", ...); present is false for an absent property.
func TypeName(v any, present bool) string {
	if !present {
		return "undefined"
	}
	switch v.(type) {
	case nil:
		return "null"
	case Undefined:
		return "undefined"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case *Object:
		return "an object"
	}
	return "a number"
}
