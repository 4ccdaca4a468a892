package gcpolicy

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/pages"
)

func noEnv(string) string { return "" }

// gcPercent reads the GC percent without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

func memoryLimit() int64 { return debug.SetMemoryLimit(-1) }

// waitFor polls cond across collections for up to five seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after five seconds", what)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

// The collector is off with the budget as memory limit, and stays so across
// collections while the live heap is small; Stop puts back the defaults.
func TestTunerKeepsBudgetWhileLiveHeapIsSmall(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	tu := Start(256<<20, noEnv)
	if tu == nil {
		t.Fatal("Start did not apply with neither GOGC nor GOMEMLIMIT set")
	}
	if gcPercent() != -1 || memoryLimit() != 256<<20 {
		t.Fatalf("GC percent %d, limit %d: want off, %d", gcPercent(), memoryLimit(), 256<<20)
	}
	for range 3 {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if b, on := tu.Budget(); !on || b != 256<<20 || gcPercent() != -1 {
		t.Fatalf("after collections with a small live heap: budget %d on=%v, GC percent %d", b, on, gcPercent())
	}
	tu.SetBudget(200 << 20)
	if memoryLimit() != 200<<20 {
		t.Fatalf("limit %d after SetBudget, want %d", memoryLimit(), 200<<20)
	}
	tu.Stop()
	if gcPercent() != 100 || memoryLimit() != math.MaxInt64 {
		t.Fatalf("after Stop: GC percent %d, limit %d; want the defaults", gcPercent(), memoryLimit())
	}
}

// A live heap over half the budget hands over to GOGC=100 with no limit (at
// the budget the collector would otherwise run without pause).
func TestTunerHandsOverWhenLiveHeapOutgrowsBudget(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	tu := Start(8<<20, noEnv)
	live := make([][]byte, 0, 16)
	for range 12 {
		live = append(live, make([]byte, 1<<20))
	}
	waitFor(t, "hand-over to the defaults", func() bool { _, on := tu.Budget(); return !on })
	runtime.KeepAlive(live)
	if gcPercent() != 100 || memoryLimit() != math.MaxInt64 {
		t.Fatalf("after hand-over: GC percent %d, limit %d; want the defaults", gcPercent(), memoryLimit())
	}
	tu.SetBudget(4 << 20) // no effect once handed over
	if memoryLimit() != math.MaxInt64 {
		t.Fatal("SetBudget after hand-over set a limit")
	}
}

// A user's GOGC or GOMEMLIMIT wins; a nil Tuner does nothing.
func TestTunerLeavesUsersSetting(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		before := gcPercent()
		tu := Start(64<<20, func(k string) string {
			if k == env {
				return "200"
			}
			return ""
		})
		if tu != nil || gcPercent() != before {
			t.Fatalf("Start applied with %s set", env)
		}
		tu.SetBudget(1)
		tu.Stop()
		if _, on := tu.Budget(); on || gcPercent() != before {
			t.Fatal("a nil Tuner changed something")
		}
	}
}

// heapFree is the heap's memory that is free and still mapped (neither
// holding objects nor given back to the system).
func heapFree() int64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(sample)
	return int64(sample[0].Value.Uint64())
}

