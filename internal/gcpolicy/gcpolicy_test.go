package gcpolicy

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
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
