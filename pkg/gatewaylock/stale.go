package gatewaylock

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/openclaw-tools/oc/internal/durable"
)

// MaxLockBytes bounds what is read of a lock file (OpenClaw's hold a few
// dozen bytes).
const MaxLockBytes = 64 << 10

// Snapshot is a lock file as it was read to be judged: its bytes and the
// identity of the file they came from.
type Snapshot struct {
	Path string
	Raw  []byte
	Info os.FileInfo
}

// ReadLock reads a lock file to judge it: only a regular file (a FIFO named
// <file>.lock must not hang oc), at most MaxLockBytes. A missing lock is an
// error wrapping fs.ErrNotExist; one that is not a regular file wraps
// durable.ErrNotRegular.
func ReadLock(path string) (Snapshot, error) {
	f, st, err := durable.OpenRegular(path)
	if err != nil {
		return Snapshot{Path: path}, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, MaxLockBytes+1))
	if err != nil {
		return Snapshot{Path: path, Info: st}, fmt.Errorf("%s: %w", path, err)
	}
	if len(raw) > MaxLockBytes {
		return Snapshot{Path: path, Info: st}, fmt.Errorf("%s: more than the %d bytes a lock file holds", path, MaxLockBytes)
	}
	return Snapshot{Path: path, Raw: raw, Info: st}, nil
}

// same reports whether o is the file s was read from, with the same bytes:
// the inode alone is not enough, a new lock may be given the inode number
// of the stale one its owner removed.
func (s Snapshot) same(o Snapshot) bool {
	return s.Info != nil && o.Info != nil && os.SameFile(s.Info, o.Info) && bytes.Equal(s.Raw, o.Raw)
}

// ErrLockChanged: the lock is no longer the one judged stale (a live
// process took it in between); it was left in place.
var ErrLockChanged = errors.New("the lock changed since it was judged stale (a new owner took it)")

// BreakOptions tune BreakStaleLock.
type BreakOptions struct {
	FS         durable.FS    // nil: the real file system
	StaleAfter time.Duration // 0: DefaultLockStaleAfter
	Now        time.Time     // when the lock is judged again (zero: now)
	// BeforeAside runs between the last check and the move aside (tests:
	// a live lock taken in the narrowest window).
	BeforeAside func()
}

// BreakStaleLock removes the lock judged stale in judged, only if it still
// is that lock, and says whether it removed it (false and no error: it was
// gone already). The one remover of stale locks, for repair
// --break-stale-locks and doctor --fix:
//
//  1. the lock is read again: same inode, same bytes, still stale;
//  2. it is renamed (never over another file) to a private temporary name,
//     so that a live lock created at that moment under the lock's name is
//     never the file removed;
//  3. the file moved aside is checked again, by inode and bytes: a live
//     process may have replaced the lock between 1 and 2 (and its new file
//     may have the stale one's inode number). If it is not the judged lock,
//     it is put back (ErrLockChanged) or, when that fails, left under the
//     private name, which the error gives;
//  4. only then it is removed, and the folder fsynced.
func BreakStaleLock(judged Snapshot, opts BreakOptions) (removed bool, err error) {
	fsys := opts.FS
	if fsys == nil {
		fsys = durable.OSFS{}
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	path := judged.Path
	cur, err := ReadLock(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // its owner or the gateway removed it meanwhile
	}
	if err != nil {
		return false, err
	}
	if !judged.same(cur) || !JudgeLock(path, cur.Raw, now, opts.StaleAfter).Stale {
		return false, fmt.Errorf("%s: %w", path, ErrLockChanged)
	}
	aside := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+durable.TempPrefix+"stale-"+strconv.Itoa(os.Getpid()))
	if opts.BeforeAside != nil {
		opts.BeforeAside()
	}
	if err := fsys.RenameNoReplace(path, aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("%s: move the stale lock aside: %w", path, err)
	}
	moved, err := ReadLock(aside)
	if err != nil || !judged.same(moved) {
		// Replaced between the check and the rename: that lock is live.
		if perr := fsys.RenameNoReplace(aside, path); perr != nil {
			return false, fmt.Errorf("%s: %w; the new lock was moved to %s and could not be put back: %v", path, ErrLockChanged, aside, perr)
		}
		_ = fsys.SyncDir(filepath.Dir(path))
		return false, fmt.Errorf("%s: %w (a new lock replaced it; put back)", path, ErrLockChanged)
	}
	if err := durable.Remove(fsys, aside); err != nil {
		return false, fmt.Errorf("%s: remove the stale lock: %w", path, err)
	}
	return true, nil
}
