package jsonl

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// FuzzReader: the lines and their terminators put back together are exactly
// the input, whatever the buffer size and however the reads are split.
func FuzzReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"b\":2}\r\n\n  \nlast"), uint8(16))
	f.Add([]byte("\r\n\r\r\n\n"), uint8(1))
	f.Add([]byte{}, uint8(3))
	f.Add(bytes.Repeat([]byte("x"), 100), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, size uint8) {
		r := NewReaderSize(iotest.HalfReader(bytes.NewReader(data)), int(size))
		var out []byte
		var num, off int64
		for {
			ln, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			num++
			if ln.Num != num || ln.Offset != off {
				t.Fatalf("line %d at %d, want %d at %d", ln.Num, ln.Offset, num, off)
			}
			if bytes.IndexByte(ln.Data, '\n') >= 0 {
				t.Fatal("a line holds a newline")
			}
			out = append(out, ln.Data...)
			out = append(out, ln.Term.Bytes()...)
			off += ln.Len()
		}
		if !bytes.Equal(out, data) {
			t.Fatalf("reassembled %q, want %q", out, data)
		}
		// The in-memory splitter gives the same lines.
		var again []byte
		var n int64
		Lines(data, func(l Line) bool {
			n++
			if l.Num != n {
				t.Fatalf("Lines numbered %d, want %d", l.Num, n)
			}
			again = append(append(again, l.Data...), l.Term.Bytes()...)
			return true
		})
		if !bytes.Equal(again, data) || n != num {
			t.Fatalf("Lines gave %d lines %q, Reader %d", n, again, num)
		}
	})
}
