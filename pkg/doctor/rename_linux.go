//go:build linux

package doctor

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchangeFiles swaps the two names atomically (renameat2 RENAME_EXCHANGE).
// errNoExchange means the kernel or file system cannot.
func exchangeFiles(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return errNoExchange
	}
	return err
}

// renameNoReplace renames oldpath to newpath unless newpath exists
// (renameat2 RENAME_NOREPLACE; link + unlink where that is unsupported).
func renameNoReplace(oldpath, newpath string) error {
	err := unix.Renameat2(unix.AT_FDCWD, oldpath, unix.AT_FDCWD, newpath, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return linkRename(oldpath, newpath)
	}
	return err
}
