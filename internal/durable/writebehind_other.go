//go:build !linux

package durable

// startWriteback does nothing where there is no sync_file_range: the
// final fsync writes everything.
func startWriteback(fd uintptr, off, size int64) {}
