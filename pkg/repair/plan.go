package repair

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/internal/hashtab"
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// Options tune planning and applying.
type Options struct {
	Rules RuleSet // "" means RuleSetAll
	// Now is the clock for synthetic entries (tool results); nil: time.Now.
	Now func() time.Time
	// NewID makes the id of a synthetic entry ("repair-" + NewID()); nil: a random UUID v4.
	NewID func() string
	// SessionID overrides the id a rebuilt header gets (default: the UUID in the file name).
	SessionID string
	// Recovery, when set, says the file is a transcript no sessions.json
	// entry names (see Recovery; default rule set only).
	Recovery *Recovery
	// Progress, when set, is called with the number of bytes of the file
	// read so far in each read (for a progress display on one large file).
	Progress func(n int)
	// poison (tests): the scan overwrites each line once the planner is done
	// with it, so that a slice the planner kept of it without copying shows
	// at once.
	poison bool
	// whole (tests): the input is read into one buffer, kept as read.
	whole bool
	// rows keeps the digest of every line for the repeated-row rule (else
	// of the lines without an id: repeatedrow.go).
	rows bool
	// links keeps every entry's link; cuts are the links the parent-cycle
	// rule cuts (cycle.go: a file with a cycle is planned again with them).
	links bool
	cuts  map[cutKey]bool
}

