package durable

import (
	"io"
	"syscall"
)

// writeBehindBytes is how much a writeBehind lets pile up before it asks the
// kernel to start writing it out.
const writeBehindBytes = 8 << 20

// writeBehind passes writes on to a file and, every writeBehindBytes, asks
// the kernel to start writing what came since (startWriteback: Linux's
// sync_file_range, nothing elsewhere), so that the disk works while the
// rest is still being made and the final fsync has little left to wait
// for. It is only a hint: the fsync that follows is what makes the file
// durable, and a failed hint is ignored.
type writeBehind struct {
	w       io.Writer
	raw     syscall.RawConn // nil: the file has no descriptor (tests' fakes)
	off     int64           // bytes written
	started int64           // bytes whose write-out was started
}

func newWriteBehind(f File) *writeBehind {
	wb := &writeBehind{w: f}
	if sc, ok := f.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			wb.raw = raw
		}
	}
	return wb
}

func (wb *writeBehind) Write(p []byte) (int, error) {
	n, err := wb.w.Write(p)
	wb.off += int64(n)
	if wb.raw != nil && wb.off-wb.started >= writeBehindBytes {
		from, size := wb.started, wb.off-wb.started
		_ = wb.raw.Control(func(fd uintptr) { startWriteback(fd, from, size) })
		wb.started = wb.off
	}
	return n, err
}
