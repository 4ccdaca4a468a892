package pages

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// populate maps the whole pages of [p, p+n) with MADV_POPULATE_WRITE: it
// faults them in as a write would, without writing (the heap's fresh pages
// stay zero). A kernel without it answers EINVAL, which is ignored.
func populate(p unsafe.Pointer, n uintptr) {
	page := uintptr(os.Getpagesize())
	start := (uintptr(p) + page - 1) &^ (page - 1)
	end := (uintptr(p) + n) &^ (page - 1)
	if end <= start {
		return
	}
	first := (*byte)(unsafe.Add(p, start-uintptr(p)))
	_ = unix.Madvise(unsafe.Slice(first, end-start), unix.MADV_POPULATE_WRITE)
}
