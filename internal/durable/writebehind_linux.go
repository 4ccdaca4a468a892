package durable

import "golang.org/x/sys/unix"

// startWriteback starts the write-out of size bytes at off of fd's dirty
// pages without waiting for it (SYNC_FILE_RANGE_WRITE alone); errors are
// ignored, the caller's fsync decides.
func startWriteback(fd uintptr, off, size int64) {
	_ = unix.SyncFileRange(int(fd), off, size, unix.SYNC_FILE_RANGE_WRITE)
}
