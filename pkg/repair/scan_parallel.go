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

// batch is a run of consecutive lines with their own copy of the bytes.
type batch struct {
	buf   []byte
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
		rd := jsonl.NewReader(r)
		cur := newBatch()
		send := func() bool {
			select {
			case ordered <- cur:
			case <-stop:
				return false
			}
			jobs <- cur
			cur = newBatch()
			return true
		}
		for {
			ln, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				cur.err = err
				break
			}
			start := len(cur.buf)
			cur.buf = append(cur.buf, ln.Data...)
			ln.Data = cur.buf[start:len(cur.buf):len(cur.buf)]
			cur.lines = append(cur.lines, ln)
			if len(cur.buf) >= batchBytes || len(cur.lines) >= batchLines {
				if !send() {
					return
				}
			}
		}
		if len(cur.lines) > 0 || cur.err != nil {
			send()
		}
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

func newBatch() *batch {
	return &batch{buf: make([]byte, 0, batchBytes+64<<10), done: make(chan struct{})}
}

// classify fixes the line slices (the buffer may have grown while they were
// appended) and validates and parses every line.
func classify(b *batch) {
	off := 0
	b.kinds = make([]lineKind, len(b.lines))
	b.ents = make([]*Entry, len(b.lines))
	for i := range b.lines {
		n := len(b.lines[i].Data)
		b.lines[i].Data = b.buf[off : off+n : off+n]
		off += n
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
