package repair

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// lineKind is what the parallel stage found a line to be.
type lineKind uint8

const (
	lineBlank   lineKind = iota // white space only: OpenClaw skips it
	lineEntry                   // valid JSON, parsed
	lineInvalid                 // JSON.parse would throw
	lineBadUTF8                 // valid JSON (as Node reads it) with bytes that are not UTF-8
)

// batch is a run of consecutive lines (their bytes in a buffer of their own).
type batch struct {
	lines []jsonl.Line
	kinds []lineKind
	ents  []*Entry
	err   error
	done  chan struct{}
}

const (
	batchBytes = 1 << 20
	batchLines = 4096
)

// scanParallel reads r line by line and calls fn for every line in order,
// with the line classified and, when valid, parsed. Validation and parsing,
// the costly part, run on every CPU while one goroutine reads; memory stays
// bounded by a few batches in flight (plus the longest line).
func scanParallel(r io.Reader, sizeHint int64, fn func(ln jsonl.Line, kind lineKind, e *Entry)) error {
	workers := min(runtime.GOMAXPROCS(0), 4)
	if workers < 2 || (sizeHint >= 0 && sizeHint < batchBytes) {
		return scanSequential(r, int(sizeHint), fn)
	}
	jobs := make(chan *batch, workers*2)
	ordered := make(chan *batch, workers*2)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range jobs {
				classify(b)
				close(b.done)
			}
		}()
	}
	go func() {
		defer close(ordered)
		defer close(jobs)
		send := func(b *batch) bool {
			select {
			case ordered <- b:
			case <-stop:
				return false
			}
			jobs <- b
			return true
		}
		readBatches(r, send)
	}()
	var firstErr error
	for b := range ordered {
		<-b.done
		if firstErr != nil {
			continue
		}
		for i, ln := range b.lines {
			fn(ln, b.kinds[i], b.ents[i])
		}
		if b.err != nil {
			firstErr = b.err
			close(stop)
		}
	}
	wg.Wait()
	return firstErr
}

// readBatches reads r straight into batch buffers, about batchBytes at a
// time, and hands send every batch of whole lines in order: the bytes are
// copied once, by the read itself. The line a read cuts off starts the next
// batch; a line longer than a batch grows its buffer. A read error ends the
// last batch (as jsonl.Reader reports it, at the line after the last whole
// one).
func readBatches(r io.Reader, send func(*batch) bool) {
	var num, off int64 // lines and bytes handed out so far
	var carry []byte   // the start of a line the last read cut off
	for eof := false; !eof; {
		buf := make([]byte, 0, max(batchBytes+64<<10, 2*len(carry)))
		buf = append(buf, carry...)
		var readErr error
		scanned, hasNewline := len(carry), false // the carry holds no newline
		for len(buf) < batchBytes || !hasNewline {
			if !hasNewline {
				hasNewline = bytes.IndexByte(buf[scanned:], '\n') >= 0
				scanned = len(buf)
				if hasNewline && len(buf) >= batchBytes {
					break
				}
			}
			if len(buf) == cap(buf) {
				// a long line: double (append's 1.25x would copy a long
				// line many times over)
				grown := make([]byte, len(buf), 2*cap(buf))
				copy(grown, buf)
				buf = grown
			}
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
		carry = append([]byte(nil), buf[cut:]...)
		// at most batchLines lines a batch (a megabyte of empty lines would
		// otherwise be a million Line values at once)
		b := &batch{done: make(chan struct{})}
		stopped, base := false, num
		jsonl.Lines(buf[:cut:cut], func(ln jsonl.Line) bool {
			ln.Num += base
			ln.Offset += off
			num = ln.Num
			b.lines = append(b.lines, ln)
			if len(b.lines) == batchLines {
				if stopped = !send(b); stopped {
					return false
				}
				b = &batch{done: make(chan struct{})}
			}
			return true
		})
		if stopped {
			return
		}
		off += int64(cut)
		if readErr != nil {
			b.err = &jsonl.LineError{Line: num + 1, Err: readErr}
		}
		if len(b.lines) == 0 && b.err == nil {
			continue
		}
		if !send(b) {
			return
		}
	}
}

// classify validates and parses every line of b.
func classify(b *batch) {
	b.kinds = make([]lineKind, len(b.lines))
	b.ents = make([]*Entry, len(b.lines))
	for i := range b.lines {
		data := b.lines[i].Data
		switch {
		case len(data) == 0 || (data[0] != '{' && jsonl.IsBlank(data)):
			b.kinds[i] = lineBlank
		case jsonl.Valid(data):
			b.kinds[i] = lineEntry
			if !utf8.Valid(data) {
				b.kinds[i] = lineBadUTF8
			}
			e := ParseEntry(data)
			e.computeHints()
			b.ents[i] = e
		default:
			b.kinds[i] = lineInvalid
		}
	}
}

// scanSequential is scanParallel for small inputs: no goroutines, no batches.
// A file of known size is read whole into one buffer that the lines (and
// whatever the planner keeps of them) point into, so nothing is copied per line.
func scanSequential(r io.Reader, size int, fn func(ln jsonl.Line, kind lineKind, e *Entry)) error {
	if size >= 0 && size <= 64<<10 {
		buf := make([]byte, size+1)
		n, err := io.ReadFull(r, buf)
		switch {
		case err == nil:
			// Larger than its size said (it grew): read the rest as a stream.
			return scanStream(io.MultiReader(bytes.NewReader(buf), r), fn)
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			jsonl.Lines(buf[:n], func(ln jsonl.Line) bool {
				classifyLine(ln, fn)
				return true
			})
			return nil
		default:
			return &jsonl.LineError{Line: 1, Err: err}
		}
	}
	return scanStream(r, fn)
}

// scanStream reads line by line, copying each line out of the reader's buffer.
func scanStream(r io.Reader, fn func(ln jsonl.Line, kind lineKind, e *Entry)) error {
	rd := jsonl.NewReaderSize(r, 64<<10)
	for {
		ln, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		// The reader reuses its buffer: the planner keeps what fn is given.
		ln.Data = append([]byte(nil), ln.Data...)
		classifyLine(ln, fn)
	}
}

func classifyLine(ln jsonl.Line, fn func(ln jsonl.Line, kind lineKind, e *Entry)) {
	data := ln.Data
	switch {
	case len(data) == 0 || (data[0] != '{' && jsonl.IsBlank(data)):
		fn(ln, lineBlank, nil)
	case jsonl.Valid(data):
		e := ParseEntry(data)
		e.computeHints()
		if !utf8.Valid(data) {
			fn(ln, lineBadUTF8, e)
			return
		}
		fn(ln, lineEntry, e)
	default:
		fn(ln, lineInvalid, nil)
	}
}
