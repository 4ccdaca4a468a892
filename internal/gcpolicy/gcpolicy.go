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
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"

	"github.com/openclaw-tools/oc/internal/pages"
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

// MinWarm is the least Warm maps: less saves less than its collection costs.
const MinWarm = 4 << 20

// Warm maps about n bytes of memory for the Go heap now and hands them to
// the heap free: the allocations of the run that follows land in pages
// already mapped instead of faulting them in one at a time. The block is
// mapped in one system call, in transparent huge pages where the system
// gives them (pages.Populate), then freed by one collection, made while
// the heap is still small.
//
// On the 2-core virtual machines oc is measured on, a page fault costs
// about 11 µs, a page mapped by MADV_POPULATE_WRITE about 6, and a 2 MiB
// huge page about as much as 20 to 100 faults. `oc inspect` of a 100 MiB
// transcript faulted 2,700 pages and populated 22 MB a page at a time
// without it (about a fifth of its CPU time); with 32 MiB warmed, 960
// faults.
//
// n is held to half the budget (the block counts against the memory limit
// while the heap holds it free); under MinWarm, on a nil Tuner, one that
// handed over to Go's defaults, or where pages cannot be populated (not
// Linux: the collection would buy nothing), Warm does nothing.
func (t *Tuner) Warm(n int64) {
	if t == nil || !pages.Populates {
		return
	}
	t.mu.Lock()
	n = min(n, t.budget/2)
	done := t.done
	t.mu.Unlock()
	if done || n < MinWarm {
		return
	}
	block := make([]byte, n)
	pages.Populate(block)
	runtime.KeepAlive(block)
	runtime.GC() // the block is garbage: its pages go back to the heap, mapped
}

// A Warmer warms the heap (Tuner.Warm) once a run, when the scan of the
// first large file starts: what a scan keeps grows with the file's lines,
// not its bytes (a file of long lines needs little), so it warms perLine
// bytes for each line lines estimates. The heap the warmed memory went to
// serves the files after it.
type Warmer struct {
	tuner   *Tuner // nil: no warming (GOGC or GOMEMLIMIT set, tests)
	perLine int64
	lines   func(path string, size int64) int64 // <= 0: unknown
	done    atomic.Bool
	mu      sync.Mutex
}

// WarmMinFile is the smallest file a Warmer looks at: a smaller one would
// fault in little, and a state dir holds thousands.
const WarmMinFile = 1 << 20

// NewWarmer returns t's Warmer of perLine bytes a line, with lines as the
// estimate of a file's lines (jsonl.EstimateLines).
func NewWarmer(t *Tuner, perLine int64, lines func(path string, size int64) int64) *Warmer {
	return &Warmer{tuner: t, perLine: perLine, lines: lines}
}

// Starting is told each file as its scan starts, concurrently; size -1 is
// unknown (a file found in a folder), and is then looked up. Where pages
// cannot be populated (Warm does nothing there) no file is looked at.
func (w *Warmer) Starting(path string, size int64) {
	if w == nil || w.tuner == nil || !pages.Populates || w.done.Load() {
		return
	}
	if size < 0 {
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() {
			return
		}
		size = st.Size()
	}
	if size < WarmMinFile {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done.Swap(true) {
		return
	}
	if n := w.lines(path, size); n > 0 {
		w.tuner.Warm(n * w.perLine)
	}
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
