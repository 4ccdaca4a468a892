package repair

import (
	"io"
	"os"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// AnalyzeFile is transcript.AnalyzeFileWith with what repair would do to
// the file planned from the same read and parse of it (`oc inspect`: the
// analysis and the repair finding for the price of one pass). err is the
// analysis's; the plan is nil for stdin ("-"), which is never repaired, and
// when planning failed. progress is told the bytes read.
func AnalyzeFile(f transcript.File, stdin io.Reader, progress func(int), opts Options) (*transcript.Summary, *Plan, error) {
	if f.Path == "-" {
		s, err := transcript.AnalyzeFileWith[struct{}](f, stdin, progress, nil)
		return s, nil, err
	}
	hint := int64(-1)
	if st, err := os.Stat(f.Path); err == nil {
		hint = st.Size() // room for the ids (a compressed file holds more)
	}
	pl, err := newPlanner(f.Path, opts, hint)
	if err != nil {
		s, err := transcript.AnalyzeFileWith[struct{}](f, stdin, progress, nil)
		return s, nil, err
	}
	s, err := transcript.AnalyzeFileWith[parsedLine](f, stdin, progress, &planRider{pl: pl, needs: pl.needs()})
	if err != nil {
		return nil, nil, err
	}
	p, err := pl.done()
	if o, again := replanWith(opts, err); err != nil && again == nil {
		p, err = planAgain(f.Path, o)
	}
	if err != nil {
		return s, nil, nil
	}
	p.Size = s.Size
	for _, c := range []jsonl.Compression{jsonl.Plain, jsonl.Gzip, jsonl.Zstd} {
		if c.String() == s.Compression {
			p.compression = c
		}
	}
	return s, p, nil
}

// planAgain plans path again as the first pass asked (opts: with every
// row, the links or the cuts), and as many passes more as need be.
func planAgain(path string, opts Options) (*Plan, error) {
	file, st, err := durable.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	var head [4]byte
	n, _ := file.ReadAt(head[:], 0)
	comp := jsonl.Sniff(head[:n])
	opts.Progress = nil // the progress display has seen the file once
	p, err := planFrom(file, comp, st, path, opts)
	for tries := 0; err != nil && tries < 3; tries++ {
		if opts, err = replanWith(opts, err); err != nil {
			break
		}
		if _, err := file.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		p, err = planFrom(file, comp, st, path, opts)
	}
	if err != nil {
		return nil, err
	}
	p.Size, p.ModTime, p.compression = st.Size(), st.ModTime(), comp
	return p, nil
}

// planRider plans a transcript from the lines the analysis reads.
type planRider struct {
	pl    *planner
	needs scanNeeds
}

// Parse implements transcript.Rider: the line classified as the planner's
// own scan classifies it, the entry read off the analysis's tape.
func (r *planRider) Parse(ln jsonl.Line, tp *jsjson.Tape, valid bool, p *parsedLine) {
	data := ln.Data
	switch {
	case len(data) == 0 || (data[0] != '{' && jsonl.IsBlank(data)):
		p.kind, p.ok = lineBlank, false
	case !valid:
		p.kind, p.ok = lineInvalid, false
	case tp.BadUTF8:
		p.kind, p.ok = lineBadUTF8, true
	default:
		p.kind, p.ok = lineEntry, true
	}
	r.needs.parse(ln, tp, p)
}

// Line implements transcript.Rider.
func (r *planRider) Line(ln jsonl.Line, p *parsedLine) { p.feed(ln, r.pl.feed) }

var _ transcript.Rider[parsedLine] = (*planRider)(nil)
