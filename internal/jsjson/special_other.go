//go:build !amd64 || purego

package jsjson

// skipPlain is the SIMD scan where there is one (amd64, unless built with
// -tags purego); here it scans nothing, and the caller's word-at-a-time
// loop does the work.
func skipPlain(b []byte) (j int, flags NodeFlags, found, ok bool) { return 0, 0, false, false }
