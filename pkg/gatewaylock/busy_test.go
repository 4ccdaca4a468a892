package gatewaylock

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// LiveLock looks at a lock without taking it: a live one stops a read
// (after the wait), a stale one or none does not, and the lock file is
// left exactly as it was.
func TestLiveLockLooksWithoutTaking(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s1.jsonl")
	link := filepath.Join(dir, "link.jsonl")
	require.NoError(t, os.WriteFile(file, []byte("{}\n"), 0o644))
	require.NoError(t, os.Symlink(file, link))
	require.NoError(t, LiveLock(t.Context(), []string{link, file}, LockOptions{}), "no lock")

	live := `{"pid": ` + strconv.Itoa(os.Getpid()) + `, "createdAt": "` + time.Now().UTC().Format(time.RFC3339) + `"}`
	require.NoError(t, os.WriteFile(file+".lock", []byte(live), 0o644))
	err := LiveLock(t.Context(), []string{link, file}, LockOptions{})
	var le *LockError
	require.True(t, errors.As(err, &le) && errors.Is(err, ErrLocked), "a live lock of the target: %v", err)
	require.Equal(t, os.Getpid(), le.Info.PID)
	b, _ := os.ReadFile(file + ".lock")
	require.Equal(t, live, string(b), "the lock is not touched")

	// released while waiting: nil, and only after the release
	released := make(chan struct{})
	go func() {
		time.Sleep(150 * time.Millisecond)
		_ = os.Remove(file + ".lock")
		close(released)
	}()
	require.NoError(t, LiveLock(t.Context(), []string{file}, LockOptions{Wait: 30 * time.Second}))
	select {
	case <-released:
	default:
		t.Fatal("LiveLock returned before the lock went away")
	}

	stale := `{"pid": 999999999, "createdAt": "` + time.Now().UTC().Format(time.RFC3339) + `"}`
	require.NoError(t, os.WriteFile(file+".lock", []byte(stale), 0o644))
	require.NoError(t, LiveLock(t.Context(), []string{file}, LockOptions{}), "a stale lock does not stop a read")
}
