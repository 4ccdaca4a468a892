package jsvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openclaw-tools/oc/internal/jsjson"
)

// A decoder for the context messages that records key order as it goes.
//
// The context of a large transcript is most of what `oc replay` holds in
// memory, and decoding it, then walking the text again for the key order,
// was most of its time. This decoder does both in one pass, and shares what
// repeats between messages: object keys, short string and number values
// (boxed once), and the key order of objects with the same keys in the same
// order. It reads as JSON.parse does (internal/jsjson): strings keep lone
// surrogates (WTF-8), numbers are json.Number in JavaScript's spelling of
// the double JSON.parse makes of them, a repeated key keeps its first place
// and takes the last value.

// DecodeMessagesKeyed is DecodeMessages followed by KeyOrder.RecordMessages,
// in one pass and with less memory. With release, raw[i] is set to nil as
// soon as message i is decoded, so that the text of a large context can be
// collected while the rest is decoded (the caller must not need it again).
func DecodeMessagesKeyed(raw []json.RawMessage, release bool) ([]Message, *KeyOrder, error) {
	keys := NewKeyOrder()
	msgs, err := decodeMessages(raw, keys, release)
	if err != nil {
		return nil, nil, err
	}
	return msgs, keys, nil
}

// DecodeMessages decodes a JSON array of messages (or a list of raw messages).
func DecodeMessages(raw []json.RawMessage) ([]Message, error) {
	return decodeMessages(raw, nil, false)
}

func decodeMessages(raw []json.RawMessage, keys *KeyOrder, release bool) ([]Message, error) {
	out := make([]Message, len(raw))
	d := newValueDecoder(keys)
	for i, r := range raw {
		// The text as Node.js reads a file: invalid UTF-8 becomes U+FFFD.
		m, err := d.message(jsjson.ToWellFormed(r))
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		out[i] = m
		if release {
			raw[i] = nil
		}
	}
	return out, nil
}

// Limits of the tables shared between messages (beyond them values are
// simply not shared).
const (
	internMaxLen     = 32
	internMaxEntries = 1 << 14
	orderMaxEntries  = 1 << 12
	maxDepth         = 10000
)

type member struct {
	key string
	val any
}

type valueDecoder struct {
	data  []byte
	pos   int
	depth int
	keys  *KeyOrder
	// names are interned object keys; strs and nums boxed short values.
	names map[string]string
	strs  map[string]any
	nums  map[string]any
	// orders are interned key orders, by their keys joined with NUL.
	orders   map[string][]string
	orderBuf []byte
	// stack holds the members and elements of the values being decoded.
	stack []member
}

func newValueDecoder(keys *KeyOrder) *valueDecoder {
	return &valueDecoder{keys: keys, names: map[string]string{}, strs: map[string]any{},
		nums: map[string]any{}, orders: map[string][]string{}}
}

var errDecode = errors.New("not decoded here")

// message decodes one message: an object, null, or (OpenClaw replays
// those too) any other JSON value, carried as NonObjectMessage.
func (d *valueDecoder) message(raw []byte) (Message, error) {
	d.data, d.pos, d.depth = raw, 0, 0
	d.stack = d.stack[:0]
	d.ws()
	v, err := d.value()
	if err == nil {
		d.ws()
		if d.pos != len(d.data) {
			err = errDecode
		}
	}
	if err != nil {
		return nil, fmt.Errorf("invalid JSON at byte %d", d.pos)
	}
	switch x := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return x, nil
	}
	return NonObjectMessage(v), nil
}

func (d *valueDecoder) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *valueDecoder) literal(s string) bool {
	if !bytes.HasPrefix(d.data[d.pos:], []byte(s)) {
		return false
	}
	d.pos += len(s)
	return true
}

func (d *valueDecoder) value() (any, error) {
	d.ws()
	if d.pos >= len(d.data) {
		return nil, errDecode
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		b, s, err := d.str()
		if err != nil {
			return nil, err
		}
		if b == nil {
			return s, nil
		}
		if len(b) > internMaxLen {
			return string(b), nil
		}
		if v, ok := d.strs[string(b)]; ok {
			return v, nil
		}
		var v any = string(b)
		if len(d.strs) < internMaxEntries {
			d.strs[string(b)] = v
		}
		return v, nil
	case c == 't':
		if d.literal("true") {
			return true, nil
		}
	case c == 'f':
		if d.literal("false") {
			return false, nil
		}
	case c == 'n':
		if d.literal("null") {
			return nil, nil
		}
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return nil, errDecode
}

// number reads a JSON number as a json.Number of its text.
func (d *valueDecoder) number() (any, error) {
	start := d.pos
	if d.data[d.pos] == '-' {
		d.pos++
	}
	if d.pos < len(d.data) && d.data[d.pos] == '0' {
		d.pos++
	} else if d.digits() == 0 {
		return nil, errDecode
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if d.digits() == 0 {
			return nil, errDecode
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if d.digits() == 0 {
			return nil, errDecode
		}
	}
	text := d.data[start:d.pos]
	if canon, err := jsjson.CanonicalNumber(string(text)); err != nil {
		return nil, errDecode
	} else if canon != string(text) && canon != "null" { // "null": beyond the double range, kept (±Infinity)
		// JSON.parse makes it a double: JavaScript spells it so from here
		// on (100.0 -> 100, beyond 2^53 rounded).
		return json.Number(canon), nil
	}
	if len(text) <= internMaxLen {
		if v, ok := d.nums[string(text)]; ok {
			return v, nil
		}
		var v any = json.Number(text)
		if len(d.nums) < internMaxEntries {
			d.nums[string(text)] = v
		}
		return v, nil
	}
	return json.Number(text), nil
}

func (d *valueDecoder) digits() int {
	n := 0
	for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
		d.pos++
		n++
	}
	return n
}

// str reads a string: without escapes as the bytes of the text (b), else
// as a new string (s).
func (d *valueDecoder) str() (b []byte, s string, err error) {
	d.pos++ // opening quote
	start := d.pos
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			b := d.data[start:d.pos:d.pos]
			d.pos++
			return b, "", nil
		case c == '\\':
			s, err := d.escapedStr(start)
			return nil, s, err
		case c < 0x20:
			return nil, "", errDecode
		}
		d.pos++
	}
	return nil, "", errDecode
}

