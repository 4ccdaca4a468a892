package durable

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// errUnsupported: the kernel or the file system lacks the renameat2 flag.
var errUnsupported = errors.New("renameat2 flag not supported")

func renameat2(a, b string, flags uint) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, flags)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
		return errUnsupported
	}
	return &os.LinkError{Op: "renameat2", Old: a, New: b, Err: err}
}

// exchange swaps two names (RENAME_EXCHANGE).
func exchange(a, b string) error { return renameat2(a, b, unix.RENAME_EXCHANGE) }

// renameNoReplace renames unless newpath exists (RENAME_NOREPLACE).
func renameNoReplace(oldpath, newpath string) error {
	return renameat2(oldpath, newpath, unix.RENAME_NOREPLACE)
}
