package transcript

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/openclaw-tools/oc/internal/grow"
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/vocab"
)

// Severity of a finding.
const (
	SevError   = "error"   // OpenClaw loses data or every request fails
	SevWarning = "warning" // something is wrong; some provider or reader is affected
	SevInfo    = "info"    // worth knowing; OpenClaw copes with it
)

// IsOwnershipRule reports whether a finding rule is a transcript-ownership
// problem (contract §3): a message shown twice, delivery-mirror or System:
// awareness copies, two adjacent assistant turns.
func IsOwnershipRule(rule string) bool {
	switch rule {
	case "duplicate-message", "delivery-mirror-copy", "system-awareness-copy", "adjacent-assistant-turns":
		return true
	}
	return false
}

// Finding is one problem found in a transcript.
type Finding struct {
	Rule     string `json:"rule"`
	Line     int64  `json:"line,omitempty"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// ToolCallStats pairs tool calls with their results across the file.
type ToolCallStats struct {
	Total         int `json:"total"`
	Paired        int `json:"paired"`
	MissingResult int `json:"missingResult"`
	OrphanResults int `json:"orphanResults"`
	DuplicateIDs  int `json:"duplicateIds"`
}

// ThinkingStats counts thinking blocks.
type ThinkingStats struct {
	Blocks   int `json:"blocks"`
	Signed   int `json:"signed"`
	Redacted int `json:"redacted"`
}

// ImageStats counts inline images.
type ImageStats struct {
	Count int   `json:"count"`
	Bytes int64 `json:"bytes"` // decoded size of their base64 data
}

// BranchStats describes the tree.
type BranchStats struct {
	Roots  int `json:"roots"`
	Leaves int `json:"leaves"`
	Forks  int `json:"forks"` // entries with more than one child
}

// ActiveBranch is the path from the last entry to the root.
type ActiveBranch struct {
	Leaf     string `json:"leaf"`
	LeafLine int64  `json:"leafLine,omitempty"`
	Entries  int    `json:"entries"`
	Messages int    `json:"messages"` // what OpenClaw's context holds
	// ContextBytes is about how many bytes of the file the context's
	// entries take (the lines they are on, and any blank or damaged lines
	// between them and the next entry): what a replay of it holds in memory.
	ContextBytes int64 `json:"-"`
}

// Summary is everything `oc inspect` reports about one transcript.
type Summary struct {
	Path string `json:"path"`
	// Era is the storage era of the session ("jsonl" or "sqlite"), Store
	// the file or database that holds it, Database the agent database of
	// a SQLite session ("" for a JSONL file): the same fields in both eras.
	Era         string         `json:"era,omitempty"`
	Key         string         `json:"key,omitempty"` // the session key an index names it by
	Store       string         `json:"store,omitempty"`
	Database    string         `json:"database,omitempty"`
	Agent       string         `json:"agent,omitempty"`
	Kind        FileKind       `json:"kind,omitempty"`
	Archive     string         `json:"archive,omitempty"`
	Compression string         `json:"compression"`
	Size        int64          `json:"size"`
	Header      *Header        `json:"header"`
	Lines       int64          `json:"lines"`
	BlankLines  int64          `json:"blankLines"`
	Entries     int            `json:"entries"`
	ByType      map[string]int `json:"byType"`
	ByRole      map[string]int `json:"byRole"`
	Providers   map[string]int `json:"providers"`
	Models      map[string]int `json:"models"`
	APIs        map[string]int `json:"apis"`
	ToolCalls   ToolCallStats  `json:"toolCalls"`
	Thinking    ThinkingStats  `json:"thinking"`
	Images      ImageStats     `json:"images"`
	Compactions int            `json:"compactions"`
	Errors      int            `json:"errors"`  // assistant turns that ended in an error
	Aborted     int            `json:"aborted"` // assistant turns that were aborted
	Branches    BranchStats    `json:"branches"`
	Active      ActiveBranch   `json:"activeBranch"`
	Malformed   []int64        `json:"malformedLines"`
	Findings    []Finding      `json:"findings"`

	// context is where the active branch's messages are, as the analysis
	// found it (nil for a summary of a stream); Inspect drops it once the
	// file's findings are made.
	context *contextLines
}

// Context builds the context of the transcript at s.Path, as LoadContext
// does, from the lines the analysis found the active branch's messages on:
// it reads the file up to the last of them again, without indexing it
// again. A file whose size changed since (a writer appended, a repair
// replaced it) is read afresh by LoadContext. A summary of stdin has no
// path to read: it fails.
func (s *Summary) Context() (*Context, error) {
	if s.Path == "" || s.Path == "-" {
		return nil, errors.New("a transcript read from stdin cannot be read again for its context")
	}
	if st, err := os.Stat(s.Path); s.context == nil || err != nil || st.Size() != s.Size {
		return LoadContext(s.Path, nil)
	}
	ctx, err := s.context.read(func() (io.ReadCloser, error) { return jsonl.Open(s.Path, nil) })
	if err != nil {
		return nil, atFile(s.Path, err)
	}
	return ctx, nil
}

// Counts of findings by severity.
func (s *Summary) Counts() (errors, warnings, infos int) {
	for _, f := range s.Findings {
		switch f.Severity {
		case SevError:
			errors++
		case SevWarning:
			warnings++
		default:
			infos++
		}
	}
	return
}

// AddFindings merges more findings into the summary, keeping them ordered by line.
func (s *Summary) AddFindings(fs []Finding) {
	if len(fs) == 0 {
		return
	}
	s.Findings = append(s.Findings, fs...)
	sort.SliceStable(s.Findings, func(i, j int) bool { return s.Findings[i].Line < s.Findings[j].Line })
}

// AnalyzeFile inspects one transcript (plain, .gz, .zst or "-" for stdin).
func AnalyzeFile(f File, stdin io.Reader) (*Summary, error) {
	return AnalyzeFileWith[struct{}](f, stdin, nil, nil)
}

// A Rider is fed the lines of a transcript AnalyzeFileWith reads, so that an
// analysis of its own (repair's plan, for inspect) costs no second read and
// no second parse of the file. V is what its Parse makes of a line.
type Rider[V any] interface {
	// Parse runs where the lines are parsed (on every CPU, concurrently:
	// it must not change shared state). When valid, tp holds ln's parse
	// (jsjson.Tape, MaxDepth 4).
	Parse(ln jsonl.Line, tp *jsjson.Tape, valid bool, v *V)
	// Line runs in order, after the analysis took the line. ln and v are
	// reused once it returns: it copies what it keeps.
	Line(ln jsonl.Line, v *V)
}

// AnalyzeFileWith is AnalyzeFile that also feeds rider (nil: none) every
// line, in one read of the file; progress, when set, is told the bytes read
// (compressed ones for a compressed file: they add up to its size).
func AnalyzeFileWith[V any](f File, stdin io.Reader, progress func(int), rider Rider[V]) (*Summary, error) {
	src, err := jsonl.OpenProgress(f.Path, stdin, progress)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	// Stdin has no size on disk: count the bytes as they are read.
	var r io.Reader = src
	counted := &countingReader{r: src}
	if src.Size < 0 {
		r = counted
	}
	hint := src.Size
	if src.Compression != jsonl.Plain {
		hint = -1 // the decompressed size is not known
	}
	a := newAnalyzer()
	ix, err := scanWith(r, a.scanOptions(hint), rider)
	s, err := a.result(ix, err)
	if err != nil {
		return nil, atFile(src.Name, err)
	}
	s.Path, s.Agent, s.Kind, s.Archive = f.Path, f.Agent, f.Kind, f.Archive
	s.Compression = src.Compression.String()
	s.Size = src.Size
	if s.Size < 0 {
		s.Size = counted.n
	}
	return s, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Analyze reads a transcript stream once and summarises it.
func Analyze(r io.Reader) (*Summary, error) {
	a := newAnalyzer()
	ix, err := Scan(r, a.scanOptions(-1))
	return a.result(ix, err)
}

func (a *analyzer) result(ix *Index, err error) (*Summary, error) {
	if err != nil {
		if err == ErrNotTranscript {
			if ix.Lines == 0 || ix.Blank == ix.Lines {
				return nil, fmt.Errorf("empty file: %w", ErrNotTranscript)
			}
			first := int64(1)
			if len(ix.Malformed) > 0 {
				first = ix.Malformed[0]
			}
			return nil, &LineError{Line: first, Err: fmt.Errorf("%w: no line parses as JSON", ErrNotTranscript)}
		}
		return nil, err
	}
	return a.finish(ix), nil
}

type analyzer struct {
	s *Summary
	// uses are the tool call ids' calls and results, each id's at the
	// index useOf holds (one map for both: a call and its result cost a
	// lookup each, and the pairing none)
	uses  []callUse
	useOf map[string]int32
	// the counts of the summary's maps, as lines come
	byType, byRole, providers, models, apis tally
	findings                                []Finding
	// msgs, by a node's FileIndex: what the ownership rules need of each
	// message (a slice, not maps keyed by line: one entry per message, no
	// hashing on the hot path).
	msgs []messageMark
	seed maphash.Seed
	each func(*LineMembers) // AnalyzeBytesEach's callback, or nil
	lm   LineMembers
	strs interner // short strings decoded before (types, roles, models)
}

// scanOptions are the options of a scan a observes: a's message analysis
// runs where the lines are parsed.
func (a *analyzer) scanOptions(sizeHint int64) ScanOptions {
	if sizeHint > 0 && a.msgs == nil {
		// a mark per entry, as the index sizes its nodes (newScanner), and
		// about a tool call id every four entries
		a.msgs = make([]messageMark, 0, nodesFor(sizeHint))
		a.useOf = make(map[string]int32, nodesFor(sizeHint)/4)
		a.uses = make([]callUse, 0, nodesFor(sizeHint)/4)
	}
	return ScanOptions{Observer: a, SizeHint: sizeHint, analyze: true, seed: a.seed}
}

func newAnalyzer() *analyzer {
	return &analyzer{
		s:     &Summary{ByType: map[string]int{}, ByRole: map[string]int{}, Providers: map[string]int{}, Models: map[string]int{}, APIs: map[string]int{}},
		useOf: map[string]int32{},
		seed:  maphash.MakeSeed(), strs: interner{},
	}
}

// messageMark is what the ownership rules need of one message entry.
type messageMark struct {
	hash      uint64 // content and role
	hashed    bool   // a message with a role: hash is set
	mirror    bool   // a transcript-only delivery-mirror / gateway-injected assistant row
	awareness bool   // a user message whose text starts "System: ["
}

// mark returns node n's messageMark to fill in.
func (a *analyzer) mark(n *Node) *messageMark {
	i := int(n.FileIndex)
	if i >= len(a.msgs) {
		a.msgs = grow.Cap(a.msgs, i+1, 256)[:i+1] // the room past len is zero: msgs only grow
	}
	return &a.msgs[i]
}

// markOf returns node n's messageMark (the zero mark when it has none).
func (a *analyzer) markOf(n *Node) messageMark {
	if i := int(n.FileIndex); i < len(a.msgs) {
		return a.msgs[i]
	}
	return messageMark{}
}

func (a *analyzer) add(rule string, line int64, sev, format string, args ...any) {
	a.findings = append(a.findings, Finding{Rule: rule, Line: line, Severity: sev, Message: fmt.Sprintf(format, args...)})
}

// Entry implements Observer. n is nil for header lines.
func (a *analyzer) Entry(n *Node, line int64, raw []byte, e *rawEntry) {
	if a.each == nil {
		a.entry(n, e)
		return
	}
	a.lm = LineMembers{Line: line, Object: n == nil || !n.NotObject}
	a.entry(n, e)
	a.lm.setTop(e)
	a.each(&a.lm)
}

func (a *analyzer) entry(n *Node, e *rawEntry) {
	s := a.s
	s.Entries++
	typ := "(not an object)"
	if n == nil || !n.NotObject {
		if e.typOK {
			typ = e.typ
		} else {
			typ = "(no type)"
		}
	}
	a.byType.add(typ)
	if n == nil {
		return
	}
	switch n.Type {
	case TypeCompaction:
		s.Compactions++
	case TypeMessage:
		a.message(n, e)
	}
}

// message counts in what analyzeMessage found of a message entry and pairs
// its tool calls with the file's (the part that involves other entries).
func (a *analyzer) message(n *Node, e *rawEntry) {
	s := a.s
	la := &e.analysis
	if !la.done {
		analyzeMessage(e, n.Line, a.strs, a.seed)
	}
	if a.each != nil && !la.noMessage {
		a.lm.setMessage(e.messageMembers())
	}
	if la.noMessage || la.noRole {
		a.byRole.add("(none)")
		a.findings = append(a.findings, la.findings...)
		return
	}
	a.byRole.add(la.role)
	mark := a.mark(n)
	mark.hashed, mark.hash = true, la.hash
	mark.mirror, mark.awareness = la.mirror, la.awareness
	if la.role == RoleAssistant {
		if la.prov != "" {
			a.providers.add(la.prov)
		}
		if la.model != "" {
			a.models.add(la.model)
		}
		if la.api != "" {
			a.apis.add(la.api)
		}
		switch la.stop {
		case "error":
			s.Errors++
		case "aborted":
			s.Aborted++
		}
	}
	if la.result != "" {
		a.use(la.result).results++
	}
	s.Thinking.Blocks += la.thinking.Blocks
	s.Thinking.Signed += la.thinking.Signed
	s.Thinking.Redacted += la.thinking.Redacted
	s.Images.Count += la.images.Count
	s.Images.Bytes += la.images.Bytes
	// the entry's findings, each duplicate tool call id's where the
	// analysis of the entry alone met the call
	done := 0
	for _, c := range la.calls {
		a.findings = append(a.findings, la.findings[done:c.at]...)
		done = c.at
		s.ToolCalls.Total++
		u := a.use(c.id)
		if u.n == 0 {
			u.line = n.Line
		}
		u.n++
		if u.n == 2 {
			a.add("duplicate-tool-call-id", n.Line, SevWarning, "tool call id %s is used again (first on line %d); providers reject duplicate ids", c.id, u.line)
		}
	}
	a.findings = append(a.findings, la.findings[done:]...)
}

// lineAnalysis is what the analyzer finds in one message entry on its own,
// worked out where the line is parsed (on every CPU for a large file): the
// message's strings, its hash for the ownership rules, the counts and
// findings of its blocks, and its tool calls and result, which the ordered
// part pairs across the file.
type lineAnalysis struct {
	done                         bool
	noMessage, noRole            bool // invalid-message, null-role
	role, stop, prov, model, api string
	hash                         uint64 // content and role
	mirror, awareness            bool
	findings                     []Finding
	thinking                     ThinkingStats
	images                       ImageStats
	calls                        []callRef
	result                       string // the tool call id a toolResult answers
}

// use returns the callUse of tool call id id.
func (a *analyzer) use(id string) *callUse {
	i, ok := a.useOf[id]
	if !ok {
		i = int32(len(a.uses))
		a.useOf[id] = i
		a.uses = append(a.uses, callUse{})
	}
	return &a.uses[i]
}

// callUse is how often a tool call id was used by calls, and first on which
// line, and by how many results.
type callUse struct {
	results int
	n       int
	line    int64
}

// tally counts strings that repeat on every line (entry types, roles,
// providers, models): a few distinct ones, found by a look along a short
// list (the same string value, usually the same interned string) before a
// map is needed.
type tally struct {
	few  []tallied
	more map[string]int
}

type tallied struct {
	key string
	n   int
}

func (t *tally) add(k string) {
	for i := range t.few {
		if t.few[i].key == k {
			t.few[i].n++
			return
		}
	}
	if len(t.few) < 16 {
		t.few = append(t.few, tallied{k, 1})
		return
	}
	if t.more == nil {
		t.more = map[string]int{}
	}
	t.more[k]++
}

// into adds the counts to m.
func (t *tally) into(m map[string]int) {
	for _, c := range t.few {
		m[c.key] += c.n
	}
	for k, n := range t.more {
		m[k] += n
	}
}

// callRef is a tool call of an assistant message: its id, and how many of
// the message's findings come before it.
type callRef struct {
	id string
	at int
}

// interner reuses the string of a short value seen before (entry types,
// roles, providers, models and block types repeat on every line).
type interner map[string]string

// nonEmptyString reports whether raw is a JSON string that decodes to a
// non-empty one, as str(raw) != "" does, without making the string: any
// text between its quotes, an escape too, decodes to some character.
func nonEmptyString(raw json.RawMessage) bool {
	raw = jsonl.TrimSpace(raw)
	return len(raw) > 2 && raw[0] == '"'
}

func (in interner) str(raw []byte) (string, bool) {
	t := jsonl.TrimSpace(raw)
	if len(t) < 2 || len(t) > 66 || t[0] != '"' || bytes.IndexByte(t, '\\') >= 0 {
		return str(raw)
	}
	inner := t[1 : len(t)-1]
	if s, ok := knownName(inner); ok {
		return s, true
	}
	if s, ok := in[string(inner)]; ok {
		return s, true
	}
	s := string(inner)
	if len(in) < 512 {
		in[s] = s
	}
	return s, true
}

// analyzeMessage fills e.analysis for the message entry e on line (whose
// strings in reuses; seed hashes the content).
func analyzeMessage(e *rawEntry, line int64, in interner, seed maphash.Seed) {
	la := &e.analysis
	findings, calls := la.findings[:0], la.calls[:0]
	*la = lineAnalysis{done: true}
	add := func(rule, sev, format string, args ...any) {
		findings = append(findings, Finding{Rule: rule, Line: line, Severity: sev, Message: fmt.Sprintf(format, args...)})
	}
	defer func() { la.findings, la.calls = findings, calls }()
	if !isObject(e.Message) {
		la.noMessage = true
		add("invalid-message", SevWarning, "message entry has no message object; OpenClaw's later releases drop it")
		return
	}
	m := e.messageMembers()
	role, ok := in.str(m.Role)
	if !ok || strings.TrimSpace(role) == "" {
		la.noRole = true
		add("null-role", SevWarning, "message has no role (null, missing or blank); OpenClaw after 2026.5.6 drops it, providers reject it")
		return
	}
	la.role = role
	la.hash = maphash.Bytes(seed, jsonl.TrimSpace(m.Content)) ^ maphash.String(seed, role)
	la.stop, _ = in.str(m.StopReason)
	var bl []rawBlock
	switch role {
	case RoleAssistant:
		la.prov, _ = in.str(m.Provider)
		la.model, _ = in.str(m.Model)
		la.api, _ = in.str(m.API)
		la.mirror = la.prov == "openclaw" && (la.model == "delivery-mirror" || la.model == "gateway-injected")
		if string(jsonl.TrimSpace(m.Content)) == "[]" && la.stop == "error" {
			add("empty-assistant-error", SevWarning, "assistant turn failed with no content; Bedrock rejects the next request (oc repair fills in OpenClaw's placeholder text)")
		}
	case RoleUser:
		bl = e.contentBlocks()
		la.awareness = firstUserTextHasPrefix(m.Content, bl, awarenessPrefix)
		if blankUserContent(m.Content, bl) {
			add("blank-user", SevWarning, "user message with blank text; Bedrock rejects it (oc repair writes OpenClaw's \"(continue)\")")
		}
	case RoleToolResult:
		id, ok := str(m.ToolCallID)
		if !ok || id == "" {
			id, _ = str(m.ToolUseID)
		}
		la.result = strings.TrimSpace(id)
	}
	if !isArray(m.Content) {
		return
	}
	if bl == nil {
		bl = e.contentBlocks()
	}
	for _, b := range bl {
		bt, _ := in.str(b.Type)
		switch {
		case bt == "thinking" || bt == "redacted_thinking":
			la.thinking.Blocks++
			if nonEmptyString(b.Signature) {
				la.thinking.Signed++
			}
			if bt == "redacted_thinking" || isTrue(b.Redacted) {
				la.thinking.Redacted++
			}
		case bt == "image":
			la.images.Count++
			data, ok := str(b.Data)
			if !ok {
				continue
			}
			la.images.Bytes += int64(base64.StdEncoding.DecodedLen(len(data)))
			mime, _ := str(b.MimeType)
			if mime != "" && !strings.HasPrefix(strings.ToLower(mime), "image/") {
				continue
			}
			if !isBase64(data) {
				add("corrupted-image", SevWarning, "image data is not valid base64 (%d bytes); providers reject it (\"invalid base64 data\")", len(data))
			}
		case vocab.IsToolCallBlock(bt) && role == RoleAssistant:
			id, _ := str(b.ID)
			name, _ := str(b.Name)
			if len(jsonl.TrimSpace(b.PartialJSON)) > 0 {
				add("partial-tool-call", SevWarning, "tool call %q was cut off mid-stream (partialJson); replay drops it", name)
			}
			if strings.TrimSpace(id) == "" {
				add("tool-call-without-id", SevWarning, "tool call %q has no id; OpenAI rejects an empty call_id (replay drops the call)", name)
				continue
			}
			if tn := strings.TrimSpace(name); tn == "" || len(tn) > 64 || !isToolName(tn) {
				add("invalid-tool-name", SevWarning, "tool call %s has an invalid name %q; replay drops the call", id, name)
			}
			calls = append(calls, callRef{id: id, at: len(findings)})
		}
	}
}

// blankUserContent: the content (string, or blocks, its decoded blocks) is
// blank text.
func blankUserContent(raw json.RawMessage, blocks []rawBlock) bool {
	raw = jsonl.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		return blankStr(raw)
	}
	if raw[0] != '[' {
		return false
	}
	for _, b := range blocks {
		if jsonl.StringIs(jsonl.TrimSpace(b.Type), "text") && blankStr(b.Text) {
			return true
		}
	}
	return len(blocks) == 0
}

// blankStr is strings.TrimSpace(str(raw)) == "" without copying the text
// when it holds no escape.
func blankStr(raw []byte) bool {
	raw = jsonl.TrimSpace(raw)
	if len(raw) >= 2 && raw[0] == '"' {
		if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 {
			return len(jsonl.TrimSpace(inner)) == 0
		}
	}
	s, _ := str(raw)
	return strings.TrimSpace(s) == ""
}

func (a *analyzer) finish(ix *Index) *Summary {
	s := a.s
	a.byType.into(s.ByType)
	a.byRole.into(s.ByRole)
	a.providers.into(s.Providers)
	a.models.into(s.Models)
	a.apis.into(s.APIs)
	s.Header = ix.Header
	s.Lines = ix.Lines
	s.BlankLines = ix.Blank
	s.Malformed = ix.Malformed
	if s.Malformed == nil {
		s.Malformed = []int64{}
	}
	for _, l := range ix.Malformed {
		a.add("malformed-line", l, SevError, "line is not valid JSON; OpenClaw skips it (oc repair salvages what it can and quarantines the rest)")
	}
	if ix.HeaderInvalid {
		a.add("invalid-header", ix.FirstParsedLine, SevError, "the first JSON line is not a session header: OpenClaw will start this session over and its history is lost on the next write; run `oc repair` before the gateway opens it")
	} else if ix.Header != nil && ix.Header.Line != 1 {
		a.add("header-not-first", ix.Header.Line, SevWarning, "session header is on line %d, after unparseable lines", ix.Header.Line)
	}
	if ix.BOM {
		a.add("byte-order-mark", 1, SevInfo, "file starts with a UTF-8 byte-order mark")
	}
	for _, l := range ix.InvalidUTF8 {
		a.add("invalid-utf8", l, SevInfo, "line holds bytes that are not UTF-8; OpenClaw reads them as U+FFFD")
	}
	if ix.CRLF > 0 {
		a.add("crlf-line-endings", 0, SevInfo, "%d %s in CRLF (OpenClaw reads CRLF, writes LF)", ix.CRLF, pluralWord(int(min(ix.CRLF, 2)), "line ends", "lines end"))
	}
	if ix.NoFinalNewline && len(ix.Malformed) > 0 && ix.Malformed[len(ix.Malformed)-1] == ix.Lines {
		a.add("truncated-tail", ix.Lines, SevError, "the last line is cut off (a crash during a write)")
	}

	t := NewTree(ix)
	if t.Migrated {
		a.add("old-format", ix.Header.Line, SevInfo, "transcript version %v is older than 3; OpenClaw migrates (rewrites) it when it opens it", ix.Header.Version)
	}
	a.treeFindings(ix, t)
	a.pairing()

	s.Branches.Roots, s.Branches.Leaves, s.Branches.Forks = t.Shape()
	cp := PlanContext(ix, t)
	path := t.Path()
	if leaf := t.Leaf(); leaf >= 0 {
		s.Active.Leaf = ix.Nodes[leaf].ID().String()
		s.Active.LeafLine = ix.Nodes[leaf].Line
	}
	if ix.Header != nil {
		s.Active.Entries = len(path)
		s.Active.Messages = cp.MessageCount()
		s.Active.ContextBytes = contextBytes(ix, cp)
	}
	s.context = contextLinesOf(ix, cp)
	a.ownership(ix, path)

	sort.SliceStable(a.findings, func(i, j int) bool { return a.findings[i].Line < a.findings[j].Line })
	s.Findings = a.findings
	if s.Findings == nil {
		s.Findings = []Finding{}
	}
	return s
}

// contextBytes is ActiveBranch.ContextBytes: each context entry's node up
// to the next node (the end of the file for the last).
func contextBytes(ix *Index, cp *ContextPlan) int64 {
	var n int64
	add := func(i int) {
		end := ix.Bytes
		if i+1 < len(ix.Nodes) {
			end = ix.Nodes[i+1].Offset
		}
		n += end - ix.Nodes[i].Offset
	}
	for _, i := range cp.Entries {
		add(i)
	}
	if cp.Compaction >= 0 {
		add(cp.Compaction)
	}
	return n
}

func (a *analyzer) treeFindings(ix *Index, t *Tree) {
	if t.linear {
		return
	}
	for i := range ix.Nodes {
		n := &ix.Nodes[i]
		if n.NotObject {
			a.add("not-an-object", n.Line, SevWarning, "line is JSON but not an object")
			continue
		}
		if !n.ID().IsString() || n.ID().String() == "" {
			a.add("missing-id", n.Line, SevWarning, "entry has no string id; nothing can link to it")
		} else if first, dup := t.FirstWithID(i); dup {
			a.add("duplicate-id", n.Line, SevWarning, "id %q is used again (first on line %d); links go to the later entry", n.ID().String(), ix.Nodes[first].Line)
		}
		switch {
		case n.ParentID().Truthy() && n.ParentID() == n.ID():
			a.add("self-parent", n.Line, SevWarning, "entry is its own parent")
		case t.MissingParent(i):
			a.add("missing-parent", n.Line, SevWarning, "parentId %q names no entry: its branch stops here, and on the active branch OpenClaw sends the model nothing from before this entry", n.ParentID().String())
		}
	}
	// Cycles: a walk from every node that revisits a node.
	state := make([]uint8, len(ix.Nodes)) // 0 new, 1 on stack, 2 done
	var stack []int                       // one walk's nodes (reused: most walks take one step)
	for i := range ix.Nodes {
		if state[i] != 0 {
			continue
		}
		stack = stack[:0]
		cur := i
		for cur >= 0 && state[cur] == 0 {
			state[cur] = 1
			stack = append(stack, cur)
			cur = t.parent(cur)
		}
		if cur >= 0 && state[cur] == 1 {
			a.add("parent-cycle", ix.Nodes[t.CycleFirst(cur)].Line, SevError, "parentId links form a cycle (this entry's parentId names an entry written after it); OpenClaw 2026.5.6 hangs when it walks this branch; `oc repair` cuts this link")
		}
		for _, j := range stack {
			state[j] = 2
		}
	}
}

func (a *analyzer) pairing() {
	tc := &a.s.ToolCalls
	for _, u := range a.uses {
		switch {
		case u.n == 0:
			tc.OrphanResults += u.results
		case u.results > 0:
			tc.Paired += u.n
		default:
			tc.MissingResult += u.n
		}
		if u.n > 1 {
			tc.DuplicateIDs++
		}
	}
	if tc.MissingResult > 0 {
		a.add("missing-tool-result", 0, SevInfo, "%s no result; replay inserts synthetic error results for most providers", pluralHave(tc.MissingResult, "tool call"))
	}
	if tc.OrphanResults > 0 {
		a.add("orphan-tool-result", 0, SevInfo, "%d %s no tool call (replay drops orphan results)", tc.OrphanResults, pluralWord(tc.OrphanResults, "tool result answers", "tool results answer"))
	}
}

// ownership reports transcript-ownership problems on the active branch: a
// message shown twice, delivery-mirror and System: awareness copies, and two
// adjacent assistant turns.
func (a *analyzer) ownership(ix *Index, path []int) {
	var prev *Node
	var prevHash uint64
	for _, i := range path {
		n := &ix.Nodes[i]
		if n.Type != TypeMessage {
			continue
		}
		cur := a.markOf(n)
		if !cur.hashed {
			continue
		}
		h := cur.hash
		if prev != nil && h == prevHash {
			switch {
			case cur.mirror:
				a.add("delivery-mirror-copy", n.Line, SevInfo, "delivery-mirror row repeats the assistant reply on line %d (transcript-only; replay drops it)", prev.Line)
			default:
				a.add("duplicate-message", n.Line, SevWarning, "%s message repeats line %d word for word; the model sees it twice", n.Role(), prev.Line)
			}
		} else if prev != nil && n.Role() == RoleAssistant && prev.Role() == RoleAssistant && !cur.mirror && !a.markOf(prev).mirror {
			a.add("adjacent-assistant-turns", n.Line, SevInfo, "two assistant turns in a row (lines %d and %d) with no user or tool turn between them", prev.Line, n.Line)
		}
		if cur.awareness && prev != nil && a.markOf(prev).awareness && h == prevHash {
			a.add("system-awareness-copy", n.Line, SevInfo, "System: awareness line repeated")
		}
		prev, prevHash = n, h
	}
}

// isBase64 reports whether s is standard base64 (padding optional), the
// alphabet OpenClaw's strict inline-image check accepts.
func isBase64(s string) bool {
	end := len(s)
	for end > 0 && s[end-1] == '=' {
		end--
	}
	if len(s)-end > 2 || end%4 == 1 {
		return false
	}
	for i := 0; i < end; i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/') {
			return false
		}
	}
	return true
}

// awarenessPrefix starts the text of a System: awareness line.
const awarenessPrefix = "System: ["

// firstUserTextHasPrefix reports whether a user message's text (the string
// content, or its first block's text; blocks are its decoded blocks) starts
// with prefix.
func firstUserTextHasPrefix(raw json.RawMessage, blocks []rawBlock, prefix string) bool {
	raw = jsonl.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		return strHasPrefix(raw, prefix)
	}
	if len(blocks) == 0 {
		return false
	}
	return strHasPrefix(blocks[0].Text, prefix)
}

// strHasPrefix is strings.HasPrefix(str(raw), prefix) without decoding the
// text when its start holds no escape.
func strHasPrefix(raw []byte, prefix string) bool {
	raw = jsonl.TrimSpace(raw)
	if len(raw) >= 2 && raw[0] == '"' {
		inner := raw[1 : len(raw)-1]
		if k := min(len(inner), len(prefix)); bytes.IndexByte(inner[:k], '\\') < 0 {
			return bytes.HasPrefix(inner, []byte(prefix))
		}
	}
	s, _ := str(raw)
	return strings.HasPrefix(s, prefix)
}

// isToolName: name matches ^[A-Za-z0-9_-]+$ (what replay keeps of a tool
// call's name).
func isToolName(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return name != ""
}

// pluralWord is one for 1, many otherwise.
func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// pluralHave is "1 tool call has" or "3 tool calls have".
func pluralHave(n int, noun string) string {
	if n == 1 {
		return "1 " + noun + " has"
	}
	return fmt.Sprintf("%d %ss have", n, noun)
}
