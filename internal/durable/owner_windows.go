//go:build windows

package durable

import "os"

// FileOwner is a file's uid and gid: Windows has none (ok false).
func FileOwner(os.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }

// Nlink is the number of names a file has: not known here (1).
func Nlink(os.FileInfo) uint64 { return 1 }
