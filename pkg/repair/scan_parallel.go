package repair

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// scanNeeds says what the parallel stage works out for the planner: the
// entries' facts under RuleSetAll (all) or the OpenClaw rules, and their
// digests (sums, for an exact repeated-id pass).
type scanNeeds struct {
	all, sums bool
	poison    bool // see Options.poison
}

// lineKind is what the parallel stage found a line to be.
type lineKind uint8

const (
	lineBlank   lineKind = iota // white space only: OpenClaw skips it
	lineEntry                   // valid JSON, parsed
	lineInvalid                 // JSON.parse would throw
	lineBadUTF8                 // valid JSON (as Node reads it) with bytes that are not UTF-8
)

// batch is a run of consecutive lines of one read buffer.
type batch struct {
	lines []jsonl.Line
	kinds []lineKind
	ents  []*Entry
	arena []Entry // the entries ents point to
	err   error
	done  chan struct{}
	// buf is the read buffer the lines point into, on the last batch made
	// of it (nil on the others): once fn has seen that batch, the buffer is
	// read into again.
	buf []byte
}

const (
	batchBytes = 1 << 20
	batchLines = 4096
)

// pools hold the batches and read buffers fn is done with, for the reader
// to fill again: a large file is read through a few buffers instead of a
// new one per megabyte (which page faults and the collector paid for).
type pools struct {
	batches chan *batch
	bufs    chan []byte
	poison  bool // see Options.poison
}

func newPools(n int) *pools {
	return &pools{batches: make(chan *batch, n), bufs: make(chan []byte, n)}
}

// batch returns an empty batch.
func (p *pools) batch() *batch {
	select {
	case b := <-p.batches:
		b.lines, b.kinds, b.ents, b.arena = b.lines[:0], b.kinds[:0], b.ents[:0], b.arena[:0]
		b.err, b.buf, b.done = nil, nil, make(chan struct{})
		return b
	default:
		return &batch{done: make(chan struct{})}
	}
}

// buffer returns an empty buffer of at least size bytes.
func (p *pools) buffer(size int) []byte {
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
func (p *pools) release(b *batch) {
	if p.poison {
		for _, ln := range b.lines {
			for i := range ln.Data {
				ln.Data[i] = '#'
			}
		}
	}
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

// scanParallel reads r line by line and calls fn for every line in order,
// with the line classified and, when valid, parsed. Validation and parsing,
// the costly part, run on every CPU while one goroutine reads; memory stays
// bounded by a few batches in flight (plus the longest line). The line and
// the entry fn is given point into a buffer that is read into again after
// fn returns: fn copies what it keeps.
func scanParallel(r io.Reader, sizeHint int64, needs scanNeeds, fn func(ln jsonl.Line, kind lineKind, e *Entry)) error {
	workers := min(runtime.GOMAXPROCS(0), 4)
	if workers < 2 || (sizeHint >= 0 && sizeHint < batchBytes) {
		return scanSequential(r, int(sizeHint), needs, fn)
	}
	jobs := make(chan *batch, workers*2)
	ordered := make(chan *batch, workers*2)
	pool := newPools(workers*2 + 4)
	pool.poison = needs.poison
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tp := newTape()
			for b := range jobs {
				classify(b, tp, needs)
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
		readBatches(r, pool, send)
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
		pool.release(b)
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
func readBatches(r io.Reader, pool *pools, send func(*batch) bool) {
	var num, off int64 // lines and bytes handed out so far
	var carry []byte   // the start of a line the last read cut off
	for eof := false; !eof; {
		buf := pool.buffer(max(batchBytes+64<<10, 2*len(carry)))
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
		carry = append(carry[:0], buf[cut:]...)
		// at most batchLines lines a batch (a megabyte of empty lines would
		// otherwise be a million Line values at once)
		b := pool.batch()
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
				b = pool.batch()
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
		b.buf = buf[:0] // the buffer's last batch (an empty one too: it gives the buffer back)
		if !send(b) {
			return
		}
	}
}

// classify validates and parses every line of b: one pass over each line
// (jsjson.Tape) finds both whether JSON.parse accepts it and the fields the
// rules read.
func classify(b *batch, tp *jsjson.Tape, needs scanNeeds) {
	n := len(b.lines)
	b.kinds = slices.Grow(b.kinds[:0], n)[:n]
	b.ents = slices.Grow(b.ents[:0], n)[:n]
	b.arena = slices.Grow(b.arena[:0], n)[:n]
	for i := range b.lines {
		kind, ok := classifyData(b.lines[i].Data, tp)
		b.kinds[i], b.ents[i] = kind, nil
		if ok {
			e := &b.arena[i]
			e.fromTape(b.lines[i].Data, tp)
			needs.prepare(e)
			b.ents[i] = e
		}
	}
}

// prepare works out what the planner will ask of e.
func (n scanNeeds) prepare(e *Entry) {
	f := e.prepare(n.all)
	if n.sums {
		f.lineSum(e)
	}
}

// newTape is the tape a classifier reuses: deep enough for a content
// block's members (entry, message, content, block, member).
func newTape() *jsjson.Tape { return &jsjson.Tape{MaxDepth: 4} }

// classifyData tells what data is; ok: it parsed (tp holds it).
func classifyData(data []byte, tp *jsjson.Tape) (lineKind, bool) {
	switch {
	case len(data) == 0 || (data[0] != '{' && jsonl.IsBlank(data)):
		return lineBlank, false
	case tp.Parse(data):
		if tp.BadUTF8 {
			return lineBadUTF8, true
		}
		return lineEntry, true
	default:
		return lineInvalid, false
	}
}

// scanSequential is scanParallel for small inputs: no goroutines, no batches.
// A file of known size is read whole into one buffer that the lines (and
// whatever the planner keeps of them) point into, so nothing is copied per line.
func scanSequential(r io.Reader, size int, needs scanNeeds, fn func(ln jsonl.Line, kind lineKind, e *Entry)) error {
	if size >= 0 && size <= 64<<10 {
		buf := make([]byte, size+1)
		n, err := io.ReadFull(r, buf)
		switch {
		case err == nil:
			// Larger than its size said (it grew): read the rest as a stream.
			return scanStream(io.MultiReader(bytes.NewReader(buf), r), needs, fn)
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			tp := newTape()
			jsonl.Lines(buf[:n], func(ln jsonl.Line) bool {
				classifyLine(ln, tp, needs, fn)
				return true
			})
			return nil
		default:
			return &jsonl.LineError{Line: 1, Err: err}
		}
	}
	return scanStream(r, needs, fn)
}

// scanStream reads line by line, copying each line out of the reader's buffer.
func scanStream(r io.Reader, needs scanNeeds, fn func(ln jsonl.Line, kind lineKind, e *Entry)) error {
	rd := jsonl.NewReaderSize(r, 64<<10)
	tp := newTape()
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
		classifyLine(ln, tp, needs, fn)
	}
}

func classifyLine(ln jsonl.Line, tp *jsjson.Tape, needs scanNeeds, fn func(ln jsonl.Line, kind lineKind, e *Entry)) {
	kind, ok := classifyData(ln.Data, tp)
	if !ok {
		fn(ln, kind, nil)
		return
	}
	e := &Entry{}
	e.fromTape(ln.Data, tp)
	needs.prepare(e)
	fn(ln, kind, e)
}
