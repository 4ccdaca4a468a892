package jsvalue

// JSON helpers shared by the LLM boundary and the wire renderers. They make Go
// produce what JavaScript's JSON.stringify produces for the same values:
//
//   - Object is an ordered JSON object: the renderers build the wire body with
//     it so that members come out in the order pi-ai writes them.
//   - KeyOrder remembers the property order of objects decoded into
//     map[string]any (Go maps have none). JSON.stringify(toolCall.arguments)
//     is part of several wire bodies, as a string, so the order matters there.
//   - AppendJS encodes like JSON.stringify: integer-like keys first (the
//     JavaScript property order), numbers in JavaScript's shortest form, only
//     the escapes JSON.stringify makes (no HTML or U+2028 escaping).

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
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
	for i < len(o.Members) && jsjson.IsArrayIndex(o.Members[i].Key) && indexBefore(o.Members[i].Key, key) {
		i++
	}
	o.Members = slices.Insert(o.Members, i, Member{Key: key, Value: v})
}

// indexBefore orders two canonical array indices numerically.
func indexBefore(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
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

// MarshalJSON encodes the object like JSON.stringify (maps inside it are
// written with sorted keys: use AppendJS with a KeyOrder for their original order).
func (o *Object) MarshalJSON() ([]byte, error) { return AppendJS(nil, o, nil) }

// KeyOrder remembers, for maps decoded from JSON text, the order of their
// keys in that text. Maps are identified by identity, so the record stays
// valid while the pipeline passes the same maps along; a map whose keys
// changed still gets its known keys in order, new ones after them.
//
// A KeyOrder is not safe for concurrent Record calls; reading (Keys, and
// BuildPayload, which records only into a private child) is.
type KeyOrder struct {
	byMap  map[uintptr]recordedOrder
	parent *KeyOrder // consulted for maps not recorded here
}

// Child returns an empty KeyOrder that falls back to k (k may be nil).
func (k *KeyOrder) Child() *KeyOrder { return &KeyOrder{byMap: map[uintptr]recordedOrder{}, parent: k} }

// AppendMessages appends JSON.stringify(msgs) with the key order of k.
func AppendMessages(dst []byte, msgs []Message, k *KeyOrder) ([]byte, error) {
	dst = append(dst, '[')
	var err error
	for i, m := range msgs {
		if i > 0 {
			dst = append(dst, ',')
		}
		if m == nil {
			dst = append(dst, "null"...)
			continue
		}
		if dst, err = AppendJS(dst, m, k); err != nil {
			return nil, err
		}
	}
	return append(dst, ']'), nil
}

func (k *KeyOrder) lookup(m map[string]any) []string {
	id := mapID(m)
	for ; k != nil; k = k.parent {
		if o, ok := k.byMap[id]; ok {
			return o.keys
		}
	}
	return nil
}

// NewKeyOrder returns an empty KeyOrder.
func NewKeyOrder() *KeyOrder { return &KeyOrder{byMap: map[uintptr]recordedOrder{}} }

// Record walks raw (the JSON text v was decoded from) and v together and
// remembers the key order of every object in v. A nil KeyOrder ignores it.
func (k *KeyOrder) Record(raw []byte, v any) error {
	if k == nil {
		return nil
	}
	s := scanner{data: raw}
	if err := s.walk(v, k); err != nil {
		return fmt.Errorf("key order: offset %d: %w", s.pos, err)
	}
	return nil
}

// RecordMessages records the key order of messages decoded from raw (same
// length and order, as DecodeMessages takes and returns them).
func (k *KeyOrder) RecordMessages(raw []json.RawMessage, msgs []Message) error {
	if k == nil {
		return nil
	}
	if len(raw) != len(msgs) {
		return fmt.Errorf("key order: %d raw messages for %d decoded", len(raw), len(msgs))
	}
	for i := range raw {
		if err := k.Record(raw[i], msgs[i]); err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
	}
	return nil
}

func mapID(m map[string]any) uintptr { return reflect.ValueOf(m).Pointer() }

// SameMap reports whether a and b are the same map (JavaScript's === on
// objects).
func SameMap(a, b map[string]any) bool { return mapID(a) == mapID(b) }

// AttachmentMetadataKeys are the metadata members OpenClaw keeps on a
// sessions_spawn attachment it redacts, in its order.
func AttachmentMetadataKeys() [3]string { return [3]string{"name", "encoding", "mimeType"} }

// recordedOrder is the key order of one map, and the map itself: holding it
// keeps its address from being reused by a new map while the KeyOrder
// lives (which would inherit a stale order).
type recordedOrder struct {
	m    map[string]any
	keys []string
}

// RecordKeys records keys as the key order of m (an object literal's order,
// for a map built in Go). A nil KeyOrder ignores it.
func (k *KeyOrder) RecordKeys(m map[string]any, keys []string) {
	if k == nil {
		return
	}
	k.byMap[mapID(m)] = recordedOrder{m: m, keys: keys}
}

// Inherit gives dst the recorded key order of src: for a copy made like
// JavaScript's {...src, key: v} (existing keys keep their place, new keys
// follow). Not safe concurrently with other calls on k.
func (k *KeyOrder) Inherit(dst, src map[string]any) {
	if k == nil {
		return
	}
	if o := k.lookup(src); o != nil {
		k.RecordKeys(dst, o)
	}
}

// Keys returns the keys of m in the order JavaScript enumerates them:
// array-index keys ascending, then the others in insertion order (as
// recorded; keys not recorded follow, sorted).
func (k *KeyOrder) Keys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	var rest []string
	var recorded []string
	if len(m) > 1 {
		recorded = k.lookup(m)
		if recorded == nil || !coversAll(recorded, m) {
			// Not recorded, or recorded for a map that has since died and
			// whose address m reuses (the pointer-keyed table's weakness),
			// or derived with new keys: an object literal's shape wins.
			if lo := literalOrder(m); lo != nil {
				recorded = lo
			}
		}
	}
	seen := 0
	for _, key := range recorded {
		if _, ok := m[key]; ok {
			keys = append(keys, key)
			seen++
		}
	}
	if seen != len(m) {
		for key := range m {
			if !slices.Contains(recorded, key) {
				rest = append(rest, key)
			}
		}
		slices.Sort(rest)
		keys = append(keys, rest...)
	}
	// Array-index keys come first, ascending.
	var idx []string
	for _, key := range keys {
		if jsjson.IsArrayIndex(key) {
			idx = append(idx, key)
		}
	}
	if len(idx) == 0 {
		return keys
	}
	slices.SortFunc(idx, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	out := append(make([]string, 0, len(keys)), idx...)
	for _, key := range keys {
		if !jsjson.IsArrayIndex(key) {
			out = append(out, key)
		}
	}
	return out
}

// coversAll reports whether order names every key of m.
func coversAll(order []string, m map[string]any) bool {
	n := 0
	for _, k := range order {
		if _, ok := m[k]; ok {
			n++
		}
	}
	return n == len(m)
}

// literalOrder is the member order of the objects OpenClaw's pipeline
// writes as object literals (a text block, a usage snapshot and its cost, a
// synthetic tool result), for the maps the Go pipeline builds for them; nil
// for other shapes.
func literalOrder(m map[string]any) []string {
	if o := redactedAttachmentOrder(m); o != nil {
		return o
	}
	for _, o := range [...][]string{
		{"type", "text"},
		{"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"},
		{"input", "output", "cacheRead", "cacheWrite", "totalTokens"},
		{"input", "output", "cacheRead", "cacheWrite", "total"},
		{"role", "toolCallId", "toolName", "content", "isError", "timestamp"},
	} {
		if len(o) != len(m) {
			continue
		}
		all := true
		for _, k := range o {
			if _, ok := m[k]; !ok {
				all = false
				break
			}
		}
		if all {
			return o
		}
	}
	return nil
}

// redactedAttachmentOrder is the member order of a sessions_spawn attachment
// redactAttachment built: {content, ...metadata in AttachmentMetadataKeys
// order} (OpenClaw's object literal), or nil when m is not one.
func redactedAttachmentOrder(m map[string]any) []string {
	if _, ok := m["content"]; !ok {
		return nil
	}
	order := []string{"content"}
	for _, k := range AttachmentMetadataKeys() {
		if _, ok := m[k]; ok {
			order = append(order, k)
		}
	}
	if len(order) != len(m) {
		return nil
	}
	return order
}

// scanner walks JSON text alongside its decoded value.
type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

var errSyntax = errors.New("JSON text does not match the decoded value")

func (s *scanner) walk(v any, k *KeyOrder) error {
	s.ws()
	if s.pos >= len(s.data) {
		return errSyntax
	}
	switch s.data[s.pos] {
	case '{':
		m, _ := v.(map[string]any)
		s.pos++
		type span struct{ start, end int }
		var order []string
		last := map[string]span{}
		for {
			s.ws()
			if s.pos < len(s.data) && s.data[s.pos] == '}' {
				s.pos++
				break
			}
			key, err := s.str()
			if err != nil {
				return err
			}
			s.ws()
			if s.pos >= len(s.data) || s.data[s.pos] != ':' {
				return errSyntax
			}
			s.pos++
			s.ws()
			start := s.pos
			if err := s.skip(); err != nil {
				return err
			}
			if _, dup := last[key]; !dup {
				order = append(order, key)
			}
			last[key] = span{start, s.pos}
			s.ws()
			if s.pos < len(s.data) && s.data[s.pos] == ',' {
				s.pos++
			}
		}
		if m == nil {
			return nil
		}
		if len(order) > 1 {
			k.RecordKeys(m, order)
		}
		end := s.pos
		for key, sp := range last {
			child := m[key]
			switch child.(type) {
			case map[string]any, []any:
				sub := scanner{data: s.data[:sp.end], pos: sp.start}
				if err := sub.walk(child, k); err != nil {
					s.pos = sub.pos
					return err
				}
			}
		}
		s.pos = end
		return nil
	case '[':
		arr, _ := v.([]any)
		s.pos++
		for i := 0; ; i++ {
			s.ws()
			if s.pos < len(s.data) && s.data[s.pos] == ']' {
				s.pos++
				return nil
			}
			var child any
			if i < len(arr) {
				child = arr[i]
			}
			switch child.(type) {
			case map[string]any, []any:
				if err := s.walk(child, k); err != nil {
					return err
				}
			default:
				if err := s.skip(); err != nil {
					return err
				}
			}
			s.ws()
			if s.pos < len(s.data) && s.data[s.pos] == ',' {
				s.pos++
			}
		}
	default:
		return s.skip()
	}
}

// str reads a JSON string at pos and returns its value.
func (s *scanner) str() (string, error) {
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return "", errSyntax
	}
	start := s.pos
	s.pos++
	escaped := false
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch c {
		case '\\':
			escaped = true
			s.pos += 2
			continue
		case '"':
			s.pos++
			if !escaped {
				return string(s.data[start+1 : s.pos-1]), nil
			}
			var out string
			if err := json.Unmarshal(s.data[start:s.pos], &out); err != nil {
				return "", err
			}
			return out, nil
		}
		s.pos++
	}
	return "", errSyntax
}

