//go:build unix

package gatewaylock

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO where a lock file should be is refused, never read (it would block).
func TestAFIFOLockIsNotJudged(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "x.jsonl.lock")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { _, err := InspectLock(fifo, time.Now(), 0); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a FIFO lock was judged")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("hung on a FIFO lock")
	}
}
