package durable

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// FS is the part of the file system the atomic writer, backups and locks use.
// OSFS is the real one; tests substitute a faulty one to simulate a full disk
// (ENOSPC after N bytes) or a read-only file system, which cannot be simulated
// with permission bits when tests run as root.
type FS interface {
	// CreateTemp creates a new file in dir, like os.CreateTemp.
	CreateTemp(dir, pattern string) (File, error)
	// CreateExcl creates path with O_CREAT|O_EXCL|O_WRONLY and the given mode.
	CreateExcl(path string, mode os.FileMode) (File, error)
	Rename(oldpath, newpath string) error
	// Link makes newpath a second name of oldpath; it fails if newpath exists.
	Link(oldpath, newpath string) error
	Remove(path string) error
	// SyncDir fsyncs a directory so that a rename in it is durable.
	SyncDir(dir string) error
}

// File is a file opened for writing.
type File interface {
	io.Writer
	Name() string
	Sync() error
	Close() error
	Chmod(mode os.FileMode) error
	Chown(uid, gid int) error
}

// OSFS is the real file system.
type OSFS struct{}

// CreateTemp implements FS.
func (OSFS) CreateTemp(dir, pattern string) (File, error) { return os.CreateTemp(dir, pattern) }

// CreateExcl implements FS.
func (OSFS) CreateExcl(path string, mode os.FileMode) (File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
}

// Rename implements FS.
func (OSFS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// Link implements FS.
func (OSFS) Link(oldpath, newpath string) error { return os.Link(oldpath, newpath) }

// Remove implements FS.
func (OSFS) Remove(path string) error { return os.Remove(path) }

// SyncDir implements FS. File systems that cannot sync a directory
// (EINVAL, ENOTSUP) are tolerated, as restic and others do.
func (OSFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return nil
}

// TempPrefix is how oc's temporary files in a transcript's folder begin:
// "." + base name + TempPrefix + random. A run killed before its rename leaves
// one behind; RemoveStaleTemps deletes them.
const TempPrefix = ".oc-tmp-"

// AtomicOptions tune ReplaceAtomic.
type AtomicOptions struct {
	FS FS // nil: OSFS
	// Mode, UID and GID of the new file. With KeepFrom set they are copied
	// from that file (the original being replaced).
	Mode     os.FileMode
	UID, GID int
	KeepFrom os.FileInfo
	// BeforeRename runs after the temp file is complete and synced, just
	// before the rename: the last moment to give up (e.g. the original
	// changed under us).
	BeforeRename func() error
	// AfterRename runs as soon as the rename succeeded, before the folder is
	// fsynced: from then on the new content is in place even if an error
	// (of that fsync) is returned.
	AfterRename func()
}

// ReplaceAtomic replaces path with what write produces, so that a crash at
// any moment leaves either the old or the new content: the temp file is
// created in the same folder, written, fsynced, given the old file's mode
// and owner, renamed over path, and the folder is fsynced. On any error the
// temp file is removed and path is untouched.
func ReplaceAtomic(path string, opts AtomicOptions, write func(w io.Writer) error) (err error) {
	fsys := opts.FS
	if fsys == nil {
		fsys = OSFS{}
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	mode, uid, gid := opts.Mode, opts.UID, opts.GID
	if mode == 0 {
		mode = 0o600
	}
	chown := false
	if st := opts.KeepFrom; st != nil {
		mode = st.Mode().Perm()
		if u, g, ok := FileOwner(st); ok {
			uid, gid = u, g
			chown = true
		}
	}
	f, err := fsys.CreateTemp(dir, "."+base+TempPrefix+"*")
	if err != nil {
		return fmt.Errorf("%s: create temporary file: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = fsys.Remove(tmp)
		}
	}()
	bw := newBufWriter(newWriteBehind(f))
	if err = write(bw); err != nil {
		return fmt.Errorf("%s: write: %w", tmp, err)
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("%s: write: %w", tmp, err)
	}
	if err = f.Chmod(mode); err != nil {
		return fmt.Errorf("%s: chmod: %w", tmp, err)
	}
	if chown && os.Geteuid() == 0 {
		if err = f.Chown(uid, gid); err != nil {
			return fmt.Errorf("%s: chown: %w", tmp, err)
		}
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("%s: fsync: %w", tmp, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("%s: close: %w", tmp, err)
	}
	if opts.BeforeRename != nil {
		if err = opts.BeforeRename(); err != nil {
			return err
		}
	}
	if err = fsys.Rename(tmp, path); err != nil {
		return fmt.Errorf("%s: rename: %w", path, err)
	}
	if opts.AfterRename != nil {
		opts.AfterRename()
	}
	if err := fsys.SyncDir(dir); err != nil {
		// The rename happened; only its durability is in doubt. Report it but
		// do not remove anything.
		return fmt.Errorf("%s: fsync folder: %w", dir, err)
	}
	return nil
}

func newBufWriter(w io.Writer) *bufio.Writer { return bufio.NewWriterSize(w, 256<<10) }

// isTempOf reports whether name is one of oc's temporary files for the file
// base: ".<base>.oc-tmp-*" (the replacement), ".<base>.rejected-<stamp>.oc-tmp-*"
// (a quarantine file) or ".<base>.bak-oc-<stamp>[...].oc-tmp-*" (a backup or
// its manifest).
func isTempOf(name, base string) bool {
	rest, ok := strings.CutPrefix(name, "."+base)
	if !ok {
		return false
	}
	i := strings.Index(rest, TempPrefix)
	if i < 0 {
		return false
	}
	mid := rest[:i]
	return mid == "" || strings.HasPrefix(mid, ".rejected-") || strings.HasPrefix(mid, BackupInfix)
}

// RemoveStaleTemps removes temporary files an interrupted oc run left beside
// path (see isTempOf) that are older than minAge, and returns their names.
func RemoveStaleTemps(path string, minAge time.Duration, now time.Time) []string {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if !isTempOf(e.Name(), base) {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < minAge {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}
