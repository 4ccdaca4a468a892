//go:build !linux

package pages

import "unsafe"

// Populates reports whether Populate maps memory here (it does not: the
// pages fault in as they are written).
const Populates = false

// populate does nothing here.
func populate(unsafe.Pointer, uintptr) {}
