package jsonl

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// batchedLines is every line readBatches hands out, in order, and the error
// of the last batch. Each batch is given back once its lines are copied, as
// scanParallel gives it back once fn has seen it: the buffers are read into
// again.
func batchedLines(r io.Reader) ([]Line, error) {
	var out []Line
	var err error
	pool := newBatchPool[struct{}](2)
	readBatches(r, pool, func(b *parseBatch[struct{}]) bool {
		for _, ln := range b.lines {
			ln.Data = bytes.Clone(ln.Data)
			out = append(out, ln)
		}
		if b.err != nil {
			err = b.err
		}
		pool.release(b)
		return true
	})
	return out, err
}

// readBatches cuts the stream into the same lines as Lines on the whole
// text (numbers, offsets, bytes, terminators), however the reads fall: lines
// longer than a batch, CRLF split across reads, no final newline, a megabyte
// of empty lines, one byte a read.
func TestReadBatchesEqualsLines(t *testing.T) {
	long := strings.Repeat("x", 3*batchBytes+17)
	texts := map[string]string{
		"empty":         "",
		"one":           `{"a":1}`,
		"crlf":          "{\"a\":1}\r\n{\"b\":2}\r\n\r\n",
		"long lines":    long + "\n" + long + "\r\n{}\n" + long,
		"empty lines":   strings.Repeat("\n", batchBytes+3),
		"many lines":    strings.Repeat(`{"type":"message","id":"abc"}`+"\n", 3*batchLines+5),
		"final newline": strings.Repeat("y", batchBytes-1) + "\n" + strings.Repeat("z", batchBytes) + "\n",
	}
	for name, text := range texts {
		var want []Line
		Lines([]byte(text), func(l Line) bool { want = append(want, l); return true })
		for readerName, r := range map[string]io.Reader{
			"whole":    strings.NewReader(text),
			"one byte": iotest.OneByteReader(strings.NewReader(text)),
			"half":     iotest.HalfReader(strings.NewReader(text)),
		} {
			if readerName == "one byte" && len(text) > 1<<20 {
				continue // too slow to be worth it
			}
			got, err := batchedLines(r)
			if err != nil {
				t.Fatalf("%s/%s: %v", name, readerName, err)
			}
			if len(got) != len(want) {
				t.Fatalf("%s/%s: %d lines, want %d", name, readerName, len(got), len(want))
			}
			for i := range want {
				g, w := got[i], want[i]
				if g.Num != w.Num || g.Offset != w.Offset || g.Term != w.Term || !bytes.Equal(g.Data, w.Data) {
					t.Fatalf("%s/%s: line %d = {%d %d %q %v}, want {%d %d %q %v}", name, readerName, i,
						g.Num, g.Offset, trunc(g.Data), g.Term, w.Num, w.Offset, trunc(w.Data), w.Term)
				}
			}
		}
	}
}

func trunc(b []byte) string {
	if len(b) > 20 {
		return string(b[:20]) + "..."
	}
	return string(b)
}

// A read error hands out the whole lines before it and reports the error at
// the next line, as Reader does; the cut-off line is not handed out.
func TestReadBatchesReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	r := io.MultiReader(strings.NewReader("{\"a\":1}\n{\"b\":2}\n{\"c\""), iotest.ErrReader(boom))
	got, err := batchedLines(r)
	if len(got) != 2 || string(got[1].Data) != `{"b":2}` {
		t.Fatalf("lines before the error: %d", len(got))
	}
	var le *LineError
	if !errors.As(err, &le) || le.Line != 3 || !errors.Is(err, boom) {
		t.Fatalf("error %v: want line 3 wrapping %v", err, boom)
	}
}