// resident is the process's resident memory in bytes (Linux), or -1.
func resident(t *testing.T) int64 {
	t.Helper()
	if runtime.GOOS != "linux" {
		return -1
	}
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

// warmed is how much more free heap, and resident memory, tu.Warm(n) left,
// from a heap that gave its free memory back to the system.
func warmed(t *testing.T, tu *Tuner, n int64) (free, rss int64) {
	t.Helper()
	debug.FreeOSMemory()
	free, rss = heapFree(), resident(t)
	tu.Warm(n)
	return heapFree() - free, resident(t) - rss
}

// Warm leaves the heap about n more bytes free, mapped and resident (on
// Linux), which the next allocations take without the heap growing. It
// holds n to half the budget, and does nothing under MinWarm, on a nil
// Tuner or on one handed over to the defaults.
func TestWarmLeavesMappedFreeHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	tu := Start(256<<20, noEnv)

	free, rss := warmed(t, tu, 24<<20)
	if !pages.Populates {
		// where pages cannot be populated, a collection would buy nothing
		if free > MinWarm {
			t.Fatalf("Warm(24 MiB) left %d bytes more free heap where it cannot populate", free)
		}
		return
	}
	// (a background scavenge may take a few pages back meanwhile)
	if free < 20<<20 || free > 32<<20 {
		t.Fatalf("Warm(24 MiB) left %d bytes more free heap, want about 24 MiB", free)
	}
	if runtime.GOOS == "linux" && rss < 20<<20 {
		t.Fatalf("Warm(24 MiB) left %d bytes more resident, want about 24 MiB (mapped now)", rss)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	held := make([]byte, 16<<20)
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(held)
	if after.HeapSys > before.HeapSys+1<<20 {
		t.Fatalf("a 16 MiB allocation after Warm grew the heap %d -> %d bytes", before.HeapSys, after.HeapSys)
	}
	held = nil

	tu.SetBudget(40 << 20)
	if free, _ := warmed(t, tu, 64<<20); free < 18<<20 || free > 24<<20 {
		t.Fatalf("budget 40 MiB: Warm(64 MiB) left %d more bytes free, want 20 MiB", free)
	}
	tu.SetBudget(256 << 20)
	if free, _ := warmed(t, tu, MinWarm-1); free > MinWarm/2 {
		t.Fatalf("Warm under MinWarm left %d more bytes free", free)
	}
	if free, _ := warmed(t, nil, 16<<20); free > 8<<20 {
		t.Fatalf("a nil Tuner's Warm left %d more bytes free", free)
	}

	tu.SetBudget(8 << 20)
	live := make([][]byte, 0, 16)
	for range 12 {
		live = append(live, make([]byte, 1<<20))
	}
	waitFor(t, "hand-over to the defaults", func() bool { _, on := tu.Budget(); return !on })
	if free, _ := warmed(t, tu, 16<<20); free > 8<<20 {
		t.Fatalf("a Tuner handed over: Warm left %d more bytes free", free)
	}
	runtime.KeepAlive(live)
}

// A Warmer warms once a run, for the first file of WarmMinFile or more,
// sized by that file's lines (not its bytes); smaller files, and the files
// after, change nothing. A size of -1 is looked up.
func TestWarmerWarmsOnceForTheFirstLargeFile(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	tu := Start(256<<20, noEnv)
	defer tu.Stop()
	dir := t.TempDir()
	write := func(name string, size int) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, make([]byte, size), 0o600))
		return p
	}
	small := write("small.jsonl", WarmMinFile-1)
	few := write("few.jsonl", 3<<20)
	many := write("many.jsonl", 3<<20)
	lines := map[string]int64{small: 5000, few: 30, many: 30_000} // the estimates
	var asked []string
	estimate := func(path string, size int64) int64 {
		asked = append(asked, filepath.Base(path))
		return lines[path]
	}
	warmed := func(w *Warmer, path string, size int64) int64 {
		t.Helper()
		debug.FreeOSMemory() // a heap that gave its free memory back
		before := heapFree()
		w.Starting(path, size)
		return heapFree() - before
	}

	if !pages.Populates {
		// a warm would buy nothing: no file is looked up or estimated
		w := NewWarmer(tu, 1000, estimate)
		require.Less(t, warmed(w, few, 3<<20), int64(MinWarm))
		require.Less(t, warmed(w, many, -1), int64(MinWarm))
		require.Empty(t, asked, "no estimate where pages cannot be populated")
		return
	}
	w := NewWarmer(tu, 1000, estimate)
	require.Less(t, warmed(w, small, -1), int64(MinWarm), "a file under WarmMinFile")
	require.Less(t, warmed(w, few, 3<<20), int64(MinWarm), "30 lines need little")
	require.Less(t, warmed(w, many, -1), int64(MinWarm), "the first large file decided, whatever it needed")
	require.Equal(t, []string{"few.jsonl"}, asked, "a small file's lines are not estimated")

	w = NewWarmer(tu, 1000, estimate)
	got := warmed(w, many, -1)
	require.Greater(t, got, int64(24<<20), "30k lines of 1000 bytes: about 30 MB")
	require.Less(t, got, int64(40<<20))
	require.Less(t, warmed(w, many, -1), int64(MinWarm), "once a run")

	var none *Warmer
	none.Starting(many, -1) // no Warmer
	NewWarmer(nil, 1000, estimate).Starting(many, -1)
	require.Equal(t, []string{"few.jsonl", "many.jsonl"}, asked, "no estimate without a Tuner")
}
