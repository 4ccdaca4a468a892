package doctor

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/openclaw-tools/oc/internal/durable"
)

// Doctor's writes: every file is written to a temp name in its folder,
// fsynced and then put in place, so that it is complete or absent. A file
// that replaces another keeps that file's owner and mode; a new file is 0600
// and, when oc runs as root, gets the owner of the store it belongs to.
// Nothing is ever opened that is not a regular file (a FIFO named jobs.json
// must not hang doctor).

// errNotRegular: the path is a FIFO, socket, device or directory.
var errNotRegular = errors.New("not a regular file")

// errNoExchange: renameat2(RENAME_EXCHANGE) is not available here.
var errNoExchange = errors.New("atomic exchange not supported")

// ErrStoreChanged is returned when a file doctor is about to replace no
// longer holds the bytes doctor read and planned from.
var ErrStoreChanged = errors.New("changed since oc doctor read it")

// maxLockBytes bounds what is read of a lock file.
const maxLockBytes = 64 << 10

// openRegular opens path for reading without blocking on a FIFO or device
// (O_NONBLOCK) and makes sure, on the open descriptor, that it is a regular
// file.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, st, err := durable.OpenRegular(path)
	if errors.Is(err, durable.ErrNotRegular) {
		kind := "a special file"
		if st, serr := os.Stat(path); serr == nil {
			kind = fileKind(st.Mode())
			return nil, st, fmt.Errorf("%w (%s)", errNotRegular, kind)
		}
		return nil, nil, fmt.Errorf("%w (%s)", errNotRegular, kind)
	}
	return f, st, err
}

// readRegular reads a regular file of at most limit bytes (more: an error
// naming the size).
func readRegular(path string, limit int64) ([]byte, os.FileInfo, error) {
	f, st, err := openRegular(path)
	if err != nil {
		return nil, st, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, st, err
	}
	if int64(len(raw)) > limit {
		return nil, st, fmt.Errorf("more than the %d bytes doctor reads", limit)
	}
	return raw, st, nil
}

// fileKind names a non-regular file type for messages.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// owner is a file's uid and gid (ok false where the platform has none).
func owner(st os.FileInfo) (uid, gid int, ok bool) {
	if st == nil {
		return 0, 0, false
	}
	return durable.FileOwner(st)
}

// sameFile reports whether two stats name the same inode.
func sameFile(a, b os.FileInfo) bool { return a != nil && b != nil && os.SameFile(a, b) }

// writeTemp writes data to a new temp file beside path with the given mode
// and (as root) the owner of like, fsyncs and closes it, and returns its name.
func writeTemp(path string, data []byte, mode fs.FileMode, like os.FileInfo) (string, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+durable.TempPrefix+"*")
	if err != nil {
		return "", fmt.Errorf("%s: create temporary file: %w", path, err)
	}
	tmp := f.Name()
	fail := func(what string, err error) (string, error) {
		_ = f.Close()
		_ = os.Remove(tmp)
		return "", fmt.Errorf("%s: %s: %w", tmp, what, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail("write", err)
	}
	if err := f.Chmod(mode); err != nil {
		return fail("chmod", err)
	}
	if uid, gid, ok := owner(like); ok && os.Geteuid() == 0 {
		if err := f.Chown(uid, gid); err != nil {
			return fail("chown", err)
		}
	}
	if err := f.Sync(); err != nil {
		return fail("fsync", err)
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("%s: close: %w", tmp, err)
	}
	return tmp, nil
}

// currentDigest reads path (a regular file, at most limit bytes) and returns
// its SHA-256 and stat.
func currentDigest(path string, limit int64) ([32]byte, os.FileInfo, error) {
	raw, st, err := readRegular(path, limit)
	if err != nil {
		return [32]byte{}, st, err
	}
	return sha256.Sum256(raw), st, nil
}

// casReplace replaces path with data only if path still holds the bytes
// whose SHA-256 is want (compare-and-swap; OpenClaw 2026.5.6 has no file lock
// for its cron store, only an in-process queue, so the content is the only
// thing to compare). The new file keeps the replaced file's owner and mode.
//
// The swap is renameat2(RENAME_EXCHANGE): after it, the temp name holds what
// was in place; if that does not hold the verified bytes (a writer renamed
// its own version in between), the exchange is undone and ErrStoreChanged
// returned. Bytes, not inodes: a writer's new file may reuse the inode
// number of one it replaced. Where the exchange is unsupported, the check is repeated right
// before a plain rename. A cancelled ctx stops before the swap, never after.
func casReplace(ctx context.Context, path string, data []byte, want [32]byte, limit int64) error {
	return casReplaceHook(ctx, path, data, want, limit, nil)
}

