//go:build windows

package durable

import (
	"fmt"
	"os"
)

// OpenRegular opens path for reading only if it is a regular file. Windows
// has no FIFOs a reader could block on in the file namespace, so the type is
// checked on the opened file.
func OpenRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, info.Mode().Type())
	}
	return f, info, nil
}
