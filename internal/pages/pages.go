// Package pages maps the memory of a large new slice in one system call
// instead of one page fault per page.
//
// On the machines oc is measured on (2-core virtual machines), the first
// write to a fresh page of the Go heap costs about 10 µs: about 6 for the
// trap into the guest kernel, 4.4 for the host backing the page. `oc
// inspect` of a 100 MiB transcript touched about 9,500 such pages (its
// index, the records of the lines in flight, the tree), a quarter of its
// CPU time. Asking the kernel to map a range at once (MADV_POPULATE_WRITE,
// Linux 5.14+) costs about 0.6 µs a page instead of the trap; the host's
// share is still paid at the first write. The 2 MiB blocks wholly inside
// the range are asked for as transparent huge pages first (MADV_HUGEPAGE;
// THP is in "madvise" mode there, so only advised ranges get them): 16 MiB
// mapped and written took 47 ms a fault at a time, 25 ms populated a page
// at a time and 1 to 15 ms in huge pages. Elsewhere, and on older kernels,
// the calls do nothing and the pages fault in as they are written.
package pages

import (
	"os"
	"unsafe"
)

// MinBytes is the smallest backing array Populate maps: below it, memory
// the heap hands out has often been written before (no faults to save).
const MinBytes = 64 << 10

// Populate asks the system to map every whole page of s's backing array, up
// to its capacity, now: for a slice about to be filled whole (a batch's
// records, a read buffer, a hash table made for the keys it will get; for
// room made for an estimate, see MapAhead), in huge pages where s holds
// whole 2 MiB blocks. It changes no byte of s and reports no error: it is
// only a hint.
func Populate[T any](s []T) {
	var zero T
	n := uintptr(cap(s)) * unsafe.Sizeof(zero)
	if n < MinBytes {
		return
	}
	populate(unsafe.Pointer(unsafe.SliceData(s[:cap(s)])), n)
}

// Ahead is how far MapAhead has mapped one slice's backing array.
type Ahead struct {
	base   unsafe.Pointer // the backing array it was mapping
	mapped uintptr        // bytes of it from base
}

// aheadWindow is how far past a slice's length MapAhead maps.
const aheadWindow = 256 << 10

// MapAhead keeps the backing array of s mapped a window (256 KiB) past its
// length: for a slice made with room for an estimate (one entry per KiB of
// a file) and then appended to, where Populate would map room that a file
// of long lines never uses. Call it after each append; it makes a system
// call once per window and otherwise only compares. a remembers the
// array: a slice that append moved to a new one starts again from there.
func MapAhead[T any](a *Ahead, s []T) {
	var zero T
	used := uintptr(len(s)) * unsafe.Sizeof(zero)
	if used+aheadWindow/2 <= a.mapped && unsafe.Pointer(unsafe.SliceData(s)) == a.base {
		return // the common case, inlined: mapped well past the length
	}
	mapAhead(a, unsafe.Pointer(unsafe.SliceData(s)), used, uintptr(cap(s))*unsafe.Sizeof(zero))
}

// mapAhead is MapAhead of the array at base, used bytes of total in use.
func mapAhead(a *Ahead, base unsafe.Pointer, used, total uintptr) {
	if total == 0 {
		return
	}
	if base != a.base {
		a.base, a.mapped = base, 0
	}
	if a.mapped >= total || used+aheadWindow/2 <= a.mapped {
		return
	}
	end := min(total, used+aheadWindow)
	if end < total {
		// end on a page, where the next window starts: no page is left
		// between two windows
		page := uintptr(os.Getpagesize())
		end = (uintptr(base)+end)&^(page-1) - uintptr(base)
	}
	if end == total && total-a.mapped < MinBytes {
		a.mapped = total // the rest faults in
		return
	}
	if end > a.mapped {
		populate(unsafe.Add(base, a.mapped), end-a.mapped)
		a.mapped = end
	}
}
