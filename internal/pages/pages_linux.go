package pages

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugeBytes is the size of a transparent huge page on linux/amd64 and
// linux/arm64 with 4 KiB pages (elsewhere the advice is only unused).
const hugeBytes = 2 << 20

// populate maps the whole pages of [p, p+n) with MADV_POPULATE_WRITE: it
// faults them in as a write would, without writing (the heap's fresh pages
// stay zero). The huge pages wholly inside the range are asked for first
// (adviseHuge). A kernel without it answers EINVAL, which is ignored.
func populate(p unsafe.Pointer, n uintptr) {
	adviseHuge(p, n)
	page := uintptr(os.Getpagesize())
	start := (uintptr(p) + page - 1) &^ (page - 1)
	end := (uintptr(p) + n) &^ (page - 1)
	if end <= start {
		return
	}
	first := (*byte)(unsafe.Add(p, start-uintptr(p)))
	_ = unix.Madvise(unsafe.Slice(first, end-start), unix.MADV_POPULATE_WRITE)
}

// adviseHuge asks for transparent huge pages (MADV_HUGEPAGE) in the 2 MiB
// blocks wholly inside [p, p+n): one fault or populate then maps 2 MiB
// instead of 4 KiB. Where THP is off, or "always", it changes nothing.
func adviseHuge(p unsafe.Pointer, n uintptr) {
	start := (uintptr(p) + hugeBytes - 1) &^ (hugeBytes - 1)
	end := (uintptr(p) + n) &^ (hugeBytes - 1)
	if end <= start {
		return
	}
	first := (*byte)(unsafe.Add(p, start-uintptr(p)))
	_ = unix.Madvise(unsafe.Slice(first, end-start), unix.MADV_HUGEPAGE)
}
