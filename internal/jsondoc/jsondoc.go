// Package jsondoc is an ordered JSON document model for OpenClaw's small,
// hand-edited JSON documents (openclaw.json, cron stores, their state
// sidecar, sessions.json). Objects keep their key order, numbers
// keep JavaScript semantics, and Marshal writes exactly what Node's
// JSON.stringify(value, null, 2) writes, so a store read and written without
// changes is byte-identical to what OpenClaw itself would save.
//
// Parse accepts what OpenClaw's parseJsonWithJson5Fallback accepts in practice:
// strict JSON, plus the JSON5 extensions people type by hand (comments,
// trailing commas, unquoted keys, single-quoted strings, hex numbers, leading
// or trailing decimal points, a leading '+', Infinity and NaN). No JSON5 module
// is listed among the Go packages this project may use, and the grammar needed
// is small, so it is written here and fuzzed. Numbers and strings are
// written by internal/jsjson, the one JSON.stringify of the project.
package jsondoc

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/internal/jsjson"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The kinds of Value.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// Member is one key/value pair of an object, in document order.
type Member struct {
	Key   string
	Value *Value
}

// Value is one JSON value. Strings are stored as WTF-8 so lone surrogate
// escapes survive a round trip, as they do in JavaScript.
type Value struct {
	Kind    Kind
	Bool    bool
	Num     float64
	Str     string
	Items   []*Value
	Members []Member
}

// Constructors.
func NewString(s string) *Value  { return &Value{Kind: String, Str: s} }
func NewNumber(f float64) *Value { return &Value{Kind: Number, Num: f} }
func NewBool(b bool) *Value      { return &Value{Kind: Bool, Bool: b} }
func NewObject() *Value          { return &Value{Kind: Object} }

// Get returns the member value for key, or nil.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := range v.Members {
		if v.Members[i].Key == key {
			return v.Members[i].Value
		}
	}
	return nil
}

// Has reports whether the object has key.
func (v *Value) Has(key string) bool { return v.index(key) >= 0 }

func (v *Value) index(key string) int {
	if v == nil || v.Kind != Object {
		return -1
	}
	for i := range v.Members {
		if v.Members[i].Key == key {
			return i
		}
	}
	return -1
}

// StringOf returns the member's string value and whether it is a string.
func (v *Value) StringOf(key string) (string, bool) {
	m := v.Get(key)
	if m == nil || m.Kind != String {
		return "", false
	}
	return m.Str, true
}

// Set replaces key's value in place, or appends key at the end.
func (v *Value) Set(key string, val *Value) {
	if i := v.index(key); i >= 0 {
		v.Members[i].Value = val
		return
	}
	v.Members = append(v.Members, Member{Key: key, Value: val})
}

// SetAfter replaces key's value in place; a new key goes right after the
// last of the given keys that exists, or first when none does and first is
// true, else at the end.
func (v *Value) SetAfter(key string, val *Value, first bool, after ...string) {
	if i := v.index(key); i >= 0 {
		v.Members[i].Value = val
		return
	}
	pos := -1
	for _, a := range after {
		if i := v.index(a); i >= 0 && i+1 > pos {
			pos = i + 1
		}
	}
	if pos < 0 {
		if first {
			pos = 0
		} else {
			pos = len(v.Members)
		}
	}
	v.Members = append(v.Members, Member{})
	copy(v.Members[pos+1:], v.Members[pos:])
	v.Members[pos] = Member{Key: key, Value: val}
}

// Delete removes key and reports whether it was there.
func (v *Value) Delete(key string) bool {
	i := v.index(key)
	if i < 0 {
		return false
	}
	v.Members = append(v.Members[:i], v.Members[i+1:]...)
	return true
}

// Clone is a deep copy.
func (v *Value) Clone() *Value {
	if v == nil {
		return nil
	}
	c := *v
	if v.Items != nil {
		c.Items = make([]*Value, len(v.Items))
		for i, it := range v.Items {
			c.Items[i] = it.Clone()
		}
	}
	if v.Members != nil {
		c.Members = make([]Member, len(v.Members))
		for i, m := range v.Members {
			c.Members[i] = Member{Key: m.Key, Value: m.Value.Clone()}
		}
	}
	return &c
}

