package jsvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/openclaw-tools/oc/internal/jsjson"
)

// A decoder for the context messages.
//
// The context of a large transcript is most of what `oc replay` holds in
// memory, and decoding it most of its time. This decoder reads it in one
// pass into Objects (their members in JavaScript's property order) and
// shares what repeats between messages: object keys and short string and
// number values (boxed once). It reads as JSON.parse does
// (internal/jsjson): strings keep lone surrogates (WTF-8), numbers are
// json.Number in JavaScript's spelling of the double JSON.parse makes of
// them, a repeated key keeps its first place and takes the last value.

// DecodeMessages decodes context messages (a null message is nil). With
// release, raw[i] is set to nil as soon as message i is decoded, so that the
// text of a large context can be collected while the rest is decoded (the
// caller must not need it again).
func DecodeMessages(raw []json.RawMessage, release bool) ([]Message, error) {
	out := make([]Message, len(raw))
	d := newValueDecoder()
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
	maxDepth         = 10000
)

type valueDecoder struct {
	data  []byte
	pos   int
	depth int
	// names are interned object keys; strs and nums boxed short values.
	names map[string]string
	strs  map[string]any
	nums  map[string]any
	// stack holds the members and elements of the values being decoded.
	stack []Member
}

func newValueDecoder() *valueDecoder {
	return &valueDecoder{names: map[string]string{}, strs: map[string]any{}, nums: map[string]any{}}
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
	case *Object:
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
		return &Object{}, nil
	}
	index := false // an array-index key was read
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
		// (JSON.parse).
		dup := false
		for i := base; i < len(d.stack); i++ {
			if d.stack[i].Key == key {
				d.stack[i].Value = v
				dup = true
				break
			}
		}
		if !dup {
			d.stack = append(d.stack, Member{Key: key, Value: v})
			index = index || jsjson.IsArrayIndex(key)
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
	o := &Object{Members: make([]Member, len(members))}
	copy(o.Members, members)
	if index {
		// JavaScript enumerates array-index keys first, ascending.
		slices.SortStableFunc(o.Members, func(a, b Member) int {
			ai, bi := jsjson.IsArrayIndex(a.Key), jsjson.IsArrayIndex(b.Key)
			switch {
			case ai && bi:
				return indexCompare(a.Key, b.Key)
			case ai:
				return -1
			case bi:
				return 1
			}
			return 0
		})
	}
	clear(members)
	d.stack = d.stack[:base]
	d.depth--
	return o, nil
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
		d.stack = append(d.stack, Member{Value: v})
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
		a[i] = e.Value
	}
	clear(elems)
	d.stack = d.stack[:base]
	d.depth--
	return a, nil
}

// Parse is JSON.parse(s).
func Parse(s string) (any, error) {
	d := newValueDecoder()
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
