package gatewaylock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/internal/durable/durabletest"
)

const staleLock = `{"pid":999999999,"createdAt":"2026-01-01T00:00:00.000Z"}`

func liveLock() string {
	return fmt.Sprintf(`{"pid":%d,"createdAt":"%s"}`, os.Getpid(), time.Now().UTC().Format(time.RFC3339Nano))
}

func writeLock(t *testing.T, p, body string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func judged(t *testing.T, p string) Snapshot {
	t.Helper()
	snap, err := ReadLock(p)
	if err != nil {
		t.Fatal(err)
	}
	if !JudgeLock(p, snap.Raw, time.Now(), 0).Stale {
		t.Fatalf("%s is not stale", p)
	}
	return snap
}

// leftovers are the files of dir other than the lock.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		if e.Name() != "s.jsonl.lock" {
			out = append(out, e.Name())
		}
	}
	return out
}

// A lock still stale and unchanged is removed; one already gone is not an
// error.
func TestBreakStaleLockRemovesTheJudgedLock(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "s.jsonl.lock")
	writeLock(t, lock, staleLock)
	snap := judged(t, lock)
	removed, err := BreakStaleLock(snap, BreakOptions{})
	if err != nil || !removed {
		t.Fatalf("removed %v, err %v", removed, err)
	}
	if _, err := os.Lstat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the stale lock is still there: %v", err)
	}
	if left := leftovers(t, dir); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	removed, err = BreakStaleLock(snap, BreakOptions{})
	if err != nil || removed {
		t.Fatalf("a lock already gone: removed %v, err %v", removed, err)
	}
}

// A live process that takes the lock after it was judged stale keeps it,
// whether it replaced the file or rewrote it in place (an inode number can
// come back: bytes are compared too), and whether that happened before the
// last check or in the window between that check and the move aside.
func TestBreakStaleLockNeverRemovesALiveLock(t *testing.T) {
	for _, how := range []string{"replaced", "rewritten"} {
		for _, window := range []string{"before the re-check", "before the move aside"} {
			t.Run(how+" "+window, func(t *testing.T) {
				dir := t.TempDir()
				lock := filepath.Join(dir, "s.jsonl.lock")
				writeLock(t, lock, staleLock)
				snap := judged(t, lock)
				live := liveLock()
				take := func() {
					if how == "replaced" {
						if err := os.Remove(lock); err != nil {
							t.Fatal(err)
						}
					}
					writeLock(t, lock, live)
				}
				opts := BreakOptions{}
				if window == "before the move aside" {
					opts.BeforeAside = take
				} else {
					take()
				}
				removed, err := BreakStaleLock(snap, opts)
				if !errors.Is(err, ErrLockChanged) || removed {
					t.Fatalf("removed %v, err %v; want ErrLockChanged", removed, err)
				}
				if b, err := os.ReadFile(lock); err != nil || string(b) != live {
					t.Fatalf("the live lock was removed or changed: %q %v", b, err)
				}
				if left := leftovers(t, dir); len(left) > 0 {
					t.Errorf("left behind: %v", left)
				}
			})
		}
	}
}

// thirdLockFS: right after the live lock is moved aside, a third process
// creates a new lock under the name, so the moved one cannot be put back.
type thirdLockFS struct {
	durable.OSFS
	lock, body string
	done       bool
}

func (f *thirdLockFS) RenameNoReplace(oldpath, newpath string) error {
	if err := f.OSFS.RenameNoReplace(oldpath, newpath); err != nil {
		return err
	}
	if oldpath == f.lock && !f.done {
		f.done = true
		return os.WriteFile(f.lock, []byte(f.body), 0o600)
	}
	return nil
}

