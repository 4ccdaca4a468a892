package search

import (
	"bytes"
	"io"
	"sync"

	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// chunkSize is how much of a transcript is read and prefiltered at once.
const chunkSize = 1 << 20

// buffers are the chunk buffers of one search, reused across sessions (a
// fresh megabyte per session was most of a search's system time).
type buffers struct{ pool sync.Pool }

// chunk is a chunk buffer and the room for its lower-cased copy (-i).
type chunk struct{ buf, lower []byte }

func (b *buffers) get() *chunk {
	if c, ok := b.pool.Get().(*chunk); ok {
		return c
	}
	return &chunk{buf: make([]byte, chunkSize)}
}

func (b *buffers) put(c *chunk) {
	if cap(c.buf) <= 4*chunkSize { // a buffer grown for a huge line is let go
		b.pool.Put(c)
	}
}

// scanJSONL hands fn the lines of a transcript (plain or compressed) that
// may match, with their numbers. A chunk with no possible match anywhere is
// only counted (its lines are skipped without being looked at one by one);
// every line goes to fn when all is set (--model follows every turn).
func scanJSONL(path string, m *matcher, all bool, bufs *buffers, fn func(int64, []byte) error) error {
	src, err := jsonl.Open(path, nil)
	if err != nil {
		return err
	}
	defer src.Close()
	c := bufs.get()
	defer bufs.put(c)
	buf := c.buf[:cap(c.buf)]
	var num int64
	carry := 0 // bytes of an unfinished line at buf's start
	for {
		n, rerr := io.ReadFull(src, buf[carry:])
		data := buf[:carry+n]
		eof := rerr == io.EOF || rerr == io.ErrUnexpectedEOF
		if rerr != nil && !eof {
			return rerr
		}
		end := bytes.LastIndexByte(data, '\n') + 1 // complete lines
		if eof {
			end = len(data)
		}
		if end == 0 && !eof {
			// one line longer than the buffer: grow it
			grown := make([]byte, 2*len(buf))
			copy(grown, data)
			buf, carry = grown, len(data)
			c.buf = buf
			continue
		}
		whole := data[:end]
		if !all && !m.mayMatch(whole, &c.lower) {
			num += int64(bytes.Count(whole, []byte{'\n'}))
			if eof && len(whole) > 0 && whole[len(whole)-1] != '\n' {
				num++
			}
		} else {
			for len(whole) > 0 {
				line := whole
				if i := bytes.IndexByte(whole, '\n'); i >= 0 {
					line, whole = whole[:i], whole[i+1:]
				} else {
					whole = nil
				}
				num++
				if err := fn(num, bytes.TrimSuffix(line, []byte{'\r'})); err != nil {
					return err
				}
			}
		}
		if eof {
			return nil
		}
		carry = copy(buf, data[end:])
	}
}