// casReplaceHook is casReplace with a hook run between the last check and
// the swap (tests: a writer in the narrowest window).
func casReplaceHook(ctx context.Context, path string, data []byte, want [32]byte, limit int64, beforeSwap func()) error {
	// A symlinked store is written where it points: the swap below acts on
	// names, and swapping the link itself would replace the link with a
	// file (and never match the inode verified through it).
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	sum, st, err := currentDigest(path, limit)
	if err != nil {
		return fmt.Errorf("%s: re-read before writing: %w", path, err)
	}
	if sum != want {
		return fmt.Errorf("%s: %w", path, ErrStoreChanged)
	}
	tmp, err := writeTemp(path, data, st.Mode().Perm(), st)
	if err != nil {
		return err
	}
	removeTmp := true
	defer func() {
		if removeTmp {
			_ = os.Remove(tmp)
		}
	}()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: not written: %w", path, err)
	}
	// The last check, as close to the swap as possible.
	sum, _, err = currentDigest(path, limit)
	if err != nil {
		return fmt.Errorf("%s: re-read before writing: %w", path, err)
	}
	if sum != want {
		return fmt.Errorf("%s: %w", path, ErrStoreChanged)
	}
	dir := filepath.Dir(path)
	if beforeSwap != nil {
		beforeSwap()
	}
	switch err := exchangeFiles(tmp, path); {
	case errors.Is(err, errNoExchange):
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("%s: rename: %w", path, err)
		}
		removeTmp = false
	case err != nil:
		return fmt.Errorf("%s: exchange: %w", path, err)
	default:
		// tmp now names what was in place a moment ago. Its bytes, not its
		// inode, say whether it is what was verified: a writer that
		// replaced the file in between may have been given the verified
		// file's inode number again (freed by its own earlier rename).
		if holds(tmp, want, limit) {
			break // what we replaced holds the verified bytes; tmp is removed by the defer
		}
		// A writer replaced the file between the check and the swap: put its
		// version back.
		if err := exchangeFiles(tmp, path); err != nil {
			removeTmp = false
			return fmt.Errorf("%s: %w, and restoring the other writer's version failed (it is in %s): %v", path, ErrStoreChanged, keepConflict(path, tmp), err)
		}
		if !holds(tmp, sha256.Sum256(data), limit) {
			// Yet another writer replaced our short-lived version: keep it visible.
			removeTmp = false
			return fmt.Errorf("%s: %w by two writers at once; the second one's version is kept in %s", path, ErrStoreChanged, keepConflict(path, tmp))
		}
		_ = syncDir(dir)
		return fmt.Errorf("%s: %w", path, ErrStoreChanged)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("%s: fsync folder: %w", dir, err)
	}
	return nil
}

// holds reports whether name is a regular file of at most limit bytes
// whose SHA-256 is sum.
func holds(name string, sum [32]byte, limit int64) bool {
	got, _, err := currentDigest(name, limit)
	return err == nil && got == sum
}

// keepConflict gives a file holding another writer's version a visible name
// that no cleanup (oc's temp-file removal included) takes for a leftover.
func keepConflict(path, tmp string) string {
	name := fmt.Sprintf("%s.oc-conflict-%d", path, time.Now().UnixNano())
	if err := renameNoReplace(tmp, name); err != nil {
		return tmp
	}
	return name
}

func syncDir(dir string) error { return durable.OSFS{}.SyncDir(dir) }

// linkRename renames oldpath to newpath without ever replacing an existing
// newpath: link (fails with EEXIST), then unlink the old name.
func linkRename(oldpath, newpath string) error {
	if err := os.Link(oldpath, newpath); err != nil {
		return err
	}
	return os.Remove(oldpath)
}

// writeNewFile creates a new file holding data under the first free name of
// names(n) for n = 1, 2, …: written to a temp name, fsynced, then linked into
// place (which never replaces an existing file). Mode is mode; as root the
// owner is like's. It returns the name used.
func writeNewFile(names func(n int) string, data []byte, mode fs.FileMode, like os.FileInfo) (string, error) {
	first := names(1)
	tmp, err := writeTemp(first, data, mode, like)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp)
	for n := 1; n < 1000; n++ {
		name := names(n)
		err := os.Link(tmp, name)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		if err := syncDir(filepath.Dir(name)); err != nil {
			return name, fmt.Errorf("%s: fsync folder: %w", filepath.Dir(name), err)
		}
		return name, nil
	}
	return "", fmt.Errorf("%s: too many files with this name", first)
}

// backupBytes keeps data (the bytes of path doctor read and verified) as
// <path>.pre-oc-doctor.<stamp> (or .<stamp>.N when taken), mode 0600, owned
// like the file it backs up.
func backupBytes(path string, data []byte, like os.FileInfo, now time.Time) (string, error) {
	base := fmt.Sprintf("%s.pre-oc-doctor.%s", path, durable.Stamp(now))
	name, err := writeNewFile(func(n int) string {
		if n == 1 {
			return base
		}
		return fmt.Sprintf("%s.%d", base, n)
	}, data, 0o600, like)
	if err != nil {
		return "", fmt.Errorf("backup %s: %w", path, err)
	}
	return name, nil
}