// When the lock moved aside turns out to be a live one and cannot be put
// back, it is kept under the private name the error gives, never removed.
func TestBreakStaleLockKeepsALiveLockItCannotPutBack(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "s.jsonl.lock")
	writeLock(t, lock, staleLock)
	snap := judged(t, lock)
	live := liveLock()
	third := fmt.Sprintf(`{"pid":%d,"createdAt":"%s","third":true}`, os.Getpid(), time.Now().UTC().Format(time.RFC3339Nano))
	fsys := &thirdLockFS{lock: lock, body: third}
	_, err := BreakStaleLock(snap, BreakOptions{FS: fsys, BeforeAside: func() { writeLock(t, lock, live) }})
	if !errors.Is(err, ErrLockChanged) {
		t.Fatalf("err %v, want ErrLockChanged", err)
	}
	left := leftovers(t, dir)
	if len(left) != 1 {
		t.Fatalf("want the moved live lock kept aside, got %v", left)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, left[0])); string(b) != live {
		t.Errorf("kept aside: %q, want the live lock", b)
	}
	if err == nil || !strings.Contains(err.Error(), left[0]) {
		t.Errorf("the error %q does not say where the lock is", err)
	}
}

// repair --break-stale-locks goes through the same remover: a live lock
// taken in the window between the last check and the move aside is not
// removed, and oc reports the lock held.
func TestAcquireLockBreakStaleSparesALiveLockInTheWindow(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.jsonl")
	lock := LockPath(file)
	writeLock(t, lock, staleLock)
	live := liveLock()
	_, err := AcquireLock(context.Background(), file, LockOptions{BreakStale: true, beforeAside: func() { writeLock(t, lock, live) }})
	var le *LockError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
		t.Fatalf("err %v, want the live lock reported held", err)
	}
	if b, err := os.ReadFile(lock); err != nil || string(b) != live {
		t.Fatalf("the live lock was removed or changed: %q %v", b, err)
	}
	// Without a live lock in the window, the stale one is broken and taken.
	writeLock(t, lock, staleLock)
	l, err := AcquireLock(context.Background(), file, LockOptions{BreakStale: true})
	if err != nil {
		t.Fatal(err)
	}
	if l.Broken == nil || !l.Broken.Stale {
		t.Errorf("Broken = %+v, want the stale lock", l.Broken)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
}

// The removal runs the recording file system's suite: after a crash or a
// failed call at any step the lock is there with its stale bytes or gone,
// and once BreakStaleLock reported it removed it stays removed.
func TestBreakStaleLockSuite(t *testing.T) {
	durabletest.Run(t, durabletest.Case{
		Setup: func(t *testing.T, dir string) { writeLock(t, filepath.Join(dir, "s.jsonl.lock"), staleLock) },
		Write: func(ctx context.Context, fsys durable.FS, dir string) error {
			lock := filepath.Join(dir, "s.jsonl.lock")
			snap, err := ReadLock(lock)
			if err != nil {
				return err
			}
			removed, err := BreakStaleLock(snap, BreakOptions{FS: fsys})
			if err == nil && !removed {
				return errors.New("not removed")
			}
			return err
		},
		Check: func(s durabletest.State, ok bool) error {
			b, present := s.Files["s.jsonl.lock"]
			switch {
			case ok && present:
				return errors.New("reported removed, but the lock is back")
			case present && string(b) != staleLock:
				return fmt.Errorf("the lock holds %q", b)
			}
			for _, n := range s.New {
				if b := s.Files[n]; string(b) != staleLock {
					return fmt.Errorf("%s holds %q", n, b)
				}
			}
			return nil
		},
	})
}

// The lock is judged again when it is broken: one that is no longer stale
// then (judged stale for its age at a later clock here) is left alone.
func TestBreakStaleLockJudgesAgain(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "s.jsonl.lock")
	body := liveLock()
	writeLock(t, lock, body)
	snap, err := ReadLock(lock)
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * DefaultLockStaleAfter)
	if !JudgeLock(lock, snap.Raw, later, 0).Stale {
		t.Fatal("not stale an hour later")
	}
	removed, err := BreakStaleLock(snap, BreakOptions{Now: time.Now()})
	if !errors.Is(err, ErrLockChanged) || removed {
		t.Fatalf("removed %v, err %v; want ErrLockChanged", removed, err)
	}
	if b, _ := os.ReadFile(lock); string(b) != body {
		t.Fatalf("the lock was removed or changed: %q", b)
	}
	if removed, err := BreakStaleLock(snap, BreakOptions{Now: later}); err != nil || !removed {
		t.Fatalf("stale at the later clock: removed %v, err %v", removed, err)
	}
}
