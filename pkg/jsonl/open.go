package jsonl

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
	"github.com/openclaw-tools/oc/internal/durable"
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
// A plain file is read directly, without an extra buffer.
func Open(path string, stdin io.Reader) (*Source, error) {
	return OpenProgress(path, stdin, nil)
}

// OpenProgress is Open that tells progress, when it is not nil, the bytes
// read from the file on disk (compressed bytes for compressed content, so
// that they add up to Size); stdin is not counted.
func OpenProgress(path string, stdin io.Reader, progress func(n int)) (*Source, error) {
	src := &Source{Name: path, Size: -1}
	var raw io.Reader
	var head []byte
	if path == "-" {
		if stdin == nil {
			stdin = os.Stdin
		}
		br := bufio.NewReaderSize(stdin, 64<<10)
		head, _ = br.Peek(4)
		raw = br
		src.Name = "<stdin>"
	} else {
		// Never block on a FIFO or read a device named like a transcript.
		f, st, err := durable.OpenRegular(path)
		if err != nil {
			return nil, err
		}
		src.Size = st.Size()
		src.closers = append(src.closers, f.Close)
		var buf [4]byte
		n, _ := f.ReadAt(buf[:], 0)
		head = buf[:n]
		raw = f
		if progress != nil {
			raw = &reportingReader{r: f, report: progress}
		}
	}
	src.Compression = Sniff(head)
	switch src.Compression {
	case Gzip:
		zr, err := gzip.NewReader(bufio.NewReaderSize(raw, 64<<10))
		if err != nil {
			src.Close()
			return nil, fmt.Errorf("%s: gzip: %w", src.Name, err)
		}
		src.closers = append(src.closers, zr.Close)
		src.Reader = zr
	case Zstd:
		zr, err := zstd.NewReader(raw, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			src.Close()
			return nil, fmt.Errorf("%s: zstd: %w", src.Name, err)
		}
		src.closers = append(src.closers, func() error { zr.Close(); return nil })
		src.Reader = zr
	default:
		src.Reader = raw
	}
	return src, nil
}

// reportingReader tells report the bytes read through it.
type reportingReader struct {
	r      io.Reader
	report func(int)
}

func (r *reportingReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.report(n)
	}
	return n, err
}