// Equal compares two values as JSON.parse results: same kinds, same numbers,
// same strings, same keys in the same order.
func Equal(a, b *Value) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Null:
		return true
	case Bool:
		return a.Bool == b.Bool
	case Number:
		return a.Num == b.Num || (math.IsNaN(a.Num) && math.IsNaN(b.Num))
	case String:
		return a.Str == b.Str
	case Array:
		if len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !Equal(a.Items[i], b.Items[i]) {
				return false
			}
		}
		return true
	default:
		if len(a.Members) != len(b.Members) {
			return false
		}
		for i := range a.Members {
			if a.Members[i].Key != b.Members[i].Key || !Equal(a.Members[i].Value, b.Members[i].Value) {
				return false
			}
		}
		return true
	}
}

// ---------------------------------------------------------------- parsing

// MaxDepth bounds nesting so hostile input cannot exhaust the stack. It lies
// above the depth at which OpenClaw 2026.5.6's cron loader itself fails
// (OpenClawCronFailsDepth), so every store OpenClaw can load is read.
const MaxDepth = 10000

// SyntaxError locates a parse failure.
type SyntaxError struct {
	Line, Col int
	Msg       string
	// TooDeep: the document nests containers deeper than MaxDepth (it may be
	// valid JSON; the parser stopped reading it).
	TooDeep bool
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// ParseResult tells how lenient the parse had to be.
type ParseResult struct {
	JSON5         bool     // a JSON5 extension was needed
	DuplicateKeys []string // keys that appeared twice in one object (last wins, first position)
	// Depth is the deepest nesting of objects and arrays (a bare scalar: 0,
	// {"a":[1]}: 2).
	Depth int
}

// Parse reads one JSON or JSON5 document. Invalid UTF-8 bytes read as U+FFFD,
// as Node's utf-8 decoding does; a leading byte-order mark is skipped.
func Parse(data []byte) (*Value, ParseResult, error) {
	if !utf8.Valid(data) {
		data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
	}
	p := &parser{src: data}
	if bytes.HasPrefix(p.src, []byte("\uFEFF")) {
		p.pos = 3
	}
	p.skipSpace()
	v, err := p.value(0)
	if err == nil {
		p.skipSpace()
		if p.err != nil {
			err = p.err
		} else if p.pos < len(p.src) {
			err = p.errorf("unexpected %q after the document", p.peekRune())
		}
	}
	if err != nil {
		return nil, ParseResult{Depth: p.depth}, err
	}
	return v, ParseResult{JSON5: p.json5, DuplicateKeys: p.dups, Depth: p.depth}, nil
}

type parser struct {
	src   []byte
	pos   int
	json5 bool
	dups  []string
	err   error
	depth int // deepest container nesting seen
}

func (p *parser) errorf(format string, args ...any) error {
	line, col := 1, 1
	for _, b := range p.src[:min(p.pos, len(p.src))] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) peekRune() rune {
	if p.pos >= len(p.src) {
		return utf8.RuneError
	}
	r, _ := utf8.DecodeRune(p.src[p.pos:])
	return r
}

// skipSpace skips JSON whitespace and, as JSON5 does, comments and the other
// Unicode white space.
func (p *parser) skipSpace() {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			p.json5 = true
			for p.pos < len(p.src) && p.src[p.pos] != '\n' && p.src[p.pos] != '\r' {
				p.pos++
			}
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			p.json5 = true
			end := bytes.Index(p.src[p.pos+2:], []byte("*/"))
			if end < 0 {
				p.err = p.errorf("unterminated comment")
				p.pos = len(p.src)
				return
			}
			p.pos += end + 4
		case c == '\v' || c == '\f':
			p.json5 = true
			p.pos++
		case c >= 0x80:
			r, n := utf8.DecodeRune(p.src[p.pos:])
			if r == 0xA0 || r == 0xFEFF || r == 0x2028 || r == 0x2029 || r == 0x1680 || (r >= 0x2000 && r <= 0x200A) || r == 0x202F || r == 0x205F || r == 0x3000 {
				p.json5 = true
				p.pos += n
				continue
			}
			return
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (*Value, error) {
	if p.err != nil {
		return nil, p.err
	}
	if depth >= MaxDepth && p.pos < len(p.src) && (p.src[p.pos] == '{' || p.src[p.pos] == '[') {
		err := p.errorf("nesting deeper than %d levels", MaxDepth)
		if se, ok := err.(*SyntaxError); ok {
			se.TooDeep = true
		}
		p.depth = max(p.depth, depth+1)
		return nil, err
	}
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end of input")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"' || c == '\'':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return NewString(s), nil
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		word := p.ident()
		switch word {
		case "true":
			return NewBool(true), nil
		case "false":
			return NewBool(false), nil
		case "null":
			return &Value{Kind: Null}, nil
		case "Infinity":
			p.json5 = true
			return NewNumber(math.Inf(1)), nil
		case "NaN":
			p.json5 = true
			return NewNumber(math.NaN()), nil
		}
		if word == "" {
			return nil, p.errorf("unexpected %q", p.peekRune())
		}
		return nil, p.errorf("unexpected word %q", word)
	}
}

func isIdentStart(r rune) bool {
	return r == '$' || r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r > 0x7f && r != utf8.RuneError && !isJSON5Space(r))
}

