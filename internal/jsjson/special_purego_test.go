//go:build purego

package jsjson

import (
	"strings"
	"testing"
)

// TestPuregoScansWithoutSIMD: built with -tags purego (CI's purego leg),
// the string scan is the word-at-a-time loop on every architecture, so the
// suite's tape tests check that loop on amd64 too.
func TestPuregoScansWithoutSIMD(t *testing.T) {
	b := []byte(strings.Repeat("plain text ", 20) + `"`)
	if _, _, _, ok := skipPlain(b); ok {
		t.Fatal("skipPlain scanned with SIMD under -tags purego")
	}
	var tp Tape
	if !tp.Parse([]byte(`{"k":"` + string(b[:len(b)-1]) + `"}`)) {
		t.Fatal("the word-at-a-time scan rejected a plain string")
	}
}
