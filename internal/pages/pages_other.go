//go:build !linux

package pages

import "unsafe"

// populate does nothing here: the pages fault in as they are written.
func populate(unsafe.Pointer, uintptr) {}
