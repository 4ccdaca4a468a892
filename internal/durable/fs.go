package durable

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// FS is every call oc makes that creates, renames, links or removes a file,
// and syncs a folder: all of oc's writes to the user's files go through one
// (reads do not). OSFS is the real one; tests substitute a recording or a
// faulty one (durabletest) to check the order of the steps, simulate a full
// disk (ENOSPC after N bytes), a read-only file system (which cannot be
// simulated with permission bits when tests run as root) or a crash.
type FS interface {
	// CreateTemp creates a new file in dir, like os.CreateTemp.
	CreateTemp(dir, pattern string) (File, error)
	// CreateExcl creates path with O_CREAT|O_EXCL|O_WRONLY and the given mode.
	CreateExcl(path string, mode os.FileMode) (File, error)
	// Rename renames oldpath to newpath, replacing newpath.
	Rename(oldpath, newpath string) error
	// RenameNoReplace renames oldpath to newpath unless newpath exists
	// (an error wrapping os.ErrExist).
	RenameNoReplace(oldpath, newpath string) error
	// Exchange swaps the two names atomically; ErrNoExchange where the
	// kernel or the file system cannot.
	Exchange(a, b string) error
	// Link makes newpath a second name of oldpath; it fails if newpath exists.
	Link(oldpath, newpath string) error
	Remove(path string) error
	// Mkdir creates the folder path, like os.Mkdir.
	Mkdir(path string, perm os.FileMode) error
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

// ErrNoExchange: an atomic exchange of two names is not available here
// (not Linux, an old kernel, or a file system without RENAME_EXCHANGE).
var ErrNoExchange = errors.New("atomic exchange not supported")

// ErrFolderSync is wrapped by the error of a call that gave a file its name
// but could not fsync the folder after: the name exists now (a crash may
// still undo it), so a caller that cleans up after an error must count it.
var ErrFolderSync = errors.New("fsync folder")

func folderSyncError(dir string, err error) error {
	return fmt.Errorf("%s: %w: %w", dir, ErrFolderSync, err)
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

// RenameNoReplace implements FS: renameat2(RENAME_NOREPLACE) on Linux;
// elsewhere, or where the file system lacks it, link(2) then unlink of the
// old name; where there are no hard links either, a rename after checking
// that newpath is absent (the one case with a window).
func (OSFS) RenameNoReplace(oldpath, newpath string) error {
	err := renameNoReplace(oldpath, newpath)
	if !errors.Is(err, errUnsupported) {
		return err
	}
	err = os.Link(oldpath, newpath)
	switch {
	case err == nil:
		return os.Remove(oldpath)
	case errors.Is(err, os.ErrExist):
		return err
	}
	if _, serr := os.Lstat(newpath); serr == nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: os.ErrExist}
	}
	return os.Rename(oldpath, newpath)
}

// Exchange implements FS (renameat2 RENAME_EXCHANGE on Linux).
func (OSFS) Exchange(a, b string) error {
	err := exchange(a, b)
	if errors.Is(err, errUnsupported) {
		return ErrNoExchange
	}
	return err
}

// Link implements FS.
func (OSFS) Link(oldpath, newpath string) error { return os.Link(oldpath, newpath) }

// Remove implements FS.
func (OSFS) Remove(path string) error { return os.Remove(path) }

// Mkdir implements FS.
func (OSFS) Mkdir(path string, perm os.FileMode) error { return os.Mkdir(path, perm) }

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

// orOS is fsys, or the real file system when it is nil.
func orOS(fsys FS) FS {
	if fsys == nil {
		return OSFS{}
	}
	return fsys
}
