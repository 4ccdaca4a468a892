package pages

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// resident counts the pages of b (page-aligned) that are in memory.
func resident(t *testing.T, b []byte) int {
	t.Helper()
	vec := make([]byte, (len(b)+os.Getpagesize()-1)/os.Getpagesize())
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	require.Zero(t, errno, "mincore")
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// On Linux, Populate maps every whole page of the slice at once: a fresh
// anonymous mapping has none in memory, and all of its pages after, still
// holding zeros. (A kernel older than 5.14 lacks MADV_POPULATE_WRITE; oc's
// machines have it, so the test fails there rather than pass by skipping.)
func TestPopulateMapsEveryPage(t *testing.T) {
	size := 64 * os.Getpagesize()
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	require.NoError(t, err)
	defer func() { require.NoError(t, unix.Munmap(b)) }()
	require.Zero(t, resident(t, b), "a fresh mapping has no page in memory")

	Populate(b[:0]) // the capacity counts, not the length
	require.Equal(t, size/os.Getpagesize(), resident(t, b))
	for i, c := range b {
		if c != 0 {
			t.Fatalf("byte %d is %d after Populate, want 0", i, c)
		}
	}
}

// Only the whole pages inside the slice are mapped: a slice that starts and
// ends inside pages leaves those partial pages alone (they may belong to
// other objects of the heap; writing them is theirs to do).
func TestPopulateOnlyWholePages(t *testing.T) {
	page := os.Getpagesize()
	size := 80 * page
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	require.NoError(t, err)
	defer func() { require.NoError(t, unix.Munmap(b)) }()

	Populate(b[page/2 : size-page/2 : size-page/2])
	require.Zero(t, resident(t, b[:page]), "the page the slice starts inside")
	require.Zero(t, resident(t, b[size-page:]), "the page the slice ends inside")
	require.Equal(t, 78, resident(t, b[page:size-page]))
}

// MapAhead maps a window past the length as a slice fills, never the whole
// room at once: a slice made with room for far more than it gets keeps its
// unused pages unmapped. Each call leaves every page up to the length
// mapped, plus at most a window.
func TestMapAheadFollowsTheLength(t *testing.T) {
	page := os.Getpagesize()
	size := 4 << 20
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	require.NoError(t, err)
	defer func() { require.NoError(t, unix.Munmap(b)) }()

	var a Ahead
	for _, n := range []int{0, 1, 100 << 10, 100<<10 + 1, 1 << 20, 3 << 20, size} {
		s := b[:n]
		MapAhead(&a, s)
		got := resident(t, b)
		// pages wholly below the length are mapped (the test writes none)
		require.GreaterOrEqual(t, got, n/page, "length %d: pages below it unmapped", n)
		require.LessOrEqual(t, got, (n+aheadWindow)/page+1, "length %d: mapped more than a window past it", n)
	}
	require.Equal(t, size/page, resident(t, b), "a full slice is mapped whole")
}

// A slice moved to another backing array (append past its capacity) is
// mapped from the new array's start.
func TestMapAheadNewArray(t *testing.T) {
	page := os.Getpagesize()
	var a Ahead
	for range 2 {
		// both stay mapped, so that the second is at another address
		b, err := unix.Mmap(-1, 0, 1<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
		require.NoError(t, err)
		defer func() { require.NoError(t, unix.Munmap(b)) }()
		MapAhead(&a, b[:0])
		require.Equal(t, aheadWindow/page, resident(t, b))
	}
}

// vmFlags returns the VmFlags /proc/self/smaps gives the mapping holding
// address a.
func vmFlags(t *testing.T, a uintptr) []string {
	t.Helper()
	smaps, err := os.ReadFile("/proc/self/smaps")
	require.NoError(t, err)
	in := false
	for _, line := range strings.Split(string(smaps), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(f[0], "-"); ok && !strings.HasSuffix(f[0], ":") {
			start, err1 := strconv.ParseUint(lo, 16, 64)
			end, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(a) >= start && uint64(a) < end
			continue
		}
		if in && f[0] == "VmFlags:" {
			return f[1:]
		}
	}
	t.Fatalf("no mapping holds %#x", a)
	return nil
}

// Populate asks for transparent huge pages in the 2 MiB blocks wholly inside
// the slice (VmFlags "hg"), and only there: the pages around them may be
// other objects'. (oc's machines have THP in "madvise" mode, where this
// advice is what gives a range huge pages.)
func TestPopulateAdvisesHugePages(t *testing.T) {
	b, err := unix.Mmap(-1, 0, 5*hugeBytes, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	require.NoError(t, err)
	defer func() { require.NoError(t, unix.Munmap(b)) }()
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	// a 2 MiB block at least 2 MiB into the mapping; the slice starts in
	// the middle of the one before it and ends with the one after it
	first := (base + hugeBytes + hugeBytes - 1) &^ (hugeBytes - 1)
	s := b[first-base-hugeBytes/2 : first-base+2*hugeBytes : first-base+2*hugeBytes]
	require.NotContains(t, vmFlags(t, first), "hg", "a fresh mapping has no advice")

	Populate(s)
	require.Contains(t, vmFlags(t, first), "hg", "the first whole block")
	require.Contains(t, vmFlags(t, first+hugeBytes), "hg", "the second whole block")
	require.NotContains(t, vmFlags(t, first-hugeBytes/4), "hg", "the block the slice starts inside")
	require.NotContains(t, vmFlags(t, first+2*hugeBytes+hugeBytes/4), "hg", "after the slice")
	require.Equal(t, len(s)/os.Getpagesize(), resident(t, s), "every page mapped")
}