func isIdentPart(r rune) bool {
	return isIdentStart(r) || (r >= '0' && r <= '9') || r == 0x200C || r == 0x200D
}

func isJSON5Space(r rune) bool {
	return r == 0xA0 || r == 0xFEFF || r == 0x2028 || r == 0x2029 || r == 0x1680 || (r >= 0x2000 && r <= 0x200A) || r == 0x202F || r == 0x205F || r == 0x3000
}

func (p *parser) ident() string {
	start := p.pos
	for p.pos < len(p.src) {
		r, n := utf8.DecodeRune(p.src[p.pos:])
		if p.pos == start && !isIdentStart(r) || p.pos > start && !isIdentPart(r) {
			break
		}
		p.pos += n
	}
	return string(p.src[start:p.pos])
}

func (p *parser) object(depth int) (*Value, error) {
	p.pos++ // {
	p.depth = max(p.depth, depth+1)
	obj := &Value{Kind: Object, Members: []Member{}}
	var seen map[string]int
	for {
		p.skipSpace()
		if p.err != nil {
			return nil, p.err
		}
		if p.pos >= len(p.src) {
			return nil, p.errorf("unterminated object")
		}
		if p.src[p.pos] == '}' {
			p.pos++
			return obj, nil
		}
		var key string
		if c := p.src[p.pos]; c == '"' || c == '\'' {
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			key = k
		} else {
			key = p.ident()
			if key == "" {
				return nil, p.errorf("expected a key, found %q", p.peekRune())
			}
			p.json5 = true
		}
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errorf("expected ':' after key %q", key)
		}
		p.pos++
		p.skipSpace()
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if seen == nil {
			seen = map[string]int{}
		}
		if i, dup := seen[key]; dup {
			// JSON.parse: the last value wins, the key keeps its first position.
			obj.Members[i].Value = val
			p.dups = append(p.dups, key)
		} else {
			seen[key] = len(obj.Members)
			obj.Members = append(obj.Members, Member{Key: key, Value: val})
		}
		p.skipSpace()
		if p.pos >= len(p.src) {
			return nil, p.errorf("unterminated object")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
			if p.pos < len(p.src) && p.src[p.pos] == '}' {
				p.json5 = true
			}
		case '}':
			p.pos++
			return obj, nil
		default:
			return nil, p.errorf("expected ',' or '}' in object, found %q", p.peekRune())
		}
	}
}

func (p *parser) array(depth int) (*Value, error) {
	p.pos++ // [
	p.depth = max(p.depth, depth+1)
	arr := &Value{Kind: Array, Items: []*Value{}}
	for {
		p.skipSpace()
		if p.err != nil {
			return nil, p.err
		}
		if p.pos >= len(p.src) {
			return nil, p.errorf("unterminated array")
		}
		if p.src[p.pos] == ']' {
			p.pos++
			return arr, nil
		}
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		arr.Items = append(arr.Items, val)
		p.skipSpace()
		if p.pos >= len(p.src) {
			return nil, p.errorf("unterminated array")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
			if p.pos < len(p.src) && p.src[p.pos] == ']' {
				p.json5 = true
			}
		case ']':
			p.pos++
			return arr, nil
		default:
			return nil, p.errorf("expected ',' or ']' in array, found %q", p.peekRune())
		}
	}
}

