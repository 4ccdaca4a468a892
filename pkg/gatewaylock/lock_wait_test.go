package gatewaylock

import (
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// --wait: a lock released while oc waits is taken; oc does not give up early
// or take it before the holder lets go.
func TestAcquireLockWaitsForRelease(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s1.jsonl")
	held, err := AcquireLock(t.Context(), file, LockOptions{})
	require.NoError(t, err)
	var releasing atomic.Bool
	go func() {
		time.Sleep(150 * time.Millisecond)
		releasing.Store(true)
		_ = held.Release()
	}()
	got, err := AcquireLock(t.Context(), file, LockOptions{Wait: 30 * time.Second})
	require.NoError(t, err, "the lock is free within the wait")
	require.True(t, releasing.Load(), "taken only after the holder released it")
	require.NoError(t, got.Release())
}
