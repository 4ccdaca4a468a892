package jsjson

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// FormatNumber is Number.prototype.toString(f) (ECMAScript Number::toString,
// radix 10), and JSON.stringify's spelling of a finite number: -0 is "0",
// NaN and the infinities are "null" (as JSON.stringify writes them).
func FormatNumber(f float64) string {
	return string(AppendNumber(nil, f))
}

// AppendNumber appends FormatNumber(f).
func AppendNumber(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return append(dst, "null"...)
	case f == 0:
		return append(dst, '0')
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	if f < 1e21 && f == math.Trunc(f) {
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // d.dddde±XX, shortest
	mant, expStr, _ := strings.Cut(string(e), "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expStr)
	n, k := exp+1, len(digits)
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for i := k; i < n; i++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for i := 0; i < -n; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

// ParseNumber is the value JSON.parse gives a JSON number literal: the
// nearest double (±Infinity beyond its range).
func ParseNumber(text string) (float64, error) {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, err
	}
	return f, nil
}

// CanonicalNumber returns the text JSON.stringify(JSON.parse(text)) gives
// for a JSON number literal (e.g. "100.0" -> "100", "-0.0" -> "0",
// "1e-07" -> "1e-7", "12345678901234567890" -> "12345678901234567000"), and
// text itself when it is already spelled so. A literal beyond the double
// range becomes "null", as JSON.stringify writes Infinity.
func CanonicalNumber(text string) (string, error) {
	if isPlainInt(text) {
		return text, nil
	}
	f, err := ParseNumber(text)
	if err != nil {
		return "", err
	}
	var buf [32]byte
	out := AppendNumber(buf[:0], f)
	if string(out) == text {
		return text, nil
	}
	return string(out), nil
}

// isPlainInt: an integer literal without sign trouble that JavaScript
// writes back unchanged (at most 15 digits, no leading zero, not -0).
func isPlainInt(s string) bool {
	d := s
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 15 || (d[0] == '0' && (len(d) > 1 || len(s) != len(d))) {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}