func (p *parser) str() (string, error) {
	quote := p.src[p.pos]
	if quote == '\'' {
		p.json5 = true
	}
	p.pos++
	var b []byte
	start := p.pos
	for {
		if p.pos >= len(p.src) {
			return "", p.errorf("unterminated string")
		}
		c := p.src[p.pos]
		switch {
		case c == quote:
			if b == nil {
				s := string(p.src[start:p.pos])
				p.pos++
				return s, nil
			}
			b = append(b, p.src[start:p.pos]...)
			p.pos++
			return string(b), nil
		case c == '\\':
			b = append(b, p.src[start:p.pos]...)
			p.pos++
			if p.pos >= len(p.src) {
				return "", p.errorf("unterminated string")
			}
			var err error
			if b, err = p.escape(b); err != nil {
				return "", err
			}
			start = p.pos
		case c < 0x20:
			return "", p.errorf("control character U+%04X in string", c)
		default:
			p.pos++
		}
	}
}

// escape appends what the escape sequence at p.pos (just after its
// backslash) stands for to b.
func (p *parser) escape(b []byte) ([]byte, error) {
	e := p.src[p.pos]
	p.pos++
	switch e {
	case '"', '\\', '/':
		return append(b, e), nil
	case 'b':
		return append(b, '\b'), nil
	case 'f':
		return append(b, '\f'), nil
	case 'n':
		return append(b, '\n'), nil
	case 'r':
		return append(b, '\r'), nil
	case 't':
		return append(b, '\t'), nil
	case 'u':
		return p.unicodeEscape(b)
	}
	p.json5 = true
	return p.json5Escape(b, e)
}

// unicodeEscape appends the \uXXXX escape at p.pos (after its "\u"), joined
// with a following low surrogate escape into one code point; a lone
// surrogate is kept as WTF-8.
func (p *parser) unicodeEscape(b []byte) ([]byte, error) {
	r, err := p.hex(4)
	if err != nil {
		return nil, err
	}
	if r >= 0xD800 && r < 0xDC00 && p.pos+6 <= len(p.src) && p.src[p.pos] == '\\' && p.src[p.pos+1] == 'u' {
		save := p.pos
		p.pos += 2
		lo, err := p.hex(4)
		if err == nil && lo >= 0xDC00 && lo < 0xE000 {
			return utf8.AppendRune(b, 0x10000+(r-0xD800)<<10+(lo-0xDC00)), nil
		}
		p.pos = save
	}
	return appendWTF8(b, r), nil
}

// json5Escape appends what an escape JSON5 allows and JSON does not (e, the
// byte after the backslash) stands for.
func (p *parser) json5Escape(b []byte, e byte) ([]byte, error) {
	switch e {
	case '\'':
		b = append(b, '\'')
	case 'v':
		b = append(b, '\v')
	case '0':
		b = append(b, 0)
	case 'x':
		r, err := p.hex(2)
		if err != nil {
			return nil, err
		}
		b = utf8.AppendRune(b, r)
	case '\n':
	case '\r':
		if p.pos < len(p.src) && p.src[p.pos] == '\n' {
			p.pos++
		}
	default:
		if e >= 0x80 {
			p.pos--
			r, n := utf8.DecodeRune(p.src[p.pos:])
			p.pos += n
			if r != 0x2028 && r != 0x2029 {
				b = utf8.AppendRune(b, r)
			}
		} else if e >= '1' && e <= '9' {
			return nil, p.errorf("invalid escape \\%c", e)
		} else {
			b = append(b, e)
		}
	}
	return b, nil
}

func (p *parser) hex(n int) (rune, error) {
	if p.pos+n > len(p.src) {
		return 0, p.errorf("bad \\u escape")
	}
	v, err := strconv.ParseUint(string(p.src[p.pos:p.pos+n]), 16, 32)
	if err != nil {
		return 0, p.errorf("bad hex escape %q", p.src[p.pos:p.pos+n])
	}
	p.pos += n
	return rune(v), nil
}

