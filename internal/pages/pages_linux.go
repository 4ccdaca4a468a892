package pages

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Populates reports whether Populate maps memory here (on Linux 5.14 and
// later; an older kernel ignores the advice).
const Populates = true

// hugeBytes is the size of a transparent huge page on linux/amd64 and
// linux/arm64 with 4 KiB pages (elsewhere the advice is only unused).
const hugeBytes = 2 << 20

// populate maps the whole pages of [p, p+n) with MADV_POPULATE_WRITE: it
// faults them in as a write would, without writing (the heap's fresh pages
// stay zero). The 2 MiB blocks wholly inside the range are first advised
// MADV_HUGEPAGE: one fault or populate then maps 2 MiB instead of 4 KiB
// (where THP is off, or "always", the advice changes nothing). A kernel
// without either answers EINVAL, which is ignored.
func populate(p unsafe.Pointer, n uintptr) {
	adviseInside(p, n, hugeBytes, unix.MADV_HUGEPAGE)
	adviseInside(p, n, uintptr(os.Getpagesize()), unix.MADV_POPULATE_WRITE)
}

// adviseInside gives advice to the whole units of unit bytes (a power of
// two) inside [p, p+n): a unit the range only partly covers may hold
// other objects of the heap.
func adviseInside(p unsafe.Pointer, n, unit uintptr, advice int) {
	start := (uintptr(p) + unit - 1) &^ (unit - 1)
	end := (uintptr(p) + n) &^ (unit - 1)
	if end <= start {
		return
	}
	first := (*byte)(unsafe.Add(p, start-uintptr(p)))
	_ = unix.Madvise(unsafe.Slice(first, end-start), advice)
}
