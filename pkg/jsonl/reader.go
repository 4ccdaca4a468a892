// Package jsonl reads JSON Lines files the way OpenClaw writes them:
// byte-exact lines with their own terminators, lines of any length, plain or
// compressed input, and a fast validity scan. (Durable writes are
// internal/durable; the gateway's lock protocol is pkg/gatewaylock.)
package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Terminator is how a line ended.
type Terminator uint8

const (
	// TermNone: the last line of a file that does not end in a newline.
	TermNone Terminator = iota
	// TermLF: "\n".
	TermLF
	// TermCRLF: "\r\n".
	TermCRLF
)

// Bytes returns the terminator's bytes.
func (t Terminator) Bytes() []byte {
	switch t {
	case TermLF:
		return []byte{'\n'}
	case TermCRLF:
		return []byte{'\r', '\n'}
	}
	return nil
}

// Len is the terminator's length in bytes.
func (t Terminator) Len() int {
	switch t {
	case TermLF:
		return 1
	case TermCRLF:
		return 2
	}
	return 0
}

func (t Terminator) String() string {
	switch t {
	case TermLF:
		return "LF"
	case TermCRLF:
		return "CRLF"
	}
	return "none"
}

// Line is one physical line. Data excludes the terminator and is only valid
// until the next call to Reader.Next.
type Line struct {
	Num    int64 // 1-based line number
	Offset int64 // byte offset of the line's first byte in the (decompressed) stream
	Data   []byte
	Term   Terminator
}

// Len is the line's length in bytes, terminator included.
func (l Line) Len() int64 { return int64(len(l.Data) + l.Term.Len()) }

// IsBlank reports whether the line is empty after JavaScript's trim (OpenClaw skips such lines).
func (l Line) IsBlank() bool { return IsBlank(l.Data) }

// LineError is a read error at a line (1-based).
type LineError struct {
	Line int64
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

const defaultBufSize = 1 << 20

// Reader splits a stream into lines. It never holds more than the longest line
// plus one buffer in memory.
type Reader struct {
	r       io.Reader
	buf     []byte
	start   int // first unconsumed byte in buf
	end     int // end of valid data in buf
	offset  int64
	num     int64
	eof     bool
	err     error
	shifted int // bytes fill moved the data left by, so Next can adjust its scan position
}

// NewReader returns a Reader over r with a 1 MiB buffer that grows for longer lines.
func NewReader(r io.Reader) *Reader { return NewReaderSize(r, defaultBufSize) }

// NewReaderSize returns a Reader with an initial buffer of size bytes.
func NewReaderSize(r io.Reader, size int) *Reader {
	if size < 16 {
		size = 16
	}
	return &Reader{r: r, buf: make([]byte, size)}
}

// Next returns the next line, or io.EOF after the last one.
func (r *Reader) Next() (Line, error) {
	scanFrom := r.start
	for {
		if i := bytes.IndexByte(r.buf[scanFrom:r.end], '\n'); i >= 0 {
			nl := scanFrom + i
			data := r.buf[r.start:nl]
			term := TermLF
			if len(data) > 0 && data[len(data)-1] == '\r' {
				data = data[:len(data)-1]
				term = TermCRLF
			}
			return r.emit(data, term, nl+1), nil
		}
		if r.eof {
			if r.err != nil {
				return Line{}, &LineError{Line: r.num + 1, Err: r.err}
			}
			if r.start == r.end {
				return Line{}, io.EOF
			}
			return r.emit(r.buf[r.start:r.end], TermNone, r.end), nil
		}
		scanFrom = r.end
		r.fill()
		scanFrom -= r.shifted
	}
}

func (r *Reader) emit(data []byte, term Terminator, next int) Line {
	r.num++
	l := Line{Num: r.num, Offset: r.offset, Data: data, Term: term}
	r.offset += int64(next - r.start)
	r.start = next
	return l
}

// fill reads more data, first moving unconsumed bytes to the front of the
// buffer and growing it when the pending line fills it.
func (r *Reader) fill() {
	r.shifted = 0
	if r.start > 0 {
		n := copy(r.buf, r.buf[r.start:r.end])
		r.shifted = r.start
		r.start, r.end = 0, n
	}
	if r.end == len(r.buf) {
		nb := make([]byte, len(r.buf)*2)
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	for tries := 0; tries < 100; tries++ {
		n, err := r.r.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			r.eof = true
			if !errors.Is(err, io.EOF) {
				r.err = err
			}
			return
		}
		if n > 0 {
			return
		}
	}
	r.eof = true
	r.err = io.ErrNoProgress
}

// Lines calls fn for each line of data, which is held in memory: the Data of
// each Line points into data (no copies), with the same numbering, offsets and
// terminators as Reader gives. fn returning false stops early.
func Lines(data []byte, fn func(Line) bool) {
	var num, off int64
	for len(data) > 0 {
		num++
		var l Line
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l = Line{Num: num, Offset: off, Data: data[:i:i], Term: TermLF}
			if i > 0 && data[i-1] == '\r' {
				l.Data, l.Term = data[:i-1:i-1], TermCRLF
			}
			data = data[i+1:]
			off += int64(i + 1)
		} else {
			l = Line{Num: num, Offset: off, Data: data[:len(data):len(data)], Term: TermNone}
			data = nil
		}
		if !fn(l) {
			return
		}
	}
}
