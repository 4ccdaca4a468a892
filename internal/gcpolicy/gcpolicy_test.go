package gcpolicy

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// Deferred turns the collector off with the threshold as memory limit; the
// first collection restores GOGC=100 and no limit.
func TestDeferredUntilFirstCollection(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	if !Deferred(64 << 20) {
		t.Fatal("Deferred did not apply with neither GOGC nor GOMEMLIMIT set")
	}
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Fatalf("GC percent %d after Deferred, want -1 (off)", p)
	}
	if l := debug.SetMemoryLimit(-1); l != 64<<20 {
		t.Fatalf("memory limit %d after Deferred, want %d", l, 64<<20)
	}
	runtime.GC()
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.Gosched()
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		if p == 100 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GC percent still %d after a collection, want 100", p)
		}
		time.Sleep(time.Millisecond)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Fatalf("memory limit %d after the first collection, want none", l)
	}
}

// A user's GOGC or GOMEMLIMIT wins.
func TestDeferredLeavesUsersSetting(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Setenv("GOGC", "")
		t.Setenv("GOMEMLIMIT", "")
		t.Setenv(env, "200")
		before := debug.SetGCPercent(-1)
		debug.SetGCPercent(before)
		if Deferred(64 << 20) {
			t.Fatalf("Deferred applied with %s set", env)
		}
		after := debug.SetGCPercent(-1)
		debug.SetGCPercent(after)
		if after != before {
			t.Fatalf("GC percent changed from %d to %d with %s set", before, after, env)
		}
	}
}
