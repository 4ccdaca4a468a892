package durable

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrChanged is returned when a file about to be replaced no longer holds
// the bytes the caller read and planned from.
var ErrChanged = errors.New("changed since it was read")

// CASOptions tune CompareAndSwap.
type CASOptions struct {
	FS FS // nil: OSFS
	// Limit is the most bytes read of the file (more: an error).
	Limit int64
	// BeforeSwap runs between the last check and the swap (tests: a
	// writer in the narrowest window).
	BeforeSwap func()
}

// CompareAndSwap replaces path with data only if path still holds the
// bytes whose SHA-256 is want, for a file that writers replace without a
// lock (OpenClaw 2026.5.6's cron store has only an in-process queue), so
// the content is the only thing to compare. The new file keeps the
// replaced file's owner and mode; a symlink is followed (the file it names
// is replaced, the link stays).
//
// The bytes are checked when the call starts, again right before the swap,
// and once more in what the swap displaced: the swap is an atomic exchange
// (ReplaceAtomic's Displaced), undone when a writer renamed its own version
// in between. Bytes, not inodes: a writer's new file may reuse the inode
// number of one it replaced. A cancelled ctx stops before the swap, never
// after. ErrChanged (wrapped) says another writer won; nothing of theirs is
// lost.
func CompareAndSwap(ctx context.Context, path string, want [sha256.Size]byte, data []byte, opts CASOptions) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	check := func(f *os.File) error {
		raw, err := readAllLimited(f, opts.Limit)
		if err != nil {
			return fmt.Errorf("%s: re-read before writing: %w", path, err)
		}
		if sha256.Sum256(raw) != want {
			return fmt.Errorf("%s: %w", path, ErrChanged)
		}
		return nil
	}
	f, st, err := OpenRegular(path)
	if err != nil {
		return fmt.Errorf("%s: re-read before writing: %w", path, err)
	}
	err = check(f)
	f.Close()
	if err != nil {
		return err
	}
	// The file verified last is held open until the swap is judged: its
	// inode cannot be freed meanwhile, so its number names it alone, and
	// what the swap displaced is compared by identity first (a stat, the
	// narrowest window) and then by bytes (a writer rewriting in place).
	var verified *os.File
	var verifiedSt os.FileInfo
	defer func() {
		if verified != nil {
			verified.Close()
		}
	}()
	return ReplaceAtomic(ctx, path, AtomicOptions{
		FS:       opts.FS,
		KeepFrom: st,
		BeforeRename: func() error {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("%s: not written: %w", path, err)
			}
			f, st, err := OpenRegular(path)
			if err != nil {
				return fmt.Errorf("%s: re-read before writing: %w", path, err)
			}
			verified, verifiedSt = f, st
			if err := check(f); err != nil {
				return err
			}
			// Still that file after the read: the window before the swap
			// is one stat long.
			if now, err := os.Lstat(path); err != nil || !os.SameFile(now, st) {
				return fmt.Errorf("%s: %w", path, ErrChanged)
			}
			if opts.BeforeSwap != nil {
				opts.BeforeSwap()
			}
			return nil
		},
		Displaced: func(name string) error {
			if now, err := os.Lstat(name); err != nil || !os.SameFile(now, verifiedSt) {
				return fmt.Errorf("%s: %w", path, ErrChanged)
			}
			if _, err := verified.Seek(0, io.SeekStart); err != nil {
				return fmt.Errorf("%s: re-read: %w", path, err)
			}
			return check(verified)
		},
	}, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// readAllLimited reads f to its end, at most limit bytes (0: no limit;
// more: an error naming the limit).
func readAllLimited(f io.Reader, limit int64) ([]byte, error) {
	r := f
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if limit > 0 && int64(len(raw)) > limit {
		return nil, fmt.Errorf("more than the %d bytes read of it", limit)
	}
	return raw, nil
}
