package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"

	"github.com/openclaw-tools/oc/internal/grow"
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/vocab"
)

// Node is what the tree and the context need to know about one entry. The
// entry's bytes stay on disk; Offset and Line find them again. Nodes are kept
// small (one per entry, all in memory, 80 bytes): what only some entry types
// carry is in Extra, shared between entries with equal values, and the id and
// parentId are kept as their texts and kinds (see ID, ParentID).
type Node struct {
	Line   int64
	Offset int64
	Type   string // "" when the type is missing or not a string
	// idText and parentText are the texts of the Keys ID and ParentID
	// return, whose kinds are in keyKinds (the id's in the low four bits)
	idText, parentText string
	// Extra holds the settings of assistant messages, model and thinking
	// changes and compactions, and a message's role when it is none of
	// OpenClaw's; nil for other entries.
	Extra *NodeExtra
	// FileIndex is the entry's position among all parsed lines (the header is 0),
	// which version-1 compactions refer to by firstKeptEntryIndex.
	FileIndex int32
	keyKinds  uint8
	role      roleCode
	// SummaryTruthy: a branch_summary whose summary is a non-empty value.
	SummaryTruthy bool
	// NotObject: the line is valid JSON but not an object (a string, number, array...).
	NotObject bool
}

// ID is the entry's id.
func (n *Node) ID() Key { return Key{kind: keyKind(n.keyKinds & 0xf), text: n.idText} }

// ParentID is the entry's parentId.
func (n *Node) ParentID() Key { return Key{kind: keyKind(n.keyKinds >> 4), text: n.parentText} }

// setKeys sets the entry's id and parentId.
func (n *Node) setKeys(id, parent Key) {
	n.idText, n.parentText = id.text, parent.text
	n.keyKinds = uint8(id.kind) | uint8(parent.kind)<<4
}

// Role is a message entry's role ("" otherwise).
func (n *Node) Role() string {
	if n.role == roleOther {
		return n.Extra.Role
	}
	return n.role.name()
}

// roleCode is a Node's role: one of OpenClaw's, or roleOther (the role is
// in the node's Extra).
type roleCode uint8

const (
	roleNone roleCode = iota // "": not a message, or no string role
	roleUser
	roleAssistant
	roleToolResult
	roleCustom
	roleBashExecution
	roleBranchSummary
	roleCompactionSummary
	roleOther
)

// name is the role c stands for ("" for roleNone and roleOther).
func (c roleCode) name() string {
	switch c {
	case roleUser:
		return RoleUser
	case roleAssistant:
		return RoleAssistant
	case roleToolResult:
		return RoleToolResult
	case roleCustom:
		return RoleCustom
	case roleBashExecution:
		return RoleBashExecution
	case roleBranchSummary:
		return RoleBranchSummary
	case roleCompactionSummary:
		return RoleCompactionSummary
	}
	return ""
}

// roleCodeOf is role's code (roleOther for a role none of OpenClaw's).
func roleCodeOf(role string) roleCode {
	switch role {
	case "":
		return roleNone
	case RoleUser:
		return roleUser
	case RoleAssistant:
		return roleAssistant
	case RoleToolResult:
		return roleToolResult
	case RoleCustom:
		return roleCustom
	case RoleBashExecution:
		return roleBashExecution
	case RoleBranchSummary:
		return roleBranchSummary
	case RoleCompactionSummary:
		return roleCompactionSummary
	}
	return roleOther
}

// NodeExtra is what the context needs from a few entry types: the raw JSON
// of provider / model(Id) / thinkingLevel (passed on as OpenClaw passes them)
// and a compaction's firstKeptEntryId (or v1 firstKeptEntryIndex, -1: none);
// and a message's role when it is none of OpenClaw's.
type NodeExtra struct {
	ProviderRaw, ModelRaw, ThinkingLevelRaw []byte
	FirstKept                               Key
	FirstKeptIndex                          int
	Role                                    string
}

// Header is a transcript's first parsed line, when it is a session header.
type Header struct {
	Line      int64           `json:"line"`
	ID        string          `json:"id"`
	Version   json.Number     `json:"version,omitempty"`
	Timestamp string          `json:"timestamp,omitempty"`
	Cwd       string          `json:"cwd,omitempty"`
	Raw       json.RawMessage `json:"-"`
	version   float64
}

