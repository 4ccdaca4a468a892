package durable

import (
	"errors"
	"io"
)

// ErrNotRegular is returned when a path names a FIFO, socket, device or
// folder where a regular file was expected. Opening such a file for reading
// could block forever (a FIFO without a writer), so it is never opened
// without O_NONBLOCK, and never read.
var ErrNotRegular = errors.New("not a regular file")

// ReadRegular reads a whole regular file (see OpenRegular).
func ReadRegular(path string) ([]byte, error) {
	f, _, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
