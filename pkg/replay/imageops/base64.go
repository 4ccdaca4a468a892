package imageops

import (
	"encoding/base64"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
)

// base64SigChars are the characters of base64 and base64url.
var base64SigChars = lazyre.New(`^[A-Za-z0-9+/=_-]+$`)

func isBase64DataChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/'
}

// CanonicalBase64 drops characters <= ' ' (by UTF-16 code unit) and
// validates the rest: base64 alphabet, at most two trailing '=', length a
// multiple of 4.
func CanonicalBase64(s string) (string, bool) {
	out, _, _, ok := scanBase64(s)
	if !ok || out == "" || len(out)%4 != 0 {
		return "", false
	}
	return out, true
}

// scanBase64 is what both releases' canonicalizeBase64 share: characters
// <= ' ' dropped, the rest in the base64 alphabet with at most two '=' and
// nothing after them; it returns what is kept, the number of '=', and the
// value of the last data character.
func scanBase64(s string) (out string, padding, last int, ok bool) {
	var b strings.Builder
	b.Grow(len(s))
	sawPadding := false
	for _, r := range s {
		if r <= 32 {
			continue
		}
		if r == '=' {
			padding++
			if padding > 2 {
				return "", 0, 0, false
			}
			sawPadding = true
			b.WriteByte('=')
			continue
		}
		if sawPadding || r > 127 || !isBase64DataChar(byte(r)) {
			return "", 0, 0, false
		}
		last = base64Value(byte(r))
		b.WriteByte(byte(r))
	}
	return b.String(), padding, last, true
}

// MimeFromBase64 sniffs JPEG, PNG and GIF from the base64 prefix.
func MimeFromBase64(b64 string) string {
	t := jsjson.Trim(b64)
	switch {
	case t == "":
		return ""
	case strings.HasPrefix(t, "/9j/"):
		return "image/jpeg"
	case strings.HasPrefix(t, "iVBOR"):
		return "image/png"
	case strings.HasPrefix(t, "R0lGOD"):
		return "image/gif"
	}
	return ""
}

// IsBase64Signature is bootstrap.ts's isBase64Signature: a signature Gemini
// can take (base64 or base64url that round-trips).
func IsBase64Signature(value string) bool {
	t := jsjson.Trim(value)
	if t == "" {
		return false
	}
	compact := strings.Map(func(r rune) rune {
		if jsjson.IsSpace(r) {
			return -1
		}
		return r
	}, t)
	if !base64SigChars().MatchString(compact) {
		return false
	}
	isURL := strings.ContainsAny(compact, "-_")
	buf := nodeBase64Decode(compact, isURL)
	if len(buf) == 0 {
		return false
	}
	var enc string
	if isURL {
		enc = base64.RawURLEncoding.EncodeToString(buf)
	} else {
		enc = base64.StdEncoding.EncodeToString(buf)
	}
	return strings.TrimRight(enc, "=") == strings.TrimRight(compact, "=")
}

// nodeBase64Decode decodes like Node's Buffer.from(s, "base64"/"base64url"):
// both alphabets accepted, decoding stops at the first '=' and at anything
// outside the alphabet is skipped, a trailing partial group yields what it can.
func nodeBase64Decode(s string, _ bool) []byte {
	vals := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		var v byte
		switch {
		case c >= 'A' && c <= 'Z':
			v = c - 'A'
		case c >= 'a' && c <= 'z':
			v = c - 'a' + 26
		case c >= '0' && c <= '9':
			v = c - '0' + 52
		case c == '+' || c == '-':
			v = 62
		case c == '/' || c == '_':
			v = 63
		case c == '=':
			i = len(s)
			continue
		default:
			continue
		}
		vals = append(vals, v)
	}
	out := make([]byte, 0, len(vals)*3/4)
	for i := 0; i+1 < len(vals); i += 4 {
		n := len(vals) - i
		if n > 4 {
			n = 4
		}
		var acc uint32
		for k := 0; k < 4; k++ {
			acc <<= 6
			if k < n {
				acc |= uint32(vals[i+k])
			}
		}
		out = append(out, byte(acc>>16))
		if n > 2 {
			out = append(out, byte(acc>>8))
		}
		if n > 3 {
			out = append(out, byte(acc))
		}
	}
	return out
}

// CanonicalBase64For96 is 2026.9.6's canonicalizeBase64 (media-core
// base64.ts): characters <= ' ' (by UTF-16 code unit) are dropped, the rest
// must be base64 with at most two '=' at the end; unlike 2026.5.6 a length
// that is not a multiple of 4 is padded (a remainder of 1 is refused, as
// is any remainder after an '='), and the bits a padded last character
// does not carry must be zero.
func CanonicalBase64For96(s string) (string, bool) {
	out, padding, last, ok := scanBase64(s)
	if !ok || out == "" {
		return "", false
	}
	sawPadding := padding > 0
	rem := len(out) % 4
	if rem != 0 && (sawPadding || rem == 1) {
		return "", false
	}
	eff := padding
	if rem != 0 {
		eff = 4 - rem
	}
	mask := 0
	switch eff {
	case 2:
		mask = 15
	case 1:
		mask = 3
	}
	if last&mask != 0 {
		return "", false
	}
	if rem != 0 {
		out += strings.Repeat("=", 4-rem)
	}
	return out, true
}

func base64Value(c byte) int {
	switch {
	case c >= 'A' && c <= 'Z':
		return int(c - 'A')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 26
	case c >= '0' && c <= '9':
		return int(c-'0') + 52
	case c == '+':
		return 62
	}
	return 63
}
