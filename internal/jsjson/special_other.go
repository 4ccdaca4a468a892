//go:build !amd64

package jsjson

// indexSpecial is the SIMD scan where the architecture has one; here it
// scans nothing, and the caller's word-at-a-time loop does the work.
func indexSpecial(b []byte) (int, bool) { return 0, false }
