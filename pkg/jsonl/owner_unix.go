//go:build unix

package jsonl

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

// signalZero is kill(pid, 0): nil when the process exists and may be signalled.
func signalZero(pid int) error { return syscall.Kill(pid, 0) }
