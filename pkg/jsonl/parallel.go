package jsonl

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/openclaw-tools/oc/internal/grow"
)

// ParseOptions tune ParseLines.
type ParseOptions struct {
	// SizeHint is the input's size in bytes when known, else negative: an
	// input smaller than a batch is read whole and parsed on the calling
	// goroutine.
	SizeHint int64
	// Poison (tests) overwrites each line once fn has seen it, so that a
	// slice fn kept without copying shows at once.
	Poison bool
	// Whole (tests) reads the input whole into one buffer, parsed on the
	// calling goroutine, whatever its size: the lines stay as read until
	// ParseLines returns.
	Whole bool
}

const (
	// about a quarter of a megabyte a batch: the values of the lines in
	// flight (a few batches) stay a few megabytes however large a line's
	// value is
	batchBytes = 256 << 10
	batchLines = 4096
	// wholeBytes: an input of at most this size is read into one buffer.
	wholeBytes = 64 << 10
)

// BatchBytes is about how many bytes ParseLines reads at a time (an input
// smaller than that is parsed on the calling goroutine).
const BatchBytes = batchBytes

// ParseLines reads r and calls fn for every line, in order, with what parse
// made of it. parse, the costly part, runs on every CPU (at most four) over
// batches of lines while one goroutine reads; newParse makes each worker's
// parse (so that each keeps scratch state of its own). parse must set all of
// *v: values are reused from batch to batch.
//
// The bytes are copied once, by the reads: a large input is read through a
// few buffers, read into again once fn has seen their lines, so fn copies
// what it keeps of a line or of its value. Memory stays bounded by a few
// batches in flight plus the longest line. A read error is a *LineError at
// the line after the last whole one.
func ParseLines[T any](r io.Reader, opts ParseOptions, newParse func() func(Line, *T), fn func(Line, *T)) error {
	workers := min(runtime.GOMAXPROCS(0), 4)
	if opts.Whole {
		data, err := io.ReadAll(r)
		if err != nil {
			return &LineError{Line: 1, Err: err}
		}
		return parseSequential(bytes.NewReader(data), int64(len(data)), int64(len(data)), false, newParse(), fn)
	}
	if workers < 2 || (opts.SizeHint >= 0 && opts.SizeHint < batchBytes) {
		return parseSequential(r, opts.SizeHint, wholeBytes, opts.Poison, newParse(), fn)
	}
	jobs := make(chan *parseBatch[T], workers*2)
	ordered := make(chan *parseBatch[T], workers*2)
	pool := newBatchPool[T](workers*2 + 4)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parse := newParse()
			for b := range jobs {
				if cap(b.vals) < len(b.lines) {
					// room for a quarter more: the batches of one input
					// hold about as many lines each, so that a batch's
					// values are made once (each remake leaves fresh
					// memory behind, and a line's value can be kilobytes)
					b.vals = make([]T, 0, len(b.lines)+len(b.lines)/4)
				}
				b.vals = b.vals[:len(b.lines)]
				for i, ln := range b.lines {
					parse(ln, &b.vals[i])
				}
				close(b.done)
			}
		}()
	}
	go func() {
		defer close(ordered)
		defer close(jobs)
		send := func(b *parseBatch[T]) bool {
			select {
			case ordered <- b:
			case <-stop:
				return false
			}
			jobs <- b
			return true
		}
		readBatches(r, pool, send)
	}()
	var firstErr error
	for b := range ordered {
		<-b.done
		if firstErr != nil {
			continue
		}
		for i, ln := range b.lines {
			fn(ln, &b.vals[i])
			if opts.Poison {
				poison(ln.Data)
			}
		}
		if b.err != nil {
			firstErr = b.err
			close(stop)
		}
		pool.release(b)
	}
	wg.Wait()
	return firstErr
}

// parseBatch is a run of consecutive lines of one read buffer.
type parseBatch[T any] struct {
	lines []Line
	vals  []T
	err   error
	done  chan struct{}
	// buf is the read buffer the lines point into, on the last batch made
	// of it (nil on the others): once fn has seen that batch, the buffer is
	// read into again.
	buf []byte
}

// batchPool holds the batches and read buffers fn is done with, for the
// reader to fill again: a large file is read through a few buffers instead
// of a new one per megabyte (which page faults and the collector paid for).
type batchPool[T any] struct {
	batches chan *parseBatch[T]
	bufs    chan []byte
}

