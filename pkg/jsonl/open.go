package jsonl

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
)

// Compression is the encoding of a file on disk.
type Compression uint8

const (
	Plain Compression = iota
	Gzip
	Zstd
)

func (c Compression) String() string {
	switch c {
	case Gzip:
		return "gzip"
	case Zstd:
		return "zstd"
	}
	return "plain"
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// Sniff tells the compression of a stream from its first bytes.
func Sniff(head []byte) Compression {
	switch {
	case bytes.HasPrefix(head, zstdMagic):
		return Zstd
	case bytes.HasPrefix(head, gzipMagic):
		return Gzip
	}
	return Plain
}

// Source is an opened input: the decompressed byte stream and what it was.
type Source struct {
	io.Reader
	Name        string
	Compression Compression
	Size        int64 // size on disk; -1 for stdin
	closers     []func() error
}

// Close releases the decompressor and the file.
func (s *Source) Close() error {
	var first error
	for i := len(s.closers) - 1; i >= 0; i-- {
		if err := s.closers[i](); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Open opens path for reading ("-" is stdin) and decompresses .gz and .zst
// content transparently, recognised by its magic bytes rather than its name.
func Open(path string, stdin io.Reader) (*Source, error) {
	var raw io.Reader
	src := &Source{Name: path, Size: -1}
	if path == "-" {
		if stdin == nil {
			stdin = os.Stdin
		}
		raw = stdin
		src.Name = "<stdin>"
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if st.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s: is a directory", path)
		}
		src.Size = st.Size()
		src.closers = append(src.closers, f.Close)
		raw = f
	}
	br := bufio.NewReaderSize(raw, 64<<10)
	head, _ := br.Peek(4)
	src.Compression = Sniff(head)
	switch src.Compression {
	case Gzip:
		zr, err := gzip.NewReader(br)
		if err != nil {
			src.Close()
			return nil, fmt.Errorf("%s: gzip: %w", src.Name, err)
		}
		src.closers = append(src.closers, zr.Close)
		src.Reader = zr
	case Zstd:
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			src.Close()
			return nil, fmt.Errorf("%s: zstd: %w", src.Name, err)
		}
		src.closers = append(src.closers, func() error { zr.Close(); return nil })
		src.Reader = zr
	default:
		src.Reader = br
	}
	return src, nil
}
