package durable

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// Temp is a file being written under a temporary name beside the name it
// is for (".<name>.oc-tmp-<random>", never a name OpenClaw counts as a
// session). Commit makes it complete and durable (flush, fsync, close);
// PublishNew then gives it its name. Discard removes it.
type Temp struct {
	fsys   FS
	f      File
	name   string
	w      *bufio.Writer
	h      *Hasher // nil: not hashed
	closed bool
}

// CreateTemp creates the temporary file for path, with the given mode and
// (chown, when not nil) owner. What is written to it is hashed (Commit
// returns the digest) and fails with ctx's error once ctx is cancelled.
func CreateTemp(ctx context.Context, fsys FS, path string, mode os.FileMode, chown func(File) error) (*Temp, error) {
	return createTemp(ctx, orOS(fsys), path, mode, chown, true)
}

func createTemp(ctx context.Context, fsys FS, path string, mode os.FileMode, chown func(File) error, hash bool) (*Temp, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := fsys.CreateTemp(dir, "."+base+TempPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("%s: create temporary file: %w", path, err)
	}
	t := &Temp{fsys: fsys, f: f, name: f.Name()}
	if err := f.Chmod(mode); err != nil {
		t.Discard()
		return nil, fmt.Errorf("%s: chmod: %w", t.name, err)
	}
	if chown != nil {
		if err := chown(f); err != nil {
			t.Discard()
			return nil, fmt.Errorf("%s: chown: %w", t.name, err)
		}
	}
	var w io.Writer = newWriteBehind(f)
	if hash {
		t.h = NewHasher()
		w = io.MultiWriter(w, t.h)
	}
	t.w = newBufWriter(NewContextWriter(ctx, w))
	return t, nil
}

// Name is the temporary file's name.
func (t *Temp) Name() string { return t.name }

// Write implements io.Writer.
func (t *Temp) Write(p []byte) (int, error) { return t.w.Write(p) }

// Commit flushes, fsyncs and closes the file, in that order, and returns
// the digest of what was written (zero for ReplaceAtomic's unhashed temp).
// The file keeps its temporary name. On error it is still there: Discard it.
func (t *Temp) Commit() (Digest, error) {
	if err := t.w.Flush(); err != nil {
		return Digest{}, fmt.Errorf("%s: write: %w", t.name, err)
	}
	if err := t.f.Sync(); err != nil {
		return Digest{}, fmt.Errorf("%s: fsync: %w", t.name, err)
	}
	t.closed = true
	if err := t.f.Close(); err != nil {
		return Digest{}, fmt.Errorf("%s: close: %w", t.name, err)
	}
	if t.h == nil {
		return Digest{}, nil
	}
	return t.h.Digest(), nil
}

// Discard closes the file if it is open and removes it.
func (t *Temp) Discard() {
	if !t.closed {
		t.closed = true
		_ = t.f.Close()
	}
	_ = t.fsys.Remove(t.name)
}

// WriteTemp writes what write produces to a new temporary file for path
// and leaves it complete and fsynced under its temporary name, which it
// returns with the digest of the bytes stored; the caller publishes it with
// PublishNew when the time comes (or removes it). On error (a cancelled ctx
// included) nothing is left.
func WriteTemp(ctx context.Context, fsys FS, path string, mode os.FileMode, chown func(File) error, write func(w io.Writer) error) (string, Digest, error) {
	t, err := CreateTemp(ctx, fsys, path, mode, chown)
	if err != nil {
		return "", Digest{}, err
	}
	if err := write(t); err != nil {
		t.Discard()
		return "", Digest{}, fmt.Errorf("%s: write: %w", t.name, err)
	}
	d, err := t.Commit()
	if err == nil && ctx != nil {
		err = ctx.Err()
	}
	if err != nil {
		t.Discard()
		return "", Digest{}, err
	}
	return t.name, d, nil
}

// WriteNew creates path, which must not exist, complete or not at all: the
// bytes go to a temporary name in the same folder, are fsynced, and only
// then published under path (PublishNew: fails if path exists), and the
// folder is fsynced. A cancelled ctx or any error removes the temporary
// file. It returns the digest of the bytes stored.
func WriteNew(ctx context.Context, fsys FS, path string, mode os.FileMode, chown func(File) error, write func(w io.Writer) error) (Digest, error) {
	fsys = orOS(fsys)
	tmp, d, err := WriteTemp(ctx, fsys, path, mode, chown, write)
	if err != nil {
		return Digest{}, err
	}
	if err := PublishNew(fsys, tmp, path); err != nil {
		_ = fsys.Remove(tmp)
		return Digest{}, err
	}
	return d, nil
}

// WriteNewNumbered is WriteNew under the first free name of names(n) for
// n = 1, 2, … (at most 999): a backup or report that must never replace
// an existing file. It returns the name used; with an error, a name is
// returned only when the file was published (the folder's fsync failed).
func WriteNewNumbered(ctx context.Context, fsys FS, names func(n int) string, mode os.FileMode, chown func(File) error, write func(w io.Writer) error) (string, Digest, error) {
	fsys = orOS(fsys)
	first := names(1)
	tmp, d, err := WriteTemp(ctx, fsys, first, mode, chown, write)
	if err != nil {
		return "", Digest{}, err
	}
	for n := 1; n < 1000; n++ {
		name := names(n)
		err := fsys.RenameNoReplace(tmp, name)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			_ = fsys.Remove(tmp)
			return "", Digest{}, fmt.Errorf("%s: %w", name, err)
		}
		if err := fsys.SyncDir(filepath.Dir(name)); err != nil {
			return name, d, folderSyncError(filepath.Dir(name), err)
		}
		return name, d, nil
	}
	_ = fsys.Remove(tmp)
	return "", Digest{}, fmt.Errorf("%s: too many files with this name", first)
}

// LinkTemp makes a second name for the file src under a new temporary name
// beside path (".<name>.oc-tmp-*", as WriteTemp's), and returns that name;
// PublishNew later gives it the name path. Nothing is written: src's bytes
// are already on disk.
func LinkTemp(fsys FS, src, path string) (string, error) {
	fsys = orOS(fsys)
	dir, base := filepath.Split(path)
	for range 100 {
		tmp := filepath.Join(dir, "."+base+TempPrefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		err := fsys.Link(src, tmp)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		return tmp, err
	}
	return "", fmt.Errorf("%s: no free temporary name", path)
}

// PublishNew gives the complete file tmp (beside path) the name path,
// failing if path exists (RenameNoReplace), and fsyncs the folder.
func PublishNew(fsys FS, tmp, path string) error {
	fsys = orOS(fsys)
	if err := fsys.RenameNoReplace(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s: %w", path, os.ErrExist)
		}
		return fmt.Errorf("%s: rename: %w", path, err)
	}
	if err := fsys.SyncDir(filepath.Dir(path)); err != nil {
		return folderSyncError(filepath.Dir(path), err)
	}
	return nil
}
