package jsjson

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

//go:noescape
func indexSpecialAVX2(p *byte, n int) int

// minSIMD is the length from which a string's rest is scanned with AVX2:
// below it the call costs more than the word-at-a-time loop.
const minSIMD = 32

// indexSpecial returns the index of the first byte of b that is a quote, a
// backslash, a control character or >= 0x80 (len(b): none), and false when
// it scanned nothing (no AVX2, or b is short): the caller scans b itself.
func indexSpecial(b []byte) (int, bool) {
	if len(b) < minSIMD || !cpu.X86.HasAVX2 {
		return 0, false
	}
	return indexSpecialAVX2(unsafe.SliceData(b), len(b)), true
}
