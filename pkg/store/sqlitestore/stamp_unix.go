//go:build linux || darwin

package sqlitestore

import (
	"os"
	"syscall"
)

// fileIdentity is a file's device, inode and change time.
func fileIdentity(info os.FileInfo) (dev, ino uint64, ctime int64) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0
	}
	return uint64(st.Dev), st.Ino, ctimeOf(st)
}
