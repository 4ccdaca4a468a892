package repair

import (
	"io"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// scanNeeds says what the parallel stage works out for the planner: the
// entries' facts under RuleSetAll (all) or the OpenClaw rules, and their
// digests (sums, for an exact repeated-id pass).
type scanNeeds struct {
	all, sums bool
	poison    bool // see Options.poison
	whole     bool // see Options.whole
}

// lineKind is what the parallel stage found a line to be.
type lineKind uint8

const (
	lineBlank   lineKind = iota // white space only: OpenClaw skips it
	lineEntry                   // valid JSON, parsed
	lineInvalid                 // JSON.parse would throw
	lineBadUTF8                 // valid JSON (as Node reads it) with bytes that are not UTF-8
)

// parsedLine is what the parallel stage made of one line.
type parsedLine struct {
	kind lineKind
	ok   bool  // e holds the parsed entry
	e    Entry // reused from batch to batch
}

// scanParallel reads r line by line and calls fn for every line in order,
// with the line classified and, when valid, parsed (e is nil otherwise): one
// pass over each line (jsjson.Tape) finds both whether JSON.parse accepts it
// and the fields and facts the rules read, on every CPU (jsonl.ParseLines).
// The line and the entry fn is given are reused once fn returns: fn copies
// what it keeps.
func scanParallel(r io.Reader, sizeHint int64, needs scanNeeds, fn func(ln jsonl.Line, kind lineKind, e *Entry)) error {
	newParse := func() func(jsonl.Line, *parsedLine) {
		tp := &jsjson.Tape{MaxDepth: 4} // deep enough for a content block's members
		return func(ln jsonl.Line, p *parsedLine) {
			p.kind, p.ok = classifyData(ln.Data, tp)
			needs.parse(ln, tp, p)
		}
	}
	return jsonl.ParseLines(r, jsonl.ParseOptions{SizeHint: sizeHint, Poison: needs.poison, Whole: needs.whole}, newParse,
		func(ln jsonl.Line, p *parsedLine) { p.feed(ln, fn) })
}

// parse reads the entry of a line that parsed (p.ok; tp holds its parse)
// and works out what the planner will ask of it.
func (n scanNeeds) parse(ln jsonl.Line, tp *jsjson.Tape, p *parsedLine) {
	if !p.ok {
		return
	}
	p.e.fromTape(ln.Data, tp)
	f := p.e.prepare(n.all)
	if n.sums {
		f.lineSum(&p.e)
	}
}

// feed hands the line to fn.
func (p *parsedLine) feed(ln jsonl.Line, fn func(ln jsonl.Line, kind lineKind, e *Entry)) {
	if p.ok {
		fn(ln, p.kind, &p.e)
	} else {
		fn(ln, p.kind, nil)
	}
}

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
