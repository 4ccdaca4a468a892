package durable

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
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
	return fsys.SyncDir(filepath.Dir(path))
}

// MoveNoReplace renames oldpath to newpath, never replacing an existing
// newpath, and fsyncs the folders.
func MoveNoReplace(fsys FS, oldpath, newpath string) error {
	fsys = orOS(fsys)
	if err := fsys.RenameNoReplace(oldpath, newpath); err != nil {
		return err
	}
	if err := fsys.SyncDir(filepath.Dir(newpath)); err != nil {
		return fmt.Errorf("%s: fsync folder: %w", filepath.Dir(newpath), err)
	}
	if od := filepath.Dir(oldpath); od != filepath.Dir(newpath) {
		return fsys.SyncDir(od)
	}
	return nil
}