func (o Options) set() RuleSet {
	if o.Rules == "" {
		return RuleSetAll
	}
	return o.Rules
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o Options) newID() string {
	if o.NewID != nil {
		return o.NewID()
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Skip reasons: OpenClaw's, for files it leaves alone.
const (
	SkipInvalidHeader = "invalid session header"
	SkipEmpty         = "empty session file"
	// SkipNotTranscript: the file parses as JSONL but none of its entries is
	// a session entry (a cron run log, a trajectory, any other JSONL). Such a
	// file is never written: a rebuilt header would turn it into a "session".
	SkipNotTranscript = "not an OpenClaw transcript"
)

// Change is one changed line: which rules changed it, and how.
type Change struct {
	Line   int64    `json:"line"`
	Rules  []string `json:"rules"`
	Detail string   `json:"detail,omitempty"`
}

// Plan is what repair would do to one file. PlanFile makes it without
// writing anything; ApplyFile carries it out.
type Plan struct {
	Path    string    `json:"path"`
	RuleSet RuleSet   `json:"ruleSet"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"-"`
	Lines   int64     `json:"lines"`   // physical lines
	Entries int64     `json:"entries"` // entries the repaired file holds
	// Counts is each rule's count (lines, entries or blocks, as OpenClaw counts).
	Counts map[string]int `json:"rules"`
	// LineNums are the (original, 1-based) line numbers each rule touched.
	LineNums map[string][]int64 `json:"lines_by_rule"`
	// Skipped says why nothing will be changed although rules fired
	// (OpenClaw's "invalid session header", "empty session file").
	Skipped string `json:"skipped,omitempty"`
	// Changes lists every changed line in order.
	Changes []Change `json:"changes,omitempty"`

	edits []*edit
	// recovery: why OpenClaw 2026.8+'s import would still not recover this
	// unregistered transcript after the repair ("" when it would)
	recovery    string
	finalNL     bool  // add a newline after an untouched last line that lacks one
	scanned     int64 // the bytes planned (Render reads exactly these)
	compression jsonl.Compression
}

// Changed reports whether applying the plan would change the file.
func (p *Plan) Changed() bool { return p.Skipped == "" && len(p.edits) > 0 }

// NeedsAttention reports whether the file is damaged: it would change, or it
// is damaged in a way the rule set leaves alone.
//
// A file that is not an OpenClaw transcript never needs repair: it is reported
// and left alone (an error only when it was named on the command line).
func (p *Plan) NeedsAttention() bool {
	if p.Skipped == SkipNotTranscript {
		return false
	}
	return len(p.Counts) > 0 || p.Skipped == SkipInvalidHeader || p.recovery != ""
}

// edit is the change to one physical line.
type edit struct {
	line int64
	// off and size locate the line in the file: its first byte and its
	// length without the terminator (Render copies what lies between edits
	// without reading it line by line)
	off  int64
	size int
	term jsonl.Terminator
	// keep: the original line is written as it is (only insertions around it).
	keep   bool
	orig   []byte   // the original bytes (for the quarantine file) when !keep
	pieces []piece  // what replaces the line when !keep
	before [][]byte // lines inserted before it
	hits   []hit
}

type piece struct {
	b     []byte
	after [][]byte // lines inserted after this piece
}

type hit struct {
	rule   string
	count  int
	detail string
}

func (ed *edit) add(rule string, count int, detail string) {
	ed.hits = append(ed.hits, hit{rule, count, detail})
}

// quarantined: the line was dropped or rewritten, so its original goes to the quarantine file.
func (ed *edit) quarantined() bool { return !ed.keep }

func hashStr(s string) uint64 { return hashBytes([]byte(s)) }

// hashBytes is a 64-bit hash for equality within one run (ids, entry
// bytes): eight bytes a round (xxHash64's round and final mix), so hashing
// every entry costs little next to reading it.
func hashBytes(b []byte) uint64 {
	const (
		p1 = 0x9E3779B185EBCA87
		p2 = 0xC2B2AE3D27D4EB4F
		p3 = 0x165667B19E3779F9
	)
	h := uint64(len(b))*p3 ^ 0x27D4EB2F165667C5
	for ; len(b) >= 8; b = b[8:] {
		k := binary.LittleEndian.Uint64(b) * p2
		h ^= bits.RotateLeft64(k, 31) * p1
		h = bits.RotateLeft64(h, 27)*p1 + p3
	}
	for _, c := range b {
		h ^= uint64(c) * p3
		h = bits.RotateLeft64(h, 11) * p1
	}
	h ^= h >> 33
	h *= p2
	h ^= h >> 29
	h *= p3
	h ^= h >> 32
	return h
}

// seenHas reports whether a surviving entry had the id hashed h; the first
// call makes the set of them, with room for the ids the file's size
// promises (seenList's capacity: the first salvaged line of a large damaged
// file comes early, and a set grown from there doubled a dozen times).
func (pl *planner) seenHas(h uint64) bool {
	if pl.seen == nil {
		pl.seen = hashtab.NewSet(max(2*len(pl.seenList), cap(pl.seenList)))
		for _, s := range pl.seenList {
			pl.seen.Add(s)
		}
		pl.seenList = nil
	}
	return pl.seen.Has(h)
}

// markSeen records a surviving entry's id hash.
func (pl *planner) markSeen(h uint64) {
	if pl.seen != nil {
		pl.seen.Add(h)
		return
	}
	pl.seenList = append(pl.seenList, h)
}

// lostRec is an entry that will not survive (cut off, or dropped by a rule).
type lostRec struct {
	parentKnown, parentNull bool
	parent                  string
	before                  string // the nearest surviving entry before it
	beforeOK                bool
}

// candidate is an assistant turn the tool-result rules look at.
type candidate struct {
	ed           *edit
	piece        int
	id           string
	idOK         bool
	calls        []toolCall
	codeMode     bool
	mirrorRule   bool
	nextIsMirror bool
}

// planner holds the state of one planning pass.
type planner struct {
	opts Options
	set  RuleSet
	plan *Plan
	name string

	editAt map[int64]*edit

	entries     int64
	first       *Entry // the first surviving entry
	firstEdit   *edit
	firstPiece  int
	firstLineNo int64
	firstOff    int64 // its line's offset and length (without the terminator)
	firstSize   int
	firstLine   []byte // its line, when the line is otherwise untouched
	firstTerm   jsonl.Terminator
	firstLead   int   // bytes of JavaScript white space before it that only the file start excuses
	lostBefore  *edit // the first lost line before the first entry
	lostFrag    *fragment
	headerIssue bool
	// transcript: some entry is evidently a session entry (a valid header,
	// or an object with a session-entry type, a string id and a parentId).
	transcript bool

	// tree (RuleSetAll): the ids of the surviving entries (seenList, made a
	// set only when a rule asks: seenHas)
	seenList []uint64
	seen     *hashtab.Set
	lost     map[uint64]lostRec
	// successor maps a lost entry's id to the surviving entry re-linked in its place.
	successor map[uint64]string
	lastSurv  []byte // raw JSON string of the nearest surviving entry's id (the planner's copy)
	lastOK    bool
	gap       *lostRec

	// repeated ids (RuleSetAll): the latest entry by trimmed id, and the new
	// ids given to repeats with different content (repeated.go)
	// (one pass: a realistic transcript carries the odd repeated id, so a
	// first pass that only noticed it and a second that acted on it cost
	// twice the reading of it)
	ids     map[uint64]idUse
	renamed map[uint64][]byte
	newID   []byte // the new id of the entry being planned, if renamed

	// repeated rows (repeatedrow.go): the digests of the lines without an
	// id (of every line with Options.rows), each with the first line it
	// was on; needRows: a line whose id repeats is not an indexed entry, so
	// the file is planned again with Options.rows (errRepeatedRows)
	rows     map[uint64]int64
	needRows bool

	// tool results (RuleSetAll): their tool call ids (a set at finish)
	resultList  []uint64
	results     map[uint64]struct{}
	cands       []*candidate
	pendingNext *candidate

	// rec: the recovery rules' state (Options.Recovery, default rule set)
	rec *recoveryState
	// cyc: the parent-cycle rule's state (RuleSetAll, cycle.go)
	cyc cycleState

	// the last line fed: its number and terminator, and whether it was blank
	lastLine  int64
	lastTerm  jsonl.Terminator
	lastBlank bool
}

// PlanFile reads path (plain, .gz or .zst) and returns what repair would do.
// It never writes.
func PlanFile(path string, opts Options) (*Plan, error) {
	f, st, err := durable.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	return planOpened(f, st, path, opts)
}

// planOpened plans from an already opened regular file and closes it.
func planOpened(f *os.File, st os.FileInfo, path string, opts Options) (*Plan, error) {
	defer f.Close()
	var head [4]byte
	n, _ := f.ReadAt(head[:], 0)
	comp := jsonl.Sniff(head[:n])
	p, err := planFrom(f, comp, st, path, opts)
	for tries := 0; err != nil && tries < 3; tries++ {
		// Again with every row kept, or the links, or the cycle cuts (rare:
		// the progress display has seen the file once).
		if opts, err = replanWith(opts, err); err != nil {
			break
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		opts.Progress = nil
		p, err = planFrom(f, comp, st, path, opts)
	}
	if err != nil {
		return nil, err
	}
	p.Size = st.Size()
	p.ModTime = st.ModTime()
	p.compression = comp
	return p, nil
}

// planFrom plans from the start of the open file f, decompressing it by
// path if it is compressed.
func planFrom(f *os.File, comp jsonl.Compression, st os.FileInfo, path string, opts Options) (*Plan, error) {
	var r io.Reader = f
	hint := st.Size()
	if comp != jsonl.Plain {
		// Progress counts the compressed bytes read: they add up to the size.
		src, err := jsonl.OpenProgress(path, nil, opts.Progress)
		if err != nil {
			return nil, err
		}
		defer src.Close()
		r, hint = src, -1
	} else if opts.Progress != nil {
		r = &progressReader{r: r, report: opts.Progress}
	}
	return planReader(r, path, opts, hint)
}

// PlanReader plans the repair of the transcript read from r; name is used for
// messages and for the session id of a rebuilt header.
//
// A stream is read once where it can be: every id and every parentId link
// is kept from the start. Only when a cycle of links must be cut is r read
// again, which needs r to be an io.Seeker (a bytes.Reader, a file);
// otherwise that plan fails with the reason.
func PlanReader(r io.Reader, name string, opts Options) (*Plan, error) {
	start := int64(-1)
	seeker, seekable := r.(io.Seeker)
	if seekable {
		if off, err := seeker.Seek(0, io.SeekCurrent); err == nil {
			start = off
		}
	}
	if opts.set() == RuleSetAll {
		opts.links, opts.rows = true, true
	}
	p, err := planReader(r, name, opts, -1)
	for tries := 0; err != nil && start >= 0 && tries < 3; tries++ {
		if opts, err = replanWith(opts, err); err != nil {
			break
		}
		if _, err := seeker.Seek(start, io.SeekStart); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		p, err = planReader(r, name, opts, -1)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// errRepeatedRows: a line whose id repeats is not an entry OpenClaw
// indexes, and the plan kept the digests of the lines without an id only;
// the file must be planned again with every line's.
var errRepeatedRows = errors.New("a line with a repeated id may repeat an earlier line: plan again with every line's digest kept")

// replanWith is how the next pass plans after err (errRepeatedRows: with
// every row; errParentLinks, errCycleCuts: with the links, and the cuts);
// err itself when it asks for no other pass.
func replanWith(opts Options, err error) (Options, error) {
	var cc *errCycleCuts
	switch {
	case errors.Is(err, errRepeatedRows):
		opts.rows = true
		return opts, nil
	case errors.Is(err, errParentLinks):
		opts.links = true
		return opts, nil
	case errors.As(err, &cc):
		opts.links, opts.cuts = true, cc.cuts
		return opts, nil
	}
	return opts, err
}

func planReader(r io.Reader, name string, opts Options, sizeHint int64) (*Plan, error) {
	pl, err := newPlanner(name, opts, sizeHint)
	if err != nil {
		return nil, err
	}
	if err := scanParallel(r, sizeHint, pl.needs(), pl.feed); err != nil {
		var le *jsonl.LineError
		if errors.As(err, &le) { // "file:line: what went wrong"
			return nil, fmt.Errorf("%s:%d: %w", name, le.Line, le.Err)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return pl.done()
}

// newPlanner starts the plan of the transcript name (sizeHint: its size
// when known, else negative).
func newPlanner(name string, opts Options, sizeHint int64) (*planner, error) {
	pl := &planner{
		opts:   opts,
		set:    opts.set(),
		plan:   &Plan{Path: name, RuleSet: opts.set(), Counts: map[string]int{}, LineNums: map[string][]int64{}},
		name:   name,
		editAt: map[int64]*edit{},
	}
	if pl.set != RuleSetAll && pl.set != RuleSetOpenClaw {
		return nil, fmt.Errorf("unknown rule set %q", pl.set)
	}
	if pl.set == RuleSetAll {
		hint := int(min(max(sizeHint/600, 64), 1<<20))
		pl.lost = map[uint64]lostRec{}
		pl.renamed = map[uint64][]byte{}
		pl.ids = make(map[uint64]idUse, hint)
		pl.seenList = make([]uint64, 0, hint)
		pl.resultList = make([]uint64, 0, hint/4) // a tool result every few entries
		if opts.Recovery != nil {
			pl.rec = &recoveryState{}
		}
	}
	return pl, nil
}

// needs is what the parallel stage works out for this planner.
func (pl *planner) needs() scanNeeds {
	return scanNeeds{all: pl.set == RuleSetAll, sums: pl.set == RuleSetAll, poison: pl.opts.poison, whole: pl.opts.whole}
}

// feed plans one line, in order: what the parallel stage found it to be
// and, when it parsed, its entry (nil otherwise).
func (pl *planner) feed(ln jsonl.Line, kind lineKind, e *Entry) {
	pl.lastLine, pl.lastTerm, pl.lastBlank = ln.Num, ln.Term, kind == lineBlank
	pl.plan.scanned = ln.Offset + ln.Len()
	switch kind {
	case lineBlank:
	case lineEntry:
		pl.entryParsed(ln, nil, 0, ln.Data, false, e)
	case lineBadUTF8:
		if pl.set == RuleSetAll {
			pl.invalidUTF8(ln)
		} else {
			pl.entryParsed(ln, nil, 0, ln.Data, false, e)
		}
	default:
		pl.line(ln)
	}
}

// done finishes the plan once every line was fed; errRepeatedRows,
// errParentLinks or errCycleCuts when the file must be planned again.
func (pl *planner) done() (*Plan, error) {
	pl.plan.Lines = pl.lastLine
	if pl.needRows {
		return nil, errRepeatedRows
	}
	if err := pl.cycleReplan(); err != nil {
		return nil, err
	}
	pl.finish()
	if pl.plan.Changed() && pl.lastTerm == jsonl.TermNone && !pl.lastBlank {
		if _, edited := pl.editAt[pl.lastLine]; !edited {
			pl.plan.finalNL = true
		}
	}
	return pl.plan, nil
}

func (pl *planner) getEdit(ln jsonl.Line) *edit {
	if ed, ok := pl.editAt[ln.Num]; ok {
		return ed
	}
	ed := &edit{line: ln.Num, off: ln.Offset, size: len(ln.Data), term: ln.Term, keep: true}
	pl.editAt[ln.Num] = ed
	return ed
}

// replaceEdit makes the line's edit a replacement (the original is kept for quarantine).
func (pl *planner) replaceEdit(ln jsonl.Line) *edit {
	ed := pl.getEdit(ln)
	if ed.keep {
		ed.keep = false
		ed.orig = append([]byte(nil), ln.Data...)
	}
	return ed
}

func (pl *planner) line(ln jsonl.Line) {
	data := ln.Data
	if jsonl.Valid(data) {
		pl.entry(ln, nil, 0, data, false)
		return
	}
	if pl.set == RuleSetOpenClaw {
		ed := pl.replaceEdit(ln)
		ed.add(RuleMalformedLine, 1, "line does not parse as JSON")
		pl.noteLost(ed, nil)
		return
	}
	if pl.first == nil && pl.lostBefore == nil && len(pl.editAt) == 0 {
		// The first line: OpenClaw's session manager trims the whole file
		// (String.prototype.trim), so JavaScript white space before the
		// header (BOMs, NBSP, VT, U+2028, U+3000, ...) is no damage.
		if t := jsonl.TrimJSLeft(data); len(t) < len(data) && jsonl.Valid(t) {
			pl.entry(ln, nil, 0, t, false)
			if pl.first != nil && pl.firstLineNo == ln.Num {
				pl.firstLead = len(data) - len(t)
			}
			return
		}
	}
	s := salvage(data)
	if len(s.pieces) == 0 {
		ed := pl.replaceEdit(ln)
		ed.add(RuleMalformedLine, 1, malformedDetail(ln))
		var f *fragment
		if len(s.fragment) > 0 {
			f = &s.fragment[0]
		}
		pl.noteLost(ed, f)
		for i := range s.fragment {
			pl.lostFragment(s.fragment[i])
		}
		return
	}
	ed := pl.replaceEdit(ln)
	if s.garbage == 0 {
		ed.add(RuleSalvageGlued, 1, fmt.Sprintf("%d entries glued on one line split apart", len(s.pieces)))
	} else {
		d := fmt.Sprintf("kept %d entr%s, quarantined %s around", len(s.pieces), plural(len(s.pieces), "y", "ies"), countNoun(s.garbage, "byte", "bytes"))
		if s.nuls > 0 {
			d += fmt.Sprintf(" (%d NUL)", s.nuls)
		}
		ed.add(RuleSalvageGarbage, 1, d)
	}
	// Fragments before the first piece come first in file order.
	for i := range s.fragment {
		pl.lostFragment(s.fragment[i])
	}
	for i, pc := range s.pieces {
		b := data[pc[0]:pc[1]]
		if !utf8.Valid(b) {
			// A salvaged entry gets the invalid-utf8 rule too, or a second
			// repair would still find work (fuzz-found).
			fixed, n := jsjson.ReplaceInvalidUTF8(b)
			if jsonl.Valid(fixed) {
				ed.add(RuleInvalidUTF8, 1, countNoun(n, "invalid UTF-8 sequence", "invalid UTF-8 sequences")+" written as U+FFFD, as OpenClaw reads them")
				b = fixed
			}
		}
		pl.entry(ln, ed, i, b, true)
	}
}

// countNoun is n with the noun in the right number: "1 byte", "3 bytes".
func countNoun(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, plural(n, one, many))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func malformedDetail(ln jsonl.Line) string {
	if ln.Term == jsonl.TermNone {
		return "cut-off last line does not parse as JSON"
	}
	if bytes.Equal(jsonl.TrimSpace(ln.Data), []byte("undefined")) {
		return "literal undefined"
	}
	return "line does not parse as JSON"
}

// noteLost records a dropped line before any entry (a damaged header candidate).
func (pl *planner) noteLost(ed *edit, f *fragment) {
	if pl.first == nil && pl.lostBefore == nil {
		pl.lostBefore = ed
		pl.lostFrag = f // readFragment copied its fields
	}
}

// lostFragment registers a cut-off entry for the tree rule.
func (pl *planner) lostFragment(f fragment) {
	if pl.set != RuleSetAll || f.typ() == "session" {
		return
	}
	rec := lostRec{beforeOK: pl.lastOK}
	if pl.lastOK {
		rec.before, _ = jsonl.StringValue(pl.lastSurv)
	}
	if v, ok := f.fields["parentId"]; ok {
		if string(v) == "null" {
			rec.parentKnown, rec.parentNull = true, true
		} else if s, ok := jsonl.StringValue(v); ok && jsonl.ValueKind(v) == '"' {
			rec.parentKnown, rec.parent = true, s
		}
	}
	if v, ok := f.fields["id"]; ok && jsonl.ValueKind(v) == '"' {
		id, _ := jsonl.StringValue(v)
		pl.lost[hashStr(id)] = rec
		return
	}
	// The id itself was lost: the next entry is presumed to be its child.
	pl.gap = &rec
}

// entry runs the entry rules on one parsed value. ed is the line's edit when
// the line is already being replaced (salvage), else nil.
func (pl *planner) entry(ln jsonl.Line, ed *edit, pieceIdx int, b []byte, salvaged bool) {
	pl.entryParsed(ln, ed, pieceIdx, b, salvaged, ParseEntry(b))
}

// entryParsed is entry with the value already parsed. It runs once per
// line; its steps allocate only for a line some rule changes.
func (pl *planner) entryParsed(ln jsonl.Line, ed *edit, pieceIdx int, b []byte, salvaged bool, e *Entry) {
	all := pl.set == RuleSetAll
	f := e.prepare(all)
	if !pl.transcript && isSessionEntry(e) { // until the first: one entry, usually
		pl.transcript = true
	}
	if all && pl.dropsEntry(ln, ed, salvaged, e) {
		return
	}
	out, changed, hits := f.out, f.changed, f.hits
	e = pl.noteFirst(ln, ed, pieceIdx, b, changed, e)
	header := pl.first == e && e.IsHeader()
	if all && !header {
		// Repeated ids: a later entry with an earlier one's id gets its own.
		out, changed, hits = pl.repeatedID(ln, e, out, changed, hits)
		out, changed, hits = pl.relinkLost(e, out, changed, hits)
		out, changed, hits = pl.cutCycle(ln, e, out, changed, hits)
	} else {
		pl.newID = nil
		if all && header {
			pl.noteHeaderID(e)
		}
	}
	ed, pieceIdx = pl.recordEdit(ln, ed, pieceIdx, out, changed, hits)
	if pl.first == e {
		pl.firstEdit = ed
		pl.firstPiece = pieceIdx
	}
	pl.entries++

	if !all {
		return
	}
	if !header {
		pl.noteLink(ln, e, out, changed)
		pl.noteSurvivor(e)
	}
	pl.noteToolUse(ln, ed, pieceIdx, e)
}

// dropsEntry runs the rules that take an entry out of the file (RuleSetAll):
// a salvaged piece repeating a kept id, an invalid message role, and the
// recovery rules. It reports whether the entry is dropped.
func (pl *planner) dropsEntry(ln jsonl.Line, ed *edit, salvaged bool, e *Entry) bool {
	f := e.prepare(true)
	if salvaged && f.idOK && pl.seenHas(f.idRaw) {
		id, _ := e.IDString()
		ed.add(RuleDuplicateSalvage, 1, "salvaged entry repeats id "+strconv.Quote(id))
		return true
	}
	if fx := f.roleFix; fx.Drop {
		if ed == nil {
			ed = pl.replaceEdit(ln)
		}
		ed.add(RuleInvalidMessageRole, 1, fx.Detail)
		pl.droppedEntry(e)
		if pl.first == nil && pl.lostBefore == nil {
			pl.lostBefore = ed
		}
		return true
	}
	if pl.repeatedHeader(ln, ed, e) || pl.repeatedRow(ln, ed, e) {
		return true
	}
	return pl.recoveryEntry(ln, ed, e)
}

// fixContent runs the content rules (an empty assistant error; corrupted
// images and blank user text in a message) on the entry whose bytes are b.
// It returns the entry's bytes, whether they changed, and the rules that hit.
func fixContent(e *Entry, b []byte, all bool) (out []byte, changed bool, hits []hit) {
	if fx := fixEmptyAssistantError(e); fx.Count > 0 {
		return e.withContent(fx.NewContent), true, append(hits, hit{RuleEmptyAssistantError, 1, fx.Detail})
	}
	if !e.IsMessage() {
		return b, false, nil
	}
	content := e.Content
	if all && e.messageHasFields() {
		if !e.f.imageHint {
		} else if nc, n := corruptedImageContent(content); n > 0 {
			content = nc
			hits = append(hits, hit{RuleCorruptedImage, n, countNoun(n, "corrupted image block", "corrupted image blocks")})
		}
	}
	if e.kind().user {
		// the tape's hint is of e.Content; a content the image rule rewrote
		// is walked
		noBlank := e.f.hintsKnown && !e.f.blankHint && len(hits) == 0
		if nc, ok := blankUserContent(content, noBlank); ok {
			content = nc
			hits = append(hits, hit{RuleBlankUserText, 1, "blank user text"})
		}
	}
	if len(hits) > 0 {
		return e.withContent(content), true, hits
	}
	return b, false, nil
}

// noteFirst keeps the first surviving entry, which decides about the header,
// and returns the entry to plan on: for the first one its kept copy (b is
// the reader's buffer), else e.
func (pl *planner) noteFirst(ln jsonl.Line, ed *edit, pieceIdx int, b []byte, changed bool, e *Entry) *Entry {
	if pl.first != nil {
		return e
	}
	pl.first = ParseEntry(append([]byte(nil), b...))
	pl.firstLineNo, pl.firstOff, pl.firstSize = ln.Num, ln.Offset, len(ln.Data)
	pl.firstPiece = pieceIdx
	if ed == nil && !changed {
		pl.firstLine = append([]byte(nil), ln.Data...)
		pl.firstTerm = ln.Term
	}
	if !pl.first.IsHeader() {
		pl.headerIssue = true
	}
	return pl.first
}

// relinkLost is the tree rule on one entry (not the header): an entry whose
// parent was lost is re-linked to the entry that took the parent's place, and
// a compaction whose first kept entry was lost keeps from that entry's
// successor.
func (pl *planner) relinkLost(e *Entry, out []byte, changed bool, hits []hit) ([]byte, bool, []hit) {
	if target, ok := pl.relinkTarget(e); ok {
		if changed {
			e2 := ParseEntry(out)
			out = e2.withParent(target)
		} else {
			out = e.withParent(target)
		}
		changed = true
		hits = append(hits, hit{RuleRelinkParent, 1, "parentId " + string(e.ParentID) + " was lost; re-linked to " + string(target)})
	}
	// A compaction whose first kept entry was lost keeps from the entry
	// that took the lost one's place on the branch; otherwise OpenClaw
	// finds no first kept entry and every kept message drops out.
	if e.prepare(true).compaction {
		if target, ok := pl.firstKeptTarget(e); ok {
			e2 := e
			if changed {
				e2 = ParseEntry(out)
			}
			out = e2.withFirstKept(target)
			changed = true
			hits = append(hits, hit{RuleRelinkParent, 1, "firstKeptEntryId " + string(e.FirstKept) + " was lost; now " + string(target)})
		}
	}
	return out, changed, hits
}

// recordEdit puts the entry's bytes out, when they changed or the line is
// already being replaced (ed != nil), on the line's edit with the rules that
// hit. It returns the edit and the entry's piece on it; for an untouched
// line, nil and pieceIdx.
func (pl *planner) recordEdit(ln jsonl.Line, ed *edit, pieceIdx int, out []byte, changed bool, hits []hit) (*edit, int) {
	if !changed && ed == nil {
		return nil, pieceIdx
	}
	if ed == nil {
		ed = pl.replaceEdit(ln)
		// a line that is valid JSON: one piece
	}
	for _, h := range hits {
		ed.add(h.rule, h.count, h.detail)
	}
	if !changed {
		out = append([]byte(nil), out...) // a salvaged piece still points into the reader's buffer
	}
	ed.pieces = append(ed.pieces, piece{b: out})
	return ed, len(ed.pieces) - 1
}

// noteSurvivor is the tree rule's bookkeeping for a surviving entry (not the
// header): its id is seen, and it is the nearest survivor so far.
func (pl *planner) noteSurvivor(e *Entry) {
	if f := e.prepare(true); f.idOK {
		pl.markSeen(f.idRaw)
		// a copy: the line is read over once the planner is done with it
		if f.idCopyLen > 0 {
			pl.lastSurv = append(pl.lastSurv[:0], f.idCopy[:f.idCopyLen]...)
		} else {
			pl.lastSurv = append(pl.lastSurv[:0], e.ID...)
		}
		pl.lastOK = true
	}
	if pl.newID != nil {
		pl.lastSurv, pl.lastOK = append(pl.lastSurv[:0], pl.newID...), true
	}
}

// noteToolUse records a tool result's id, and a message whose tool calls the
// tool-result rules may answer (a candidate) on the line's edit.
func (pl *planner) noteToolUse(ln jsonl.Line, ed *edit, pieceIdx int, e *Entry) {
	f := e.prepare(true)
	if f.resultOK {
		pl.resultList = append(pl.resultList, f.result)
	}
	if !f.msgObject {
		return
	}
	if pl.pendingNext != nil {
		pl.pendingNext.nextIsMirror = f.mirror
		pl.pendingNext = nil
	}
	code, mirror := f.code, f.responses
	if !code && !mirror {
		return
	}
	calls := f.calls
	if len(calls) == 0 {
		return
	}
	c := &candidate{ed: ed, piece: pieceIdx, calls: calls, codeMode: code, mirrorRule: mirror}
	c.id, c.idOK = e.IDString()
	c.idOK = c.idOK && jsonl.ValueKind(e.ID) == '"'
	if ed == nil {
		c.ed = pl.getEdit(ln)
		c.piece = -1
	}
	pl.cands = append(pl.cands, c)
	if mirror {
		pl.pendingNext = c
	}
}

// droppedEntry registers an entry a rule dropped, for the tree rule.
func (pl *planner) droppedEntry(e *Entry) {
	if e.IsHeader() {
		return
	}
	f := fragment{fields: map[string][]byte{"type": e.Type}}
	if e.ID != nil {
		f.fields["id"] = e.ID
	}
	if e.ParentID != nil {
		f.fields["parentId"] = e.ParentID
	}
	if f.fields["type"] == nil {
		f.fields["type"] = []byte(`"message"`)
	}
	pl.lostFragment(f)
}

// firstKeptTarget decides whether a compaction's firstKeptEntryId names an
// entry lost in this repair and, if so, the raw JSON id of the surviving
// entry that was re-linked in its place.
func (pl *planner) firstKeptTarget(e *Entry) ([]byte, bool) {
	id, ok := jsonl.StringValue(e.FirstKept)
	if !ok || jsonl.ValueKind(e.FirstKept) != '"' {
		return nil, false
	}
	if _, lost := pl.lost[hashStr(id)]; !lost {
		return nil, false
	}
	successor, ok := pl.successor[hashStr(id)]
	if !ok {
		return nil, false
	}
	return jsonString(successor), true
}

// noteSuccessor records that child was re-linked past the lost entry lost
// (and past every lost ancestor of it): child now stands where they stood.
func (pl *planner) noteSuccessor(lost, child string) {
	if pl.successor == nil {
		pl.successor = map[uint64]string{}
	}
	for hops := 0; hops < 10000; hops++ {
		h := hashStr(lost)
		if _, done := pl.successor[h]; done {
			return
		}
		pl.successor[h] = child
		rec, ok := pl.lost[h]
		if !ok || !rec.parentKnown || rec.parentNull {
			return
		}
		if _, isLost := pl.lost[hashStr(rec.parent)]; !isLost {
			return
		}
		lost = rec.parent
	}
}

// relinkTarget decides whether e's parent was lost and, if so, the raw JSON of its new parentId.
func (pl *planner) relinkTarget(e *Entry) ([]byte, bool) {
	gap := pl.gap
	pl.gap = nil
	if gap == nil && len(pl.lost) == 0 {
		return nil, false // nothing was lost: nothing to re-link
	}
	p, ok := e.ParentString()
	if !ok || jsonl.ValueKind(e.ParentID) != '"' {
		return nil, false
	}
	if pl.seenHas(hashStr(p)) {
		return nil, false
	}
	rec, lost := pl.lost[hashStr(p)]
	if lost {
		if id, ok := e.IDString(); ok {
			pl.noteSuccessor(p, id)
		}
	}
	if !lost {
		if gap == nil {
			return nil, false // an orphan OpenClaw wrote itself: not ours to guess
		}
		rec = *gap
		rec.parentKnown = false
	}
	for hops := 0; hops < 10000; hops++ {
		if !rec.parentKnown {
			break
		}
		if rec.parentNull {
			return []byte("null"), true
		}
		if pl.seenHas(hashStr(rec.parent)) {
			return jsonString(rec.parent), true
		}
		next, ok := pl.lost[hashStr(rec.parent)]
		if !ok {
			break
		}
		rec = next
	}
	if rec.beforeOK {
		return jsonString(rec.before), true
	}
	return []byte("null"), true
}

// finish runs the file rules (header, tool results) and fills the report fields.
func (pl *planner) finish() {
	p := pl.plan
	pl.revertRecovery()
	if pl.first == nil {
		p.Skipped = SkipEmpty
	} else if pl.headerIssue && !pl.transcript {
		// Nothing says this is a transcript: leave it exactly as it is.
		p.Skipped = SkipNotTranscript
		pl.editAt = map[int64]*edit{}
	} else if pl.headerIssue {
		if pl.set == RuleSetOpenClaw {
			p.Skipped = SkipInvalidHeader
		} else {
			pl.rebuildHeader()
		}
	}
	if pl.set == RuleSetAll && p.Skipped == "" {
		pl.insertToolResults()
		pl.finishRecovery()
	}
	// Collect the edits that change something, in line order.
	for _, ed := range pl.editAt {
		if len(ed.hits) == 0 && ed.keep && len(ed.before) == 0 && !hasAfter(ed) {
			continue
		}
		p.edits = append(p.edits, ed)
	}
	sortEdits(p.edits)
	for _, ed := range p.edits {
		var rules []string
		var details []string
		for _, h := range ed.hits {
			p.Counts[h.rule] += h.count
			if n := p.LineNums[h.rule]; len(n) == 0 || n[len(n)-1] != ed.line {
				p.LineNums[h.rule] = append(n, ed.line)
			}
			if !containsStr(rules, h.rule) {
				rules = append(rules, h.rule)
			}
			if h.detail != "" {
				details = append(details, h.detail)
			}
		}
		p.Changes = append(p.Changes, Change{Line: ed.line, Rules: rules, Detail: joinDetails(details)})
	}
	p.Entries = pl.entries
}

// isSessionEntry reports whether a parsed value is evidently a session
// transcript entry: a session header (with or without a usable id), or an
// object whose "type" is a session-entry type and that has a string "id" and
// a "parentId" member (a string or null). Cron run logs ({"ts","jobId",
// "action"}), trajectories ({"traceSchema", "type":"session.started"}) and
// other JSONL have none. A "message" entry whose message has a string role
// counts too.
func isSessionEntry(e *Entry) bool {
	if !e.Object {
		return false
	}
	if jsonl.StringIs(e.Type, "session") {
		return true
	}
	t, ok := strView(e.Type)
	if !ok || !entryTypes[string(t)] || string(t) == "session" {
		return false
	}
	if string(t) == "message" && e.messageHasFields() && jsonl.ValueKind(e.Role) == '"' {
		return true // a message with a role (also the id-less entries of early transcripts)
	}
	if jsonl.ValueKind(e.ID) != '"' || e.ParentID == nil {
		return false
	}
	k := jsonl.ValueKind(e.ParentID)
	return k == '"' || k == 'n'
}

func hasAfter(ed *edit) bool {
	for _, pc := range ed.pieces {
		if len(pc.after) > 0 {
			return true
		}
	}
	return false
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func joinDetails(ds []string) string {
	out := ""
	for i, d := range ds {
		if i > 0 {
			out += "; "
		}
		out += d
	}
	return out
}

var uuidRE = lazyre.New(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// SessionIDFromName is the session id a transcript's file name carries: the
// UUID in it (in a flattened "...sessions__<uuid>.jsonl" name, the one after
// the last "sessions__"), else the name without its extensions.
func SessionIDFromName(path string) string {
	base := filepath.Base(path)
	rest := base
	if i := bytes.LastIndex([]byte(base), []byte("sessions__")); i >= 0 {
		rest = base[i+len("sessions__"):]
	}
	if m := uuidRE().FindString(rest); m != "" {
		return m
	}
	if m := uuidRE().FindString(base); m != "" {
		return m
	}
	for ext := filepath.Ext(base); ext != "" && ext != base; ext = filepath.Ext(base) {
		base = base[:len(base)-len(ext)]
	}
	return base
}

// rebuildHeader writes a valid header in front of the first entry.
func (pl *planner) rebuildHeader() {
	fields := pl.headerFields()
	hdr := buildHeader(fields, pl.headerID(), pl.headerTimestamp(fields))
	switch {
	case pl.lostBefore != nil:
		// The damaged first line becomes the rebuilt header.
		ed := pl.lostBefore
		ed.hits = append([]hit{{RuleHeaderRebuild, 1, "damaged header rebuilt from the file name and the first entry"}}, withoutRule(ed.hits, RuleMalformedLine)...)
		ed.pieces = append([]piece{{b: hdr}}, ed.pieces...)
	case pl.first.Object && jsonl.StringIs(pl.first.Type, "session"):
		ed := pl.firstEdit
		if ed == nil || ed.keep {
			ed = pl.editAt[pl.firstLineNo]
			if ed == nil {
				ed = &edit{line: pl.firstLineNo, off: pl.firstOff, size: pl.firstSize, term: pl.firstTerm}
				pl.editAt[ed.line] = ed
			}
			ed.keep = false
			ed.orig = pl.firstLine
			ed.pieces = append([]piece{{b: hdr}}, ed.pieces...)
		} else {
			ed.pieces[pl.firstPiece].b = hdr
		}
		ed.hits = append(ed.hits, hit{RuleHeaderRebuild, 1, "header without a session id rebuilt"})
	default:
		ed := pl.firstEdit
		if ed == nil {
			ed = pl.editAt[pl.firstLineNo]
		}
		if ed == nil {
			ed = &edit{line: pl.firstLineNo, off: pl.firstOff, size: pl.firstSize, term: pl.firstTerm, keep: true}
			pl.editAt[ed.line] = ed
		}
		ed.before = append(ed.before, hdr)
		detail := "missing header inserted"
		if ed.keep && pl.firstLead > 0 && pl.firstLine != nil {
			// The whole-file trim that let OpenClaw read the white space
			// before the first entry (a BOM, a form feed) stops at the new
			// header: the entry is written without it (fuzz-found: a second
			// repair salvaged the line), and its original is quarantined.
			ed.keep = false
			ed.orig = pl.firstLine
			if len(ed.pieces) == 0 {
				ed.pieces = append(ed.pieces, piece{})
			}
			ed.pieces[0].b = pl.firstLine[pl.firstLead:]
			detail += "; " + countNoun(pl.firstLead, "byte", "bytes") + " of white space before the first entry quarantined"
		}
		ed.hits = append(ed.hits, hit{RuleHeaderRebuild, 1, detail})
	}
}

// headerFields are the raw members a rebuilt header keeps: those of a
// session header without a usable id (version, cwd, timestamp), else those
// of the damaged line lost before the first entry, if any.
func (pl *planner) headerFields() map[string][]byte {
	fields := map[string][]byte{}
	var frag map[string][]byte
	if pl.lostFrag != nil {
		frag = pl.lostFrag.fields
	}
	if pl.first.Object && jsonl.StringIs(pl.first.Type, "session") {
		// a header without a usable id: keep what it has
		frag = map[string][]byte{"timestamp": pl.first.Timestamp}
		jsonl.EachMember(pl.first.B, 0, func(m jsonl.Member) bool {
			for _, k := range []string{"version", "cwd", "timestamp"} {
				if jsonl.KeyIs(m.Key, k) {
					frag[k] = pl.first.B[m.Start:m.End]
				}
			}
			return true
		})
	}
	for k, v := range frag {
		fields[k] = v
	}
	return fields
}

// headerID is the rebuilt header's session id: the one asked for (the
// recovery's, under the recovery rules), else the file name's.
func (pl *planner) headerID() string {
	id := pl.opts.SessionID
	if r := pl.opts.Recovery; r != nil && pl.set == RuleSetAll {
		id = r.SessionID
	}
	if id == "" {
		id = SessionIDFromName(pl.name)
	}
	return id
}

// headerTimestamp is the rebuilt header's timestamp: the first entry's (when
// it is not a header), else the kept one, else now.
func (pl *planner) headerTimestamp(fields map[string][]byte) string {
	ts := ""
	if !jsonl.StringIs(pl.first.Type, "session") {
		if s, ok := jsonl.StringValue(pl.first.Timestamp); ok && jsonl.ValueKind(pl.first.Timestamp) == '"' {
			ts = s
		}
	}
	if ts == "" {
		if s, ok := jsonl.StringValue(fields["timestamp"]); ok && jsonl.ValueKind(fields["timestamp"]) == '"' {
			ts = s
		}
	}
	if ts == "" {
		ts = pl.opts.now().UTC().Format("2006-01-02T15:04:05.000Z")
	}
	return ts
}

// buildHeader is a session header line with the kept version (else 3) and
// cwd, the id and the timestamp. It is UTF-8 throughout: bytes that are not
// (a damaged header's cwd, kept raw) are written as U+FFFD, as OpenClaw
// reads them and as the invalid-utf8 rule writes a line; else the next run
// would rewrite the new header (the original stays in the quarantine file).
func buildHeader(fields map[string][]byte, id, ts string) []byte {
	version := []byte("3")
	if v := fields["version"]; len(v) > 0 && (v[0] >= '0' && v[0] <= '9') && jsonl.Valid(v) {
		version = v
	}
	hdr := []byte(`{"type":"session","version":`)
	hdr = append(hdr, version...)
	hdr = append(hdr, `,"id":`...)
	hdr = append(hdr, jsonString(id)...)
	hdr = append(hdr, `,"timestamp":`...)
	hdr = append(hdr, jsonString(ts)...)
	if cwd, ok := fields["cwd"]; ok && jsonl.ValueKind(cwd) == '"' && jsonl.Valid(cwd) {
		hdr = append(hdr, `,"cwd":`...)
		hdr = append(hdr, cwd...)
	}
	hdr, _ = jsjson.ReplaceInvalidUTF8(append(hdr, '}'))
	return hdr
}

func withoutRule(hs []hit, rule string) []hit {
	var out []hit
	for _, h := range hs {
		if h.rule != rule {
			out = append(out, h)
		}
	}
	return out
}

// insertToolResults runs the two insertion passes of later OpenClaw releases.
func (pl *planner) insertToolResults() {
	if len(pl.cands) == 0 {
		return
	}
	pl.results = make(map[uint64]struct{}, len(pl.resultList))
	for _, h := range pl.resultList {
		pl.results[h] = struct{}{}
	}
	inserted := map[*candidate]bool{}
	for _, c := range pl.cands {
		if !c.codeMode {
			continue
		}
		for _, call := range c.calls {
			if _, ok := pl.results[hashStr(call.id)]; ok {
				continue
			}
			pl.insertAfter(c, RuleCodeModeToolResult, call)
			pl.results[hashStr(call.id)] = struct{}{}
			inserted[c] = true
		}
	}
	for _, c := range pl.cands {
		if !c.mirrorRule || !c.nextIsMirror || inserted[c] {
			continue
		}
		for _, call := range c.calls {
			if trimLower(call.name) != "message" {
				continue
			}
			if _, ok := pl.results[hashStr(call.id)]; ok {
				continue
			}
			pl.insertAfter(c, RuleMirrorToolResult, call)
			pl.results[hashStr(call.id)] = struct{}{}
		}
	}
}

func trimLower(s string) string {
	return string(bytes.ToLower(bytes.TrimFunc([]byte(s), jsjson.IsSpace)))
}

func (pl *planner) insertAfter(c *candidate, rule string, call toolCall) {
	now := pl.opts.now().UTC()
	name := "unknown"
	if call.hasName {
		name = call.name
	}
	var b bytes.Buffer
	b.WriteString(`{"type":"message","id":`)
	b.Write(jsonString("repair-" + pl.opts.newID()))
	if c.idOK {
		b.WriteString(`,"parentId":`)
		b.Write(jsonString(c.id))
	}
	b.WriteString(`,"timestamp":`)
	b.Write(jsonString(now.Format("2006-01-02T15:04:05.000Z")))
	b.WriteString(`,"message":{"role":"toolResult","toolCallId":`)
	b.Write(jsonString(call.id))
	b.WriteString(`,"toolName":`)
	b.Write(jsonString(name))
	b.WriteString(`,"content":[{"type":"text","text":"` + SyntheticToolResultText + `"}],"isError":true,"timestamp":`)
	b.WriteString(strconv.FormatInt(now.UnixMilli(), 10))
	b.WriteString(`}}`)
	ed := c.ed
	if c.piece < 0 || ed.keep {
		// an untouched line: one implicit piece, the original
		if len(ed.pieces) == 0 {
			ed.pieces = append(ed.pieces, piece{})
		}
		ed.pieces[0].after = append(ed.pieces[0].after, b.Bytes())
	} else {
		ed.pieces[c.piece].after = append(ed.pieces[c.piece].after, b.Bytes())
	}
	ed.add(rule, 1, "synthetic result for tool call "+strconv.Quote(call.id))
}

// jsonString encodes s as JSON.stringify would (no HTML escaping).
func jsonString(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// progressReader reports the bytes read through it.
type progressReader struct {
	r      io.Reader
	report func(int)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.report(n)
	}
	return n, err
}
