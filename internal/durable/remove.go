package durable

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Remove removes the file path (a file oc wrote, or a leftover it judged)
// and fsyncs its folder, so that a removal reported done stays done. A
// file already gone is not an error.
func Remove(fsys FS, path string) error {
	fsys = orOS(fsys)
	if err := fsys.Remove(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if err := fsys.SyncDir(filepath.Dir(path)); err != nil {
		return folderSyncError(filepath.Dir(path), err)
	}
	return nil
}

// MoveNoReplace renames oldpath to newpath, never replacing an existing
// newpath, and fsyncs the folders.
func MoveNoReplace(fsys FS, oldpath, newpath string) error {
	fsys = orOS(fsys)
	if err := fsys.RenameNoReplace(oldpath, newpath); err != nil {
		return err
	}
	if err := fsys.SyncDir(filepath.Dir(newpath)); err != nil {
		return folderSyncError(filepath.Dir(newpath), err)
	}
	if od := filepath.Dir(oldpath); od != filepath.Dir(newpath) {
		if err := fsys.SyncDir(od); err != nil {
			return folderSyncError(od, err)
		}
	}
	return nil
}

// MkdirAll creates the folder path and any parents it lacks (like
// os.MkdirAll) and fsyncs the folder each new one was created in, so that
// files oc then reports written in it do not vanish with it in a crash.
func MkdirAll(fsys FS, path string, perm os.FileMode) error {
	fsys = orOS(fsys)
	path = filepath.Clean(path)
	if st, err := os.Stat(path); err == nil {
		if !st.IsDir() {
			return &os.PathError{Op: "mkdir", Path: path, Err: syscall.ENOTDIR}
		}
		return nil
	}
	parent := filepath.Dir(path)
	if parent != path {
		if err := MkdirAll(fsys, parent, perm); err != nil {
			return err
		}
	}
	if err := fsys.Mkdir(path, perm); err != nil {
		if st, serr := os.Lstat(path); serr == nil && st.IsDir() {
			return nil // made meanwhile
		}
		return err
	}
	if err := fsys.SyncDir(parent); err != nil {
		return folderSyncError(parent, err)
	}
	return nil
}