// Index is the result of one streaming pass over a transcript: the tree's
// skeleton, the header and which lines are malformed or blank.
type Index struct {
	Header *Header
	// FirstParsedLine is the line of the first line that parses (0: none does).
	FirstParsedLine int64
	// HeaderInvalid: some line parses, but the first that does is not a valid
	// session header, so OpenClaw ignores the whole file.
	HeaderInvalid  bool
	Nodes          []Node
	Malformed      []int64 // lines JSON.parse rejects
	Blank          int64
	Lines          int64
	Bytes          int64
	InvalidUTF8    []int64 // lines that parse but hold invalid UTF-8 (read as U+FFFD)
	CRLF           int64
	NoFinalNewline bool
	BOM            bool
	LongestLine    int64
}

// Observer sees every parsed entry of a scan. line is its line number, raw
// the entry line's bytes (valid only during the call); e is its lenient
// decoding.
type Observer interface {
	Entry(n *Node, line int64, raw []byte, e *rawEntry)
}

// ScanOptions tune Scan.
type ScanOptions struct {
	Observer Observer
	// SizeHint is the input's size in bytes when known (else 0): the index
	// starts with room for an entry per KiB instead of growing from none,
	// and an input of a megabyte or more is parsed on every CPU.
	SizeHint int64
	// poison (tests): each line is overwritten once it was indexed and
	// observed (see jsonl.ParseOptions.Poison).
	poison bool
	// analyze: message entries are analysed where they are parsed (with
	// seed), for the analyzer observing the scan.
	analyze bool
	seed    maphash.Seed
}

// ErrNotTranscript is returned (wrapped) when no line of the input parses.
var ErrNotTranscript = errors.New("not an OpenClaw transcript")

// LineError is an error tied to a line of a file.
type LineError struct {
	Path string
	Line int64
	Err  error
}

