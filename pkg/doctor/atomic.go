package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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

// casReplace replaces path with data only if path still holds the bytes
// whose SHA-256 is want: durable.CompareAndSwap (OpenClaw 2026.5.6 has no
// file lock for its cron store, only an in-process queue, so the content is
// the only thing to compare; the swap is an exchange undone when another
// writer's version was displaced). A cancelled ctx stops before the swap,
// never after.
func casReplace(ctx context.Context, path string, data []byte, want [32]byte, limit int64) error {
	return casReplaceHook(ctx, path, data, want, limit, nil)
}

// casReplaceHook is casReplace with a hook run between the last check and
// the swap (tests: a writer in the narrowest window).
func casReplaceHook(ctx context.Context, path string, data []byte, want [32]byte, limit int64, beforeSwap func()) error {
	err := durable.CompareAndSwap(ctx, path, want, data, durable.CASOptions{Limit: limit, BeforeSwap: beforeSwap})
	if errors.Is(err, durable.ErrChanged) {
		return fmt.Errorf("%w (%w)", ErrStoreChanged, err)
	}
	return err
}

// writeNewFile creates a new file holding data under the first free name of
// names(n) for n = 1, 2, … (durable.WriteNewNumbered: complete or absent,
// never replacing a file). Mode is mode; as root the owner is like's. It
// returns the name used.
func writeNewFile(ctx context.Context, names func(n int) string, data []byte, mode fs.FileMode, like os.FileInfo) (string, error) {
	name, _, err := durable.WriteNewNumbered(ctx, nil, names, mode, chownLike(like), func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	return name, err
}

// chownLike gives a new file like's owner when oc runs as root (nil: nothing to do).
func chownLike(like os.FileInfo) func(durable.File) error {
	uid, gid, ok := owner(like)
	if !ok || os.Geteuid() != 0 {
		return nil
	}
	return func(f durable.File) error { return f.Chown(uid, gid) }
}

// backupBytes keeps data (the bytes of path doctor read and verified) as
// <path>.pre-oc-doctor.<stamp> (or .<stamp>.N when taken), mode 0600, owned
// like the file it backs up.
func backupBytes(ctx context.Context, path string, data []byte, like os.FileInfo, now time.Time) (string, error) {
	base := fmt.Sprintf("%s.pre-oc-doctor.%s", path, durable.Stamp(now))
	name, err := writeNewFile(ctx, func(n int) string {
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
