package jsjson

import (
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

// surrogateAt reports the lone surrogate (as its code unit) encoded in WTF-8
// at s[i:], or 0.
func surrogateAt(s string, i int) rune {
	if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2]&0xC0 == 0x80 {
		return 0xD000 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
	}
	return 0
}

func isHigh(u rune) bool { return u >= 0xD800 && u <= 0xDBFF }
func isLow(u rune) bool  { return u >= 0xDC00 && u <= 0xDFFF }

// Unit decodes the character at s[i:]: a rune (valid UTF-8), a lone
// surrogate code unit (WTF-8), or U+FFFD for any other byte (size 1). A
// WTF-8 high surrogate directly followed by a WTF-8 low surrogate is one
// character, as it is in JavaScript (size 6).
func Unit(s string, i int) (r rune, size int) {
	if u := surrogateAt(s, i); u != 0 {
		if isHigh(u) {
			if l := surrogateAt(s, i+3); isLow(l) {
				return 0x10000 + (u-0xD800)<<10 + (l - 0xDC00), 6
			}
		}
		return u, 3
	}
	if s[i] < utf8.RuneSelf {
		return rune(s[i]), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// AppendUnit appends the code unit or code point r in WTF-8 (a surrogate
// as its three bytes).
func AppendUnit(dst []byte, r rune) []byte {
	if r >= 0xD800 && r <= 0xDFFF {
		return append(dst, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
	}
	return utf8.AppendRune(dst, r)
}

// HasSurrogate reports whether s holds a lone surrogate.
func HasSurrogate(s string) bool {
	for i := strings.IndexByte(s, 0xED); i >= 0; {
		if surrogateAt(s, i) != 0 {
			return true
		}
		j := strings.IndexByte(s[i+1:], 0xED)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// Len is String.prototype.length: UTF-16 code units.
func Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := Unit(s, i)
		i += size
		if r > 0xFFFF {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// Slice is s.slice(0, n) for n >= 0: the first n UTF-16 code units. A
// surrogate pair cut in half leaves its high surrogate, as in JavaScript.
func Slice(s string, n int) string {
	if len(s) <= n {
		return s // n bytes hold at most n code units
	}
	units := 0
	for i := 0; i < len(s); {
		if units >= n {
			return s[:i]
		}
		r, size := Unit(s, i)
		if r > 0xFFFF {
			if units+2 > n {
				return string(AppendUnit([]byte(s[:i]), 0xD800+(r-0x10000)>>10))
			}
			units += 2
		} else {
			units++
		}
		i += size
	}
	return s
}

// Units returns the UTF-16 code units of s.
func Units(s string) []uint16 {
	out := make([]uint16, 0, len(s))
	for i := 0; i < len(s); {
		r, size := Unit(s, i)
		i += size
		if r > 0xFFFF {
			r -= 0x10000
			out = append(out, uint16(0xD800+r>>10), uint16(0xDC00+r&0x3FF))
		} else {
			out = append(out, uint16(r))
		}
	}
	return out
}

// FromUnits is String.fromCharCode(...u): paired surrogates become one
// character, lone ones stay (WTF-8).
func FromUnits(u []uint16) string {
	b := make([]byte, 0, len(u))
	for i := 0; i < len(u); i++ {
		r := rune(u[i])
		if isHigh(r) && i+1 < len(u) && isLow(rune(u[i+1])) {
			r = 0x10000 + (r-0xD800)<<10 + (rune(u[i+1]) - 0xDC00)
			i++
		}
		b = AppendUnit(b, r)
	}
	return string(b)
}

// SanitizeSurrogates is pi-ai's sanitizeSurrogates
// (@mariozechner/pi-ai/dist/utils/sanitize-unicode.js): lone surrogates
// removed, pairs kept.
func SanitizeSurrogates(s string) string { return rewriteSurrogates(s, "") }

// rewriteSurrogates returns the WTF-8 string s as UTF-8: each lone
// surrogate becomes lone, a pair written as two surrogates its character.
func rewriteSurrogates(s, lone string) string {
	if !HasSurrogate(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		r, size := Unit(s, i)
		switch {
		case r >= 0xD800 && r <= 0xDFFF:
			b = append(b, lone...)
		case size == 6:
			b = utf8.AppendRune(b, r)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(b)
}

// IsSpace reports whether r is removed by String.prototype.trim (WhiteSpace
// and LineTerminator of ECMAScript).
func IsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// EscapedOrHigh reports whether b holds a backslash and whether it holds a
// byte >= 0x80, a word at a time (for short literals: a role, an id).
func EscapedOrHigh(b []byte) (escaped, high bool) {
	const ones, highs, backslashes = 0x0101010101010101, 0x8080808080808080, 0x5c5c5c5c5c5c5c5c
	var hi, bs uint64
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		x := w ^ backslashes
		hi |= w
		bs |= (x - ones) &^ x // high bit set in a zero byte of x (a backslash; borrows only above one)
		b = b[8:]
	}
	for _, c := range b {
		hi |= uint64(c)
		if c == '\\' {
			bs |= highs
		}
	}
	return bs&highs != 0, hi&highs != 0
}

// asciiNonSpace: c is an ASCII character String.prototype.trim keeps.
func asciiNonSpace(c byte) bool { return c > ' ' && c < 0x80 }

// Trim is String.prototype.trim.
func Trim(s string) string { return strings.TrimFunc(s, IsSpace) }

// TrimBytes is String.prototype.trim on UTF-8 text.
func TrimBytes(b []byte) []byte {
	if len(b) > 0 && asciiNonSpace(b[0]) && asciiNonSpace(b[len(b)-1]) {
		return b // nothing to trim (the common case: a name, a role)
	}
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if !IsSpace(r) || r == utf8.RuneError && size == 1 {
			break
		}
		b = b[size:]
	}
	for len(b) > 0 {
		r, size := utf8.DecodeLastRune(b)
		if !IsSpace(r) || r == utf8.RuneError && size == 1 {
			break
		}
		b = b[:len(b)-size]
	}
	return b
}

// Blank reports whether Trim(s) is empty.
func Blank(s string) bool {
	for _, r := range s {
		if !IsSpace(r) {
			return false
		}
	}
	return true
}

// ToWellFormed returns b decoded as Node.js decodes UTF-8 text (WHATWG):
// each maximal invalid subpart becomes one U+FFFD. b is returned as is when
// it is valid.
func ToWellFormed(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out, _ := ReplaceInvalidUTF8(b)
	return out
}

// ReplaceInvalidUTF8 returns a copy of b in which every maximal invalid
// UTF-8 subpart is one U+FFFD, the way Node's decoder (WHATWG) reads it, and
// how many were replaced.
func ReplaceInvalidUTF8(b []byte) (out []byte, replaced int) {
	out = make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		need, lo, hi := 0, byte(0x80), byte(0xBF)
		switch {
		case c >= 0xC2 && c <= 0xDF:
			need = 1
		case c == 0xE0:
			need, lo = 2, 0xA0
		case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
			need = 2
		case c == 0xED:
			need, hi = 2, 0x9F
		case c == 0xF0:
			need, lo = 3, 0x90
		case c >= 0xF1 && c <= 0xF3:
			need = 3
		case c == 0xF4:
			need, hi = 3, 0x8F
		default:
			out = append(out, "\uFFFD"...)
			replaced++
			i++
			continue
		}
		j := i + 1
		ok := true
		for k := 0; k < need; k++ {
			if j >= len(b) || b[j] < lo || b[j] > hi {
				ok = false
				break
			}
			j++
			lo, hi = 0x80, 0xBF
		}
		if ok {
			out = append(out, b[i:j]...)
		} else {
			out = append(out, "\uFFFD"...) // the maximal subpart b[i:j] is one U+FFFD
			replaced++
		}
		i = j
	}
	return out, replaced
}