func (e *LineError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

var bom = []byte{0xef, 0xbb, 0xbf}

// Scan reads a transcript once, line by line, and builds its Index. It never
// holds more than a few batches of lines in memory besides the index itself:
// each line is validated and decoded in one pass (jsjson.Tape), on every CPU
// for a large input, then indexed and observed in order.
func Scan(r io.Reader, opts ScanOptions) (*Index, error) {
	return scanWith[struct{}](r, opts, nil)
}

// riderLine is a line's parse and its rider's.
type riderLine[V any] struct {
	p parsedLine
	v V
}

// scanWith is Scan that also feeds rider (when not nil) every line.
func scanWith[V any](r io.Reader, opts ScanOptions, rider Rider[V]) (*Index, error) {
	sx := newScanner(opts)
	hint := opts.SizeHint
	if hint <= 0 {
		hint = -1
	}
	newParse := func() func(jsonl.Line, *riderLine[V]) {
		parse := newLineParser(opts)
		return func(ln jsonl.Line, l *riderLine[V]) {
			valid := parse.parse(ln, &l.p)
			if rider != nil {
				rider.Parse(ln, parse.tp, valid, &l.v) // the tape holds ln when valid
			}
		}
	}
	err := jsonl.ParseLines(r, jsonl.ParseOptions{SizeHint: hint, Poison: opts.poison}, newParse,
		func(ln jsonl.Line, l *riderLine[V]) {
			sx.line(ln, &l.p)
			if rider != nil {
				rider.Line(ln, &l.v)
			}
		})
	return sx.finish(err)
}

// scanBytes is Scan of a transcript held in memory, on the calling
// goroutine: the lines the observer sees point into data.
func scanBytes(data []byte, opts ScanOptions) (*Index, error) {
	sx := newScanner(opts)
	lp := newLineParser(opts)
	var p parsedLine
	jsonl.Lines(data, func(ln jsonl.Line) bool {
		lp.parse(ln, &p)
		sx.line(ln, &p)
		return true
	})
	return sx.finish(nil)
}

// parsedLine is what the parallel stage makes of one line.
type parsedLine struct {
	blank   bool
	valid   bool // JSON.parse accepts the line
	badUTF8 bool
	// skip: the line starts with this many bytes of JavaScript white space
	// that JSON does not allow (a BOM, NBSP, ...); trimmedValid: the line
	// parses without them (OpenClaw trims the whole file, so this counts
	// before the first entry)
	skip         int
	trimmedValid bool
	object       bool
	e            rawEntry // the decoded fields (of the trimmed line when only it parses)
	// id and parent are the entry's id and parentId as Keys, and extra its
	// shared NodeExtra (assistant messages, model and thinking changes):
	// made where the line is parsed, while its bytes are in that CPU's
	// cache, so that the ordered stage does not read them again.
	id, parent Key
	extra      *NodeExtra
}

// lineParser validates and decodes lines into parsedLines (and analyses
// message entries, when its options ask), reusing its tape.
type lineParser struct {
	opts ScanOptions
	tp   *jsjson.Tape
	in   interner
	// lastID and extras share the strings of ids and the NodeExtras of
	// the lines this parser parsed (a batch's lines are consecutive)
	lastID lastKey
	extras extraSet
}

func newLineParser(opts ScanOptions) *lineParser {
	return &lineParser{opts: opts, tp: &jsjson.Tape{MaxDepth: 4}, in: interner{}, // entry, message, content, block, member
		extras: extraSet{byKey: map[string]*NodeExtra{}}}
}

// parse fills p from ln; it reports whether ln as it is parses (and so the
// tape holds it).
func (lp *lineParser) parse(ln jsonl.Line, p *parsedLine) bool {
	data, tp := ln.Data, lp.tp
	p.blank, p.valid, p.badUTF8, p.skip, p.trimmedValid, p.object = false, false, false, 0, false, false
	if jsonl.IsBlank(data) {
		p.blank = true
		return false
	}
	if len(data) > 0 && data[0] != '{' {
		p.skip = len(data) - len(jsonl.TrimJSLeft(data))
	}
	switch {
	case tp.Parse(data):
		p.valid = true
	case p.skip > 0 && tp.Parse(data[p.skip:]):
		p.trimmedValid = true
		data = data[p.skip:]
	default:
		return false
	}
	p.badUTF8 = tp.BadUTF8
	p.object = p.e.fromTape(data, tp)
	p.e.decodeNames(lp.in)
	p.parent = lp.lastID.parent(p.e.ParentID)
	p.id = lp.lastID.id(p.e.ID)
	p.extra = sharedExtra(&p.e, &lp.extras)
	if lp.opts.analyze && p.object && jsonl.StringIs(p.e.Type, TypeMessage) {
		analyzeMessage(&p.e, ln.Num, lp.in, lp.opts.seed)
	}
	return p.valid
}

// scanner indexes the lines of one scan in order.
type scanner struct {
	opts   ScanOptions
	ix     *Index
	parsed int
}

func newScanner(opts ScanOptions) *scanner {
	ix := &Index{}
	if opts.SizeHint > 0 {
		ix.Nodes = make([]Node, 0, nodesFor(opts.SizeHint))
	}
	return &scanner{opts: opts, ix: ix}
}

// nodesFor is about how many entries a transcript of size bytes holds (a
// kilobyte each: what is made room for before the scan; at most a million).
func nodesFor(size int64) int { return int(min(size/1024, 1<<20)) }

func (sx *scanner) finish(err error) (*Index, error) {
	if err != nil {
		return sx.ix, err
	}
	if sx.ix.FirstParsedLine == 0 {
		return sx.ix, ErrNotTranscript
	}
	return sx.ix, nil
}

// line indexes one line, which p is the parse of.
func (sx *scanner) line(line jsonl.Line, p *parsedLine) {
	ix, opts := sx.ix, sx.opts
	ix.Lines = line.Num
	ix.Bytes = line.Offset + line.Len()
	if int64(len(line.Data)) > ix.LongestLine {
		ix.LongestLine = int64(len(line.Data))
	}
	if line.Term == jsonl.TermCRLF {
		ix.CRLF++
	}
	ix.NoFinalNewline = line.Term == jsonl.TermNone
	data := line.Data
	if line.Num == 1 && bytes.HasPrefix(data, bom) {
		ix.BOM = true
	}
	if p.blank {
		ix.Blank++
		return
	}
	valid := p.valid
	if ix.FirstParsedLine == 0 && len(ix.Malformed) == 0 {
		// OpenClaw trims the whole file (String.prototype.trim) before
		// it splits it into lines: JavaScript white space before the
		// first entry (BOMs, NBSP, VT, U+2028, U+3000, ...) goes.
		data = data[p.skip:]
		valid = valid || p.trimmedValid
	} else if !p.valid {
		valid = false
	}
	if !valid {
		ix.Malformed = append(ix.Malformed, line.Num)
		return
	}
	if p.badUTF8 {
		ix.InvalidUTF8 = append(ix.InvalidUTF8, line.Num)
	}
	e := &p.e
	n := Node{Line: line.Num, Offset: line.Offset, NotObject: !p.object}
	first := ix.FirstParsedLine == 0
	n.FileIndex = int32(sx.parsed)
	sx.parsed++
	if first {
		ix.FirstParsedLine = line.Num
	}
	typ := e.typ
	n.Type = typ
	if first {
		id, idOK := str(e.ID)
		if !n.NotObject && typ == TypeSession && idOK {
			h := &Header{Line: line.Num, ID: id, Raw: append([]byte(nil), data...), version: jsNumber(e.Version, 1)}
			h.Timestamp, _ = str(e.Timestamp)
			h.Cwd, _ = str(e.Cwd)
			if v := jsonl.TrimSpace(e.Version); len(v) > 0 && v[0] != '"' && v[0] != 'n' {
				h.Version = json.Number(v)
			}
			ix.Header = h
			if opts.Observer != nil {
				opts.Observer.Entry(nil, line.Num, data, e)
			}
			return
		}
		ix.HeaderInvalid = true
	}
	if typ == TypeSession {
		// Later session lines are not entries (pi's index skips them).
		if opts.Observer != nil {
			opts.Observer.Entry(nil, line.Num, data, e)
		}
		return
	}
	fillNode(&n, p)
	ix.Nodes = append(grow.Cap(ix.Nodes, len(ix.Nodes)+1, 256), n)
	if opts.Observer != nil {
		opts.Observer.Entry(&ix.Nodes[len(ix.Nodes)-1], line.Num, data, e)
	}
}

// fillNode completes n from its line's parse.
func fillNode(n *Node, p *parsedLine) {
	e := &p.e
	n.setKeys(p.id, p.parent)
	n.Extra = p.extra
	switch n.Type {
	case TypeMessage:
		n.role = e.roleCode
	case TypeCompaction:
		x := &NodeExtra{FirstKept: keyOf(e.FirstKeptEntryID), FirstKeptIndex: -1}
		if idx := jsonl.TrimSpace(e.FirstKeptIndex); len(idx) > 0 && idx[0] >= '0' && idx[0] <= '9' {
			if f := jsNumber(idx, -1); f >= 0 && f == float64(int(f)) {
				x.FirstKeptIndex = int(f)
			}
		}
		n.Extra = x
	case TypeBranchSummary:
		n.SummaryTruthy = jsTruthy(e.Summary)
	}
}

// sharedExtra is the NodeExtra of an entry whose settings the context reads
// (an assistant message's provider and model, a model or thinking level
// change) or of a message whose role is none of OpenClaw's (the role), one
// shared by every entry with equal values; nil for others.
func sharedExtra(e *rawEntry, extras *extraSet) *NodeExtra {
	switch e.typ {
	case TypeMessage:
		if e.role == RoleAssistant {
			m := e.messageMembers()
			return extras.shared(NodeExtra{ProviderRaw: m.Provider, ModelRaw: m.Model, FirstKeptIndex: -1})
		}
		if e.roleCode == roleOther {
			return extras.shared(NodeExtra{Role: e.role, FirstKeptIndex: -1})
		}
	case TypeModelChange:
		return extras.shared(NodeExtra{ProviderRaw: e.Provider, ModelRaw: e.ModelID, FirstKeptIndex: -1})
	case TypeThinkingLevelChange:
		return extras.shared(NodeExtra{ThinkingLevelRaw: e.ThinkingLevel, FirstKeptIndex: -1})
	}
	return nil
}

// lastKey remembers the last entry's id: the next entry's parentId is
// usually that id, and takes its decoded string instead of a new one.
type lastKey struct {
	raw []byte // the id's trimmed literal (a copy: the line is read over)
	key Key
}

// id is keyOf(raw), remembered.
func (lk *lastKey) id(raw []byte) Key {
	k := keyOf(raw)
	lk.raw, lk.key = append(lk.raw[:0], jsonl.TrimSpace(raw)...), k
	return k
}

// parent is keyOf(raw), the last id's Key when raw is the same literal.
func (lk *lastKey) parent(raw []byte) Key {
	if t := jsonl.TrimSpace(raw); len(t) > 0 && bytes.Equal(t, lk.raw) {
		return lk.key
	}
	return keyOf(raw)
}

// extraSet holds one NodeExtra per distinct provider, model and thinking
// level, so that the nodes of a long session share a few (a few copies
// each: every parser keeps a set of its own).
type extraSet struct {
	byKey map[string]*NodeExtra
	last  *NodeExtra // the one returned last: turn after turn, the same model
}

// shared returns the one NodeExtra equal to x (its raw values copied the
// first time they are seen).
func (xs *extraSet) shared(x NodeExtra) *NodeExtra {
	p, m, t := jsonl.TrimSpace(x.ProviderRaw), jsonl.TrimSpace(x.ModelRaw), jsonl.TrimSpace(x.ThinkingLevelRaw)
	if l := xs.last; l != nil && bytes.Equal(l.ProviderRaw, p) && bytes.Equal(l.ModelRaw, m) && bytes.Equal(l.ThinkingLevelRaw, t) && l.Role == x.Role {
		return l
	}
	// a literal holds no raw NUL: the key is unambiguous up to the role,
	// which comes last (and may hold one)
	key := string(p) + "\x00" + string(m) + "\x00" + string(t) + "\x00" + x.Role
	shared, ok := xs.byKey[key]
	if !ok {
		shared = &NodeExtra{ProviderRaw: cloneRaw(p), ModelRaw: cloneRaw(m), ThinkingLevelRaw: cloneRaw(t), FirstKeptIndex: -1, Role: x.Role}
		xs.byKey[key] = shared
	}
	xs.last = shared
	return shared
}

// intern decodes a JSON string, returning the constant for a name OpenClaw
// writes (knownName) so that it is not allocated per entry.
func intern(raw []byte) string {
	raw = jsonl.TrimSpace(raw)
	if len(raw) >= 2 && raw[0] == '"' {
		if s, ok := knownName(raw[1 : len(raw)-1]); ok {
			return s
		}
	}
	s, _ := str(raw)
	return s
}

// knownName returns the constant string equal to inner, the text of a JSON
// string literal without escapes, when it is one of the names OpenClaw
// writes in every entry (entry types, roles, content block types, stop
// reasons, pi-ai's API names): these need neither an allocation nor an
// interner's hash.
func knownName(inner []byte) (string, bool) {
	switch string(inner) {
	case TypeMessage:
		return TypeMessage, true
	case RoleUser:
		return RoleUser, true
	case RoleAssistant:
		return RoleAssistant, true
	case RoleToolResult:
		return RoleToolResult, true
	case TypeCustomMessage:
		return TypeCustomMessage, true
	case TypeCustom:
		return TypeCustom, true
	case TypeCompaction:
		return TypeCompaction, true
	case TypeModelChange:
		return TypeModelChange, true
	case TypeThinkingLevelChange:
		return TypeThinkingLevelChange, true
	case TypeSession:
		return TypeSession, true
	case "text":
		return "text", true
	case "thinking":
		return "thinking", true
	case "redacted_thinking":
		return "redacted_thinking", true
	case vocab.BlockToolCall:
		return vocab.BlockToolCall, true
	case "toolUse":
		return "toolUse", true
	case "functionCall":
		return "functionCall", true
	case "image":
		return "image", true
	case "stop":
		return "stop", true
	case "length":
		return "length", true
	case "error":
		return "error", true
	case "aborted":
		return "aborted", true
	case "anthropic-messages":
		return "anthropic-messages", true
	case "openai-completions":
		return "openai-completions", true
	case "openai-responses":
		return "openai-responses", true
	case "openai-codex-responses":
		return "openai-codex-responses", true
	case "azure-openai-responses":
		return "azure-openai-responses", true
	case "bedrock-converse-stream":
		return "bedrock-converse-stream", true
	case "google-generative-ai":
		return "google-generative-ai", true
	case "google-gemini-cli":
		return "google-gemini-cli", true
	case "google-vertex":
		return "google-vertex", true
	}
	return "", false
}

// jsTruthy is JavaScript truthiness of a JSON value.
func jsTruthy(raw json.RawMessage) bool {
	raw = jsonl.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return false
	case string(raw) == "null", string(raw) == "false", string(raw) == `""`:
		return false
	case raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'):
		f := jsNumber(raw, 0)
		return f != 0 && f == f
	}
	return true
}

func cloneRaw(raw json.RawMessage) []byte {
	raw = jsonl.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	return append([]byte(nil), raw...)
}

// atFile names the file in err: a LineError gets the path, anything else is
// wrapped in one (with the line number if the reader reported one).
func atFile(path string, err error) error {
	var le *LineError
	if errors.As(err, &le) && le.Path == "" {
		return &LineError{Path: path, Line: le.Line, Err: le.Err}
	}
	var je *jsonl.LineError
	if errors.As(err, &je) {
		return &LineError{Path: path, Line: je.Line, Err: je.Err}
	}
	return &LineError{Path: path, Err: err}
}
