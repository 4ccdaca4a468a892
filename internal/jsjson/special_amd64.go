//go:build !purego

package jsjson

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

//go:noescape
func skipPlainAVX2(p *byte, n int) (j int, status int)

// minSIMD is the length from which a string's rest is scanned with AVX2:
// below it the call costs more than the word-at-a-time loop.
const minSIMD = 32

// skipPlain scans a string's rest b with SIMD, where there is one (else,
// or when b is short, ok is false: it scanned nothing, the caller scans b
// itself). It stops at the first quote, backslash or control character
// (found; j is its index) or before b's last few bytes (j: where it
// stopped, never inside a character: the caller goes on from j). flags
// says what b[:j] holds (nonASCIIString, badUTF8String): its UTF-8 is
// checked on the way, 32 bytes at a time, so a string of accents or CJK
// does not stop the scan at every character.
func skipPlain(b []byte) (j int, flags NodeFlags, found, ok bool) {
	if len(b) < minSIMD || !cpu.X86.HasAVX2 {
		return 0, 0, false, false
	}
	j, status := skipPlainAVX2(unsafe.SliceData(b), len(b))
	if status&2 != 0 {
		flags |= nonASCIIString
	}
	if status&4 != 0 {
		flags |= badUTF8String
	}
	if status&1 != 0 {
		return j, flags, true, true
	}
	// the last round may have ended inside a character, which the next
	// round would have checked: the caller reads it from its first byte
	switch {
	case j >= 1 && b[j-1] >= 0xC0:
		j--
	case j >= 2 && b[j-2] >= 0xE0:
		j -= 2
	case j >= 3 && b[j-3] >= 0xF0:
		j -= 3
	}
	return j, flags, false, true
}
