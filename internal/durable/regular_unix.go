//go:build unix

package durable

import (
	"fmt"
	"os"
	"syscall"
)

// OpenRegular opens path for reading only if it is a regular file (a
// symlink to one is followed). The open itself uses O_NONBLOCK so that a
// FIFO cannot hang it; the type is then checked on the opened descriptor
// (fstat), so a file swapped between a check and the open cannot slip
// through. The returned file is blocking again.
func OpenRegular(path string) (*os.File, os.FileInfo, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, nil, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		syscall.Close(fd)
		return nil, nil, fmt.Errorf("%s: is a directory (%w)", path, ErrNotRegular)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, fileTypeName(uint32(st.Mode)))
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, nil, &os.PathError{Op: "fcntl", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

func fileTypeName(mode uint32) string {
	switch mode & uint32(syscall.S_IFMT) {
	case syscall.S_IFIFO:
		return "a FIFO"
	case syscall.S_IFSOCK:
		return "a socket"
	case syscall.S_IFCHR:
		return "a character device"
	case syscall.S_IFBLK:
		return "a block device"
	case syscall.S_IFDIR:
		return "a folder"
	case syscall.S_IFLNK:
		return "a symlink"
	}
	return "a special file"
}