func newBatchPool[T any](n int) *batchPool[T] {
	return &batchPool[T]{batches: make(chan *parseBatch[T], n), bufs: make(chan []byte, n)}
}

// poison overwrites b (Options.Poison).
func poison(b []byte) {
	for i := range b {
		b[i] = '#'
	}
}

// batch returns an empty batch.
func (p *batchPool[T]) batch() *parseBatch[T] {
	select {
	case b := <-p.batches:
		b.lines, b.err, b.buf, b.done = b.lines[:0], nil, nil, make(chan struct{})
		return b
	default:
		return &parseBatch[T]{done: make(chan struct{})}
	}
}

// buffer returns an empty buffer of at least size bytes.
func (p *batchPool[T]) buffer(size int) []byte {
	select {
	case buf := <-p.bufs:
		if cap(buf) >= size {
			return buf[:0]
		}
	default:
	}
	return make([]byte, 0, size)
}

// release takes b (and its buffer, when b is the buffer's last batch) back.
func (p *batchPool[T]) release(b *parseBatch[T]) {
	if b.buf != nil {
		select {
		case p.bufs <- b.buf:
		default:
		}
	}
	select {
	case p.batches <- b:
	default:
	}
}

// readBatches reads r straight into batch buffers, about batchBytes at a
// time, and hands send every batch of whole lines in order. The line a read
// cuts off starts the next buffer; a line longer than a buffer grows it
// (doubling, grow.Cap). A read error ends the last batch (as Reader reports
// it, at the line after the last whole one).
func readBatches[T any](r io.Reader, pool *batchPool[T], send func(*parseBatch[T]) bool) {
	var num, off int64 // lines and bytes handed out so far
	var carry []byte   // the start of a line the last read cut off
	for eof := false; !eof; {
		buf := pool.buffer(max(batchBytes+batchBytes/16, 2*len(carry)))
		buf = append(buf, carry...)
		var readErr error
		scanned, hasNewline := len(carry), false // the carry holds no newline
		for len(buf) < batchBytes || !hasNewline {
			if !hasNewline {
				// only the bytes each read adds are looked at
				hasNewline = bytes.IndexByte(buf[scanned:], '\n') >= 0
				scanned = len(buf)
				if hasNewline && len(buf) >= batchBytes {
					break
				}
			}
			buf = grow.Cap(buf, len(buf)+1, 0)
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err != nil {
				eof = true
				if !errors.Is(err, io.EOF) {
					readErr = err
				}
				break
			}
		}
		cut := len(buf)
		if !eof || readErr != nil {
			cut = bytes.LastIndexByte(buf, '\n') + 1
		}
		carry = append(carry[:0], buf[cut:]...)
		// at most batchLines lines a batch (a megabyte of empty lines would
		// otherwise be a million values at once)
		b := pool.batch()
		stopped, base := false, num
		Lines(buf[:cut:cut], func(ln Line) bool {
			ln.Num += base
			ln.Offset += off
			num = ln.Num
			b.lines = append(b.lines, ln)
			if len(b.lines) == batchLines {
				if stopped = !send(b); stopped {
					return false
				}
				b = pool.batch()
			}
			return true
		})
		if stopped {
			return
		}
		off += int64(cut)
		if readErr != nil {
			b.err = &LineError{Line: num + 1, Err: readErr}
		}
		b.buf = buf[:0] // the buffer's last batch (an empty one too: it gives the buffer back)
		if !send(b) {
			return
		}
	}
}

// parseSequential is ParseLines without goroutines: an input of known small
// size is read whole into one buffer, anything else line by line.
func parseSequential[T any](r io.Reader, size, whole int64, poisoned bool, parse func(Line, *T), fn func(Line, *T)) error {
	var v T
	each := func(ln Line) {
		parse(ln, &v)
		fn(ln, &v)
		if poisoned {
			poison(ln.Data)
		}
	}
	if size >= 0 && size <= whole {
		buf := make([]byte, size+1)
		n, err := io.ReadFull(r, buf)
		switch {
		case err == nil:
			// Larger than its size said (it grew): read it as a stream.
			r = io.MultiReader(bytes.NewReader(buf), r)
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			Lines(buf[:n], func(ln Line) bool { each(ln); return true })
			return nil
		default:
			return &LineError{Line: 1, Err: err}
		}
	}
	rd := NewReaderSize(r, wholeBytes)
	for {
		ln, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		each(ln)
	}
}
