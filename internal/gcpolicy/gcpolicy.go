// Package gcpolicy sets how the Go collector runs for one oc command.
//
// An oc command is short and most allocate a few tens of megabytes; a
// collection during one costs more than it frees (on the 2-core machine of
// the benchmarks a single cycle early in `oc inspect` of a 100 MiB
// transcript added 3,000 page faults and 50 ms, a fifth of the run). So the
// collector waits until the heap first reaches a threshold, and from that
// collection on runs as Go's default (GOGC=100) does: a command that
// allocates less never collects, one that allocates more is collected as
// before, and none holds more than the threshold beyond what it did.
package gcpolicy

import (
	"os"
	"runtime"
	"runtime/debug"
)

// DefaultThreshold is the heap the collector waits for.
const DefaultThreshold = 128 << 20

// Deferred turns the collector off until the Go runtime's memory reaches
// threshold bytes (a soft memory limit), then back to Go's defaults (GOGC=100,
// no limit) after the first collection, whatever caused it. It does nothing when
// GOGC or GOMEMLIMIT is set: the user chose. It returns whether it applied.
func Deferred(threshold int64) bool {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	prevLimit := debug.SetMemoryLimit(threshold)
	prevPercent := debug.SetGCPercent(-1)
	armFirstCollection(func() {
		debug.SetGCPercent(prevPercent) // 100: neither variable is set
		debug.SetMemoryLimit(prevLimit) // none
	})
	return true
}

// sentinel is an object only armFirstCollection points to, so that the
// first collection finds it unreachable and runs its finalizer. It holds a
// pointer so that it is not a tiny allocation (whose finalizer may never
// run).
type sentinel struct {
	_ *int
	_ [8]byte
}

// armFirstCollection runs then, once, after the first collection.
func armFirstCollection(then func()) {
	s := &sentinel{}
	runtime.SetFinalizer(s, func(*sentinel) { then() })
}