// escapedStr reads a string with escapes as JSON.parse does (lone
// surrogates kept, in WTF-8: see internal/jsjson).
func (d *valueDecoder) escapedStr(start int) (string, error) {
	s, n, err := jsjson.Unquote(d.data[start-1:])
	if err != nil {
		return "", errDecode
	}
	d.pos = start - 1 + n
	return s, nil
}

func (d *valueDecoder) name(b []byte, s string) string {
	if b == nil {
		return s
	}
	if n, ok := d.names[string(b)]; ok {
		return n
	}
	n := string(b)
	if len(d.names) < internMaxEntries {
		d.names[n] = n
	}
	return n
}

func (d *valueDecoder) object() (any, error) {
	if d.depth++; d.depth > maxDepth {
		return nil, errDecode
	}
	d.pos++ // {
	base := len(d.stack)
	d.ws()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		d.depth--
		return map[string]any{}, nil
	}
	for {
		d.ws()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, errDecode
		}
		b, s, err := d.str()
		if err != nil {
			return nil, err
		}
		key := d.name(b, s)
		d.ws()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, errDecode
		}
		d.pos++
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		// A repeated key keeps its first place and takes the last value
		// (JSON.parse; encoding/json keeps the last value too).
		dup := false
		for i := base; i < len(d.stack); i++ {
			if d.stack[i].key == key {
				d.stack[i].val = v
				dup = true
				break
			}
		}
		if !dup {
			d.stack = append(d.stack, member{key: key, val: v})
		}
		d.ws()
		if d.pos >= len(d.data) {
			return nil, errDecode
		}
		if d.data[d.pos] == ',' {
			d.pos++
			continue
		}
		if d.data[d.pos] != '}' {
			return nil, errDecode
		}
		d.pos++
		break
	}
	members := d.stack[base:]
	m := make(map[string]any, len(members))
	for _, mb := range members {
		m[mb.key] = mb.val
	}
	if d.keys != nil && len(members) > 1 {
		d.keys.RecordKeys(m, d.order(members))
	}
	clear(members)
	d.stack = d.stack[:base]
	d.depth--
	return m, nil
}

// order returns the keys of members, shared with earlier objects that have
// the same keys in the same order.
func (d *valueDecoder) order(members []member) []string {
	d.orderBuf = d.orderBuf[:0]
	for _, mb := range members {
		d.orderBuf = append(d.orderBuf, mb.key...)
		d.orderBuf = append(d.orderBuf, 0)
	}
	if o, ok := d.orders[string(d.orderBuf)]; ok {
		return o
	}
	o := make([]string, len(members))
	for i, mb := range members {
		o[i] = mb.key
	}
	if len(d.orders) < orderMaxEntries {
		d.orders[string(d.orderBuf)] = o
	}
	return o
}

func (d *valueDecoder) array() (any, error) {
	if d.depth++; d.depth > maxDepth {
		return nil, errDecode
	}
	d.pos++ // [
	base := len(d.stack)
	d.ws()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		d.depth--
		return []any{}, nil
	}
	for {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		d.stack = append(d.stack, member{val: v})
		d.ws()
		if d.pos >= len(d.data) {
			return nil, errDecode
		}
		if d.data[d.pos] == ',' {
			d.pos++
			continue
		}
		if d.data[d.pos] != ']' {
			return nil, errDecode
		}
		d.pos++
		break
	}
	elems := d.stack[base:]
	a := make([]any, len(elems))
	for i, e := range elems {
		a[i] = e.val
	}
	clear(elems)
	d.stack = d.stack[:base]
	d.depth--
	return a, nil
}

// Parse is JSON.parse(s); the key order of the objects it creates is
// recorded in keys (which may be nil).
func Parse(s string, keys *KeyOrder) (any, error) {
	d := newValueDecoder(keys)
	d.data = []byte(s)
	d.ws()
	v, err := d.value()
	if err == nil {
		d.ws()
		if d.pos != len(d.data) {
			return nil, fmt.Errorf("unexpected data after JSON value")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("invalid JSON at byte %d", d.pos)
	}
	return v, nil
}

// DecodeWithNumbers decodes one JSON value with encoding/json, numbers kept
// as json.Number (not JSON.parse: see Parse for that).
func DecodeWithNumbers(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}
