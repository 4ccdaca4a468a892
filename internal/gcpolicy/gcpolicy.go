// Package gcpolicy sets how the Go collector runs for one oc command.
//
// An oc command is short, and most allocate a few tens of megabytes; a
// collection during one costs more than it frees. On the 2-core machine of
// the benchmarks a single early cycle in `oc inspect` of a 100 MiB
// transcript added 3,000 page faults and 50 ms, a fifth of the run; the
// streaming commands had also collected thousands of times on a state dir
// of small files at Go's default (every time the heap doubles from 4 MiB).
//
// A Tuner gives the command a memory budget instead: the collector runs
// only when the Go runtime's memory reaches it (a soft memory limit with
// GOGC off). A command that allocates less never collects; one that
// allocates more collects each time it reaches the budget. Should the live
// heap after a collection pass half the budget (an input whose index needs
// more, such as inspect of a transcript of gigabytes), collecting at the
// budget would run the collector without pause, so the Tuner hands over to
// Go's defaults (GOGC=100, no limit) for the rest of the run.
package gcpolicy

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// DefaultBudget is the budget of a command that sets none.
const DefaultBudget = 128 << 20

// Tuner holds one command's collector settings. Its methods may be called
// on a nil *Tuner (they do nothing): tests run commands in-process without
// one.
type Tuner struct {
	mu          sync.Mutex
	budget      int64
	done        bool // stopped, or handed over to the defaults
	prevPercent int
	prevLimit   int64
}

// Start gives the process the budget and returns its Tuner, or nil when
// GOGC or GOMEMLIMIT is set in getenv (the user chose).
func Start(budget int64, getenv func(string) string) *Tuner {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return nil
	}
	t := &Tuner{budget: budget}
	t.prevLimit = debug.SetMemoryLimit(budget)
	t.prevPercent = debug.SetGCPercent(-1)
	t.arm()
	return t
}

// SetBudget changes the budget (a streaming command's own), unless the Tuner
// has handed over to the defaults.
func (t *Tuner) SetBudget(budget int64) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.done {
		t.budget = budget
		debug.SetMemoryLimit(budget)
	}
}

// Stop puts back the settings Start found.
func (t *Tuner) Stop() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.restore()
}

// Budget is the budget in force, and whether the Tuner still applies it.
func (t *Tuner) Budget() (int64, bool) {
	if t == nil {
		return 0, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.budget, !t.done
}

func (t *Tuner) restore() {
	if !t.done {
		t.done = true
		debug.SetGCPercent(t.prevPercent)
		debug.SetMemoryLimit(t.prevLimit)
	}
}

// afterCollection runs after each collection: it hands over to the defaults
// when the live heap passed half the budget, and watches the next one
// otherwise.
func (t *Tuner) afterCollection() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return
	}
	if liveHeap() > t.budget/2 {
		t.restore() // Start applies only when neither variable is set: the defaults
		return
	}
	t.arm()
}

// sentinel is an object only arm points to, so that the next collection
// finds it unreachable and runs its finalizer. It holds a pointer so that it
// is not a tiny allocation (whose finalizer may never run).
type sentinel struct {
	_ *int
	_ [8]byte
}

// arm calls afterCollection after the next collection.
func (t *Tuner) arm() {
	s := &sentinel{}
	runtime.SetFinalizer(s, func(*sentinel) { t.afterCollection() })
}

// liveHeap is the heap the last collection found live.
func liveHeap() int64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(sample[0].Value.Uint64())
}
