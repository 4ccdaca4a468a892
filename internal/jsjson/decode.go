package jsjson

import (
	"fmt"
	"unicode/utf8"
)

// SyntaxError is a JSON.parse failure at byte Offset of the input.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s at offset %d", e.Msg, e.Offset) }

// MaxDepth bounds the nesting Parse accepts (Node.js overflows its stack a
// little beyond this on plain arrays).
const MaxDepth = 10000

// Parse is JSON.parse on the text data (decoded first as Node.js decodes
// UTF-8: invalid bytes become U+FFFD). Objects are *Object (a repeated key
// keeps its first place and takes the last value), arrays []any, numbers
// float64, strings WTF-8 (lone surrogates kept).
func Parse(data []byte) (any, error) {
	p := parser{data: ToWellFormed(data)}
	p.ws()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.pos != len(p.data) {
		return nil, p.fail("unexpected non-whitespace character after JSON")
	}
	return v, nil
}

type parser struct {
	data  []byte
	pos   int
	depth int
}

func (p *parser) fail(msg string) error { return &SyntaxError{Offset: p.pos, Msg: msg} }

// ws skips JSON whitespace: space, tab, LF, CR (JSON.parse accepts no other).
func (p *parser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value() (any, error) {
	if p.pos >= len(p.data) {
		return nil, p.fail("unexpected end of JSON input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, n, err := Unquote(p.data[p.pos:])
		if err != nil {
			return nil, &SyntaxError{Offset: p.pos + n, Msg: err.Error()}
		}
		p.pos += n
		return s, nil
	case c == '-' || c >= '0' && c <= '9':
		n := NumberLen(p.data[p.pos:])
		if n == 0 {
			return nil, p.fail("bad number")
		}
		f, err := ParseNumber(string(p.data[p.pos : p.pos+n]))
		if err != nil {
			return nil, p.fail("bad number")
		}
		p.pos += n
		return f, nil
	}
	for _, lit := range [...]struct {
		text string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(p.data)-p.pos >= len(lit.text) && string(p.data[p.pos:p.pos+len(lit.text)]) == lit.text {
			p.pos += len(lit.text)
			return lit.v, nil
		}
	}
	return nil, p.fail("unexpected token")
}

func (p *parser) object() (any, error) {
	o := &Object{}
	err := p.container('}', func() error {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return p.fail("expected property name")
		}
		key, n, err := Unquote(p.data[p.pos:])
		if err != nil {
			return &SyntaxError{Offset: p.pos + n, Msg: err.Error()}
		}
		p.pos += n
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return p.fail("expected ':'")
		}
		p.pos++
		p.ws()
		v, err := p.value()
		if err != nil {
			return err
		}
		o.Set(key, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

func (p *parser) array() (any, error) {
	a := []any{}
	err := p.container(']', func() error {
		v, err := p.value()
		if err != nil {
			return err
		}
		a = append(a, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// container parses an object or array whose opening bracket is at p.pos:
// the nesting bound, the empty case, and elements (elem, called at each
// one's first byte) separated by commas up to closer.
func (p *parser) container(closer byte, elem func() error) error {
	if p.depth++; p.depth > MaxDepth {
		return p.fail("too deeply nested")
	}
	p.pos++
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == closer {
		p.pos++
		p.depth--
		return nil
	}
	for {
		p.ws()
		if err := elem(); err != nil {
			return err
		}
		p.ws()
		if p.pos >= len(p.data) {
			return p.fail("unexpected end of JSON input")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			continue
		case closer:
			p.pos++
			p.depth--
			return nil
		}
		return p.fail("expected ',' or '" + string(closer) + "'")
	}
}

// NumberLen returns the length of the JSON number literal at the start of
// b, or 0 when there is none.
func NumberLen(b []byte) int {
	i := 0
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return 0
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return 0
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0
		}
	}
	return i
}

type unquoteError string

func (e unquoteError) Error() string { return string(e) }

// Unquote decodes the JSON string literal at the start of b (b[0] is '"')
// as JSON.parse does: escapes of surrogate pairs give the character, lone
// surrogate escapes stay lone (WTF-8). b must be well-formed UTF-8 (see
// ToWellFormed). It returns the string and the length of the literal, or
// an error and the offset of the fault.
func Unquote(b []byte) (string, int, error) {
	i := 1
	for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
		i++
	}
	if i < len(b) && b[i] == '"' {
		return string(b[1:i]), i + 1, nil
	}
	buf := make([]byte, 0, i+16)
	buf = append(buf, b[1:i]...)
	pendingHigh := rune(0) // a lone high surrogate just written (3 bytes)
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return string(buf), i + 1, nil
		case c < 0x20:
			return "", i, unquoteError("bad control character in string literal")
		case c != '\\':
			pendingHigh = 0
			buf = append(buf, c)
			i++
			continue
		}
		if i+1 >= len(b) {
			return "", i, unquoteError("unterminated string")
		}
		e := b[i+1]
		i += 2
		var r rune
		switch e {
		case '"', '\\', '/':
			r = rune(e)
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'u':
			if i+4 > len(b) {
				return "", i, unquoteError("bad unicode escape")
			}
			for _, h := range b[i : i+4] {
				r <<= 4
				switch {
				case h >= '0' && h <= '9':
					r |= rune(h - '0')
				case h >= 'a' && h <= 'f':
					r |= rune(h - 'a' + 10)
				case h >= 'A' && h <= 'F':
					r |= rune(h - 'A' + 10)
				default:
					return "", i, unquoteError("bad unicode escape")
				}
			}
			i += 4
			if isLow(r) && pendingHigh != 0 {
				buf = buf[:len(buf)-3]
				buf = utf8.AppendRune(buf, 0x10000+(pendingHigh-0xD800)<<10+(r-0xDC00))
				pendingHigh = 0
				continue
			}
			buf = AppendUnit(buf, r)
			pendingHigh = 0
			if isHigh(r) {
				pendingHigh = r
			}
			continue
		default:
			return "", i - 1, unquoteError("bad escaped character")
		}
		pendingHigh = 0
		buf = append(buf, byte(r))
	}
	return "", i, unquoteError("unterminated string")
}

// StringValue decodes v, exactly one JSON string literal, as Go text: the
// string JSON.parse makes of it, with each lone surrogate (which a Go
// string cannot hold) as U+FFFD, and invalid UTF-8 in v read as Node reads
// it (ToWellFormed). ok is false when v is not a well-formed string literal.
func StringValue(v []byte) (s string, ok bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if j, f := scanStringAt(v, 1); j == len(v) && f&(Escaped|badUTF8String) == 0 {
		// one literal of well-formed UTF-8 without escapes (an id, a role,
		// a type): its text is the string, as the general decode would make it
		return string(v[1 : len(v)-1]), true
	}
	w := ToWellFormed(v)
	s, n, err := Unquote(w)
	if err != nil || n != len(w) {
		return "", false
	}
	return rewriteSurrogates(s, "\uFFFD"), true
}