// skip moves past one JSON value.
func (s *scanner) skip() error {
	s.ws()
	if s.pos >= len(s.data) {
		return errSyntax
	}
	switch s.data[s.pos] {
	case '"':
		for s.pos++; s.pos < len(s.data); s.pos++ {
			switch s.data[s.pos] {
			case '\\':
				s.pos++
			case '"':
				s.pos++
				return nil
			}
		}
		return errSyntax
	case '{', '[':
		depth := 0
		for ; s.pos < len(s.data); s.pos++ {
			switch s.data[s.pos] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.pos++
					return nil
				}
			case '"':
				if err := s.skip(); err != nil {
					return err
				}
				s.pos--
			}
		}
		return errSyntax
	default:
		for s.pos < len(s.data) {
			switch s.data[s.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return nil
			}
			s.pos++
		}
		return nil
	}
}

// Undefined marks a value JSON.stringify leaves out (an object member) or
// writes as null (an array element).
type Undefined struct{}

// AppendJS appends the JSON.stringify encoding of v. Values: *Object,
// map[string]any (keys in k's order), []any, string, json.Number, float64,
// integers, bool, nil, []byte (a Uint8Array: an object of its bytes),
// json.RawMessage (written as is).
func AppendJS(dst []byte, v any, k *KeyOrder) ([]byte, error) {
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
			if dst, err = AppendJS(dst, m.Value, k); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case map[string]any:
		if v, ok := NonObjectValue(x); ok {
			return AppendJS(dst, v, k)
		}
		dst = append(dst, '{')
		var err error
		for i, key := range k.Keys(x) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsjson.AppendString(dst, key)
			dst = append(dst, ':')
			if dst, err = AppendJS(dst, x[key], k); err != nil {
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
			if dst, err = AppendJS(dst, e, k); err != nil {
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
			if dst, err = AppendJS(dst, e, k); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	}
	return nil, fmt.Errorf("cannot encode %T", v)
}

// Stringify is JSON.stringify(v) for a value that may be absent: ok is
// false when JavaScript would return undefined.
func Stringify(v any, present bool, k *KeyOrder) (string, bool, error) {
	if !present {
		return "", false, nil
	}
	b, err := AppendJS(nil, v, k)
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
func (o *Object) Copy(key string, src map[string]any, srcKey string) {
	if v, ok := src[srcKey]; ok {
		if _, undef := v.(Undefined); !undef {
			o.Set(key, v)
		}
	}
}

// Label names m in a TypeError message: "<role> message:", "<type>
// block:" or "value:".
func Label(m map[string]any) string {
	if r, ok := m["role"].(string); ok {
		return r + " message:"
	}
	if t, ok := m["type"].(string); ok {
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
	case map[string]any:
		return "an object"
	}
	return "a number"
}