// appendWTF8 encodes r, including a lone surrogate, as three bytes.
func appendWTF8(b []byte, r rune) []byte {
	if r >= 0xD800 && r < 0xE000 {
		return append(b, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(b, r)
}

func (p *parser) number() (*Value, error) {
	start := p.pos
	neg := false
	if c := p.src[p.pos]; c == '+' || c == '-' {
		if c == '+' {
			p.json5 = true
		}
		neg = c == '-'
		p.pos++
	}
	rest := p.src[p.pos:]
	switch {
	case bytes.HasPrefix(rest, []byte("Infinity")):
		p.json5 = true
		p.pos += len("Infinity")
		if neg {
			return NewNumber(math.Inf(-1)), nil
		}
		return NewNumber(math.Inf(1)), nil
	case bytes.HasPrefix(rest, []byte("NaN")):
		p.json5 = true
		p.pos += 3
		return NewNumber(math.NaN()), nil
	case len(rest) > 1 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X'):
		p.json5 = true
		p.pos += 2
		return p.hexNumber(neg)
	}
	return p.decimal(start)
}

// hexNumber reads the digits of a JSON5 hexadecimal number after its 0x.
func (p *parser) hexNumber(neg bool) (*Value, error) {
	hs := p.pos
	for p.pos < len(p.src) && isHex(p.src[p.pos]) {
		p.pos++
	}
	if hs == p.pos {
		return nil, p.errorf("bad hex number")
	}
	f := 0.0
	for _, c := range p.src[hs:p.pos] {
		f = f*16 + float64(hexVal(c))
	}
	if neg {
		f = -f
	}
	return NewNumber(f), nil
}

// decimal reads a decimal number whose literal, sign included, starts at
// start (p.pos is past the sign).
func (p *parser) decimal(start int) (*Value, error) {
	intDigits := p.digits()
	if intDigits > 1 && p.src[start+boolInt(p.src[start] == '-' || p.src[start] == '+')] == '0' {
		return nil, p.errorf("number with a leading zero")
	}
	fracDigits := 0
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		fracDigits = p.digits()
		if fracDigits == 0 || intDigits == 0 {
			p.json5 = true
		}
	}
	if intDigits == 0 && fracDigits == 0 {
		return nil, p.errorf("bad number")
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return nil, p.errorf("bad exponent")
		}
	}
	lit := strings.TrimPrefix(string(p.src[start:p.pos]), "+")
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		var ne *strconv.NumError
		if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
			return nil, p.errorf("bad number %q", lit)
		}
		// ±Inf or ±0 on range errors, as JavaScript does.
	}
	return NewNumber(f), nil
}

// digits skips decimal digits and returns how many there were.
func (p *parser) digits() int {
	s := p.pos
	for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		p.pos++
	}
	return p.pos - s
}

func hexVal(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	default:
		return c - '0'
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ---------------------------------------------------------------- writing

// Marshal writes v as JSON.stringify(v, null, 2) does: two-space indent, no
// trailing newline, no HTML escaping, JavaScript number formatting
// (NaN and ±Infinity become null).
func Marshal(v *Value) []byte {
	var b bytes.Buffer
	writeValue(&b, v, 0, true)
	return b.Bytes()
}

// MarshalCompact writes v as JSON.stringify(v) does.
func MarshalCompact(v *Value) []byte {
	var b bytes.Buffer
	writeValue(&b, v, 0, false)
	return b.Bytes()
}

func writeValue(b *bytes.Buffer, v *Value, depth int, indent bool) {
	if v == nil {
		b.WriteString("null")
		return
	}
	nl := func(d int) {
		if indent {
			b.WriteByte('\n')
			for i := 0; i < d; i++ {
				b.WriteString("  ")
			}
		}
	}
	switch v.Kind {
	case Null:
		b.WriteString("null")
	case Bool:
		b.WriteString(strconv.FormatBool(v.Bool))
	case Number:
		b.Write(jsjson.AppendNumber(b.AvailableBuffer(), v.Num))
	case String:
		b.Write(jsjson.AppendString(b.AvailableBuffer(), v.Str))
	case Array:
		if len(v.Items) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, it := range v.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(depth + 1)
			writeValue(b, it, depth+1, indent)
		}
		nl(depth)
		b.WriteByte(']')
	case Object:
		if len(v.Members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range v.Members {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(depth + 1)
			b.Write(jsjson.AppendString(b.AvailableBuffer(), m.Key))
			b.WriteByte(':')
			if indent {
				b.WriteByte(' ')
			}
			writeValue(b, m.Value, depth+1, indent)
		}
		nl(depth)
		b.WriteByte('}')
	}
}
