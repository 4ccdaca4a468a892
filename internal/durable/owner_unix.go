//go:build unix

package durable

import (
	"os"
	"syscall"
)

// FileOwner is a file's uid and gid (ok false where the platform has none).
func FileOwner(st os.FileInfo) (uid, gid int, ok bool) {
	if st == nil {
		return 0, 0, false
	}
	if sys, isUnix := st.Sys().(*syscall.Stat_t); isUnix {
		return int(sys.Uid), int(sys.Gid), true
	}
	return 0, 0, false
}

// Nlink is the number of names a file has (1 when unknown).
func Nlink(st os.FileInfo) uint64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Nlink)
	}
	return 1
}
