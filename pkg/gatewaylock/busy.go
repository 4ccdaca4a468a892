package gatewaylock

import (
	"context"
	"time"
)

// LiveLock is the read-only counterpart of AcquireLock, for a command that
// reads a transcript without writing it (repair --check, --dry-run): it
// takes no lock (one of its own would make the gateway's next write wait
// or fail) but looks at OpenClaw's lock of every file named (a symlink and
// its target may each be locked). It returns the first lock that is live
// after waiting up to opts.Wait for it to go away, as a *LockError wrapping
// ErrLocked, or nil when none is. A stale lock does not stop a read: its
// writer is gone. Nor does a lock file that cannot be read (a FIFO, no
// permission): it cannot be judged, and the read goes ahead as it always
// did (a repair, which must take the lock, fails on it).
func LiveLock(ctx context.Context, files []string, opts LockOptions) error {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	for attempt := 1; ; attempt++ {
		var live *LockInfo
		for _, f := range files {
			info, err := InspectLock(LockPath(f), now(), opts.StaleAfter)
			if err == nil && info != nil && !info.Stale {
				live = info
				break
			}
		}
		if live == nil {
			return nil
		}
		if err := waitForLive(ctx, live, attempt, now().Sub(start), opts.Wait); err != nil {
			return err
		}
	}
}
