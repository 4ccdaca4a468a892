package transcript

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"hash/maphash"
	"io"
	"regexp"
	"sort"
	"strings"

	gojson "github.com/goccy/go-json"

	"github.com/openclaw-tools/oc/pkg/jsonl"
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
}

// Summary is everything `oc inspect` reports about one transcript.
type Summary struct {
	Path        string         `json:"path"`
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
func AnalyzeFile(f File, stdin io.Reader) (*Summary, error) { return analyzeFile(f, stdin, nil) }

// analyzeFile is AnalyzeFile; progress, when set, is told the bytes read.
func analyzeFile(f File, stdin io.Reader, progress func(int)) (*Summary, error) {
	// progress is told the bytes read from disk (compressed ones for a
	// compressed file: they add up to its size).
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
	s, err := analyze(r, src.BufferSize(), max(src.Size, 0))
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
func Analyze(r io.Reader) (*Summary, error) { return analyze(r, 0, 0) }

func analyze(r io.Reader, bufSize int, sizeHint int64) (*Summary, error) {
	a := newAnalyzer()
	ix, err := Scan(r, ScanOptions{Observer: a, BufferSize: bufSize, SizeHint: sizeHint})
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
	s        *Summary
	calls    map[string]int // tool call id -> occurrences
	callLine map[string]int64
	results  map[string]int
	findings []Finding
	// msgs, by a node's FileIndex: what the ownership rules need of each
	// message (a slice, not maps keyed by line: one entry per message, no
	// hashing on the hot path).
	msgs []messageMark
	// blockBuf is the content-block buffer reused for every message (the
	// blocks of one message are not kept past it).
	blockBuf []rawBlock
	seed     maphash.Seed
	each     func(*LineMembers) // AnalyzeBytesEach's callback, or nil
	lm       LineMembers
	strs     map[string]string // short strings decoded before (types, roles, models)
}

// str is the package's str, reusing the string of a short value seen before
// (entry types, roles, providers, models, block types repeat on every line).
func (a *analyzer) str(raw []byte) (string, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) < 2 || len(t) > 66 || t[0] != '"' || bytes.IndexByte(t, '\\') >= 0 {
		return str(raw)
	}
	inner := t[1 : len(t)-1]
	if s, ok := a.strs[string(inner)]; ok {
		return s, true
	}
	s := string(inner)
	if len(a.strs) < 512 {
		a.strs[s] = s
	}
	return s, true
}

func newAnalyzer() *analyzer {
	return &analyzer{
		s:     &Summary{ByType: map[string]int{}, ByRole: map[string]int{}, Providers: map[string]int{}, Models: map[string]int{}, APIs: map[string]int{}},
		calls: map[string]int{}, callLine: map[string]int64{}, results: map[string]int{},
		seed: maphash.MakeSeed(), strs: map[string]string{},
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
		a.msgs = append(a.msgs, make([]messageMark, i+1-len(a.msgs))...)
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

var (
	toolNameRE   = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	awarenessRE  = regexp.MustCompile(`^System: \[`)
	toolCallKind = map[string]bool{"toolCall": true, "toolUse": true, "functionCall": true}
)

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
		if t, ok := a.str(e.Type); ok {
			typ = t
		} else {
			typ = "(no type)"
		}
	}
	s.ByType[typ]++
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

func (a *analyzer) message(n *Node, e *rawEntry) {
	s := a.s
	if !isObject(e.Message) {
		a.add("invalid-message", n.Line, SevWarning, "message entry has no message object; OpenClaw's later releases drop it")
		s.ByRole["(none)"]++
		return
	}
	m := e.messageMembers()
	if a.each != nil {
		a.lm.setMessage(m)
	}
	role, ok := a.str(m.Role)
	if !ok || strings.TrimSpace(role) == "" {
		s.ByRole["(none)"]++
		a.add("null-role", n.Line, SevWarning, "message has no role (null, missing or blank); OpenClaw after 2026.5.6 drops it, providers reject it")
		return
	}
	s.ByRole[role]++
	mark := a.mark(n)
	mark.hashed = true
	mark.hash = maphash.Bytes(a.seed, bytes.TrimSpace(m.Content)) ^ maphash.String(a.seed, role)

	stop, _ := a.str(m.StopReason)
	// The content blocks, decoded once for every rule that reads them.
	var bl []rawBlock
	decoded := false
	switch role {
	case RoleAssistant:
		prov, _ := a.str(m.Provider)
		model, _ := a.str(m.Model)
		api, _ := a.str(m.API)
		if prov == "openclaw" && (model == "delivery-mirror" || model == "gateway-injected") {
			mark.mirror = true
		}
		if prov != "" {
			s.Providers[prov]++
		}
		if model != "" {
			s.Models[model]++
		}
		if api != "" {
			s.APIs[api]++
		}
		switch stop {
		case "error":
			s.Errors++
		case "aborted":
			s.Aborted++
		}
		content := bytes.TrimSpace(m.Content)
		if string(content) == "[]" && stop == "error" {
			a.add("empty-assistant-error", n.Line, SevWarning, "assistant turn failed with no content; Bedrock rejects the next request (oc repair fills in OpenClaw's placeholder text)")
		}
	case RoleUser:
		bl = appendBlocks(a.blockBuf, m.Content)
		a.blockBuf = bl
		decoded = true
		if firstUserText(m.Content, bl, awarenessRE) {
			mark.awareness = true
		}
		if blankUserContent(m.Content, bl) {
			a.add("blank-user", n.Line, SevWarning, "user message with blank text; Bedrock rejects it (oc repair writes OpenClaw's \"(continue)\")")
		}
	case RoleToolResult:
		id, ok := str(m.ToolCallID)
		if !ok || id == "" {
			id, _ = str(m.ToolUseID)
		}
		id = strings.TrimSpace(id)
		if id != "" {
			a.results[id]++
		}
	}
	if !isArray(m.Content) {
		return
	}
	if !decoded {
		bl = appendBlocks(a.blockBuf, m.Content)
		a.blockBuf = bl
	}
	for _, b := range bl {
		bt, _ := a.str(b.Type)
		switch {
		case bt == "thinking" || bt == "redacted_thinking":
			a.s.Thinking.Blocks++
			if sig, _ := str(b.Signature); sig != "" {
				a.s.Thinking.Signed++
			}
			if bt == "redacted_thinking" || isTrue(b.Redacted) {
				a.s.Thinking.Redacted++
			}
		case bt == "image":
			a.image(n.Line, b)
		case toolCallKind[bt] && role == RoleAssistant:
			a.toolCall(n.Line, b, stop)
		}
	}
}

func (a *analyzer) toolCall(line int64, b rawBlock, stop string) {
	id, _ := str(b.ID)
	name, _ := str(b.Name)
	if len(bytes.TrimSpace(b.PartialJSON)) > 0 {
		a.add("partial-tool-call", line, SevWarning, "tool call %q was cut off mid-stream (partialJson); replay drops it", name)
	}
	if strings.TrimSpace(id) == "" {
		a.add("tool-call-without-id", line, SevWarning, "tool call %q has no id; OpenAI rejects an empty call_id (replay drops the call)", name)
		return
	}
	if tn := strings.TrimSpace(name); tn == "" || len(tn) > 64 || !toolNameRE.MatchString(tn) {
		a.add("invalid-tool-name", line, SevWarning, "tool call %s has an invalid name %q; replay drops the call", id, name)
	}
	a.s.ToolCalls.Total++
	a.calls[id]++
	if _, seen := a.callLine[id]; !seen {
		a.callLine[id] = line
	} else if a.calls[id] == 2 {
		a.add("duplicate-tool-call-id", line, SevWarning, "tool call id %s is used again (first on line %d); providers reject duplicate ids", id, a.callLine[id])
	}
}

func (a *analyzer) image(line int64, b rawBlock) {
	a.s.Images.Count++
	data, ok := str(b.Data)
	if !ok {
		return
	}
	a.s.Images.Bytes += int64(base64.StdEncoding.DecodedLen(len(data)))
	mime, _ := str(b.MimeType)
	if mime != "" && !strings.HasPrefix(strings.ToLower(mime), "image/") {
		return
	}
	if !isBase64(data) {
		a.add("corrupted-image", line, SevWarning, "image data is not valid base64 (%d bytes); providers reject it (\"invalid base64 data\")", len(data))
	}
}

// blankUserContent: the content (string, or blocks, its decoded blocks) is
// blank text.
func blankUserContent(raw gojson.RawMessage, blocks []rawBlock) bool {
	raw = bytes.TrimSpace(raw)
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
		if jsonl.StringIs(bytes.TrimSpace(b.Type), "text") && blankStr(b.Text) {
			return true
		}
	}
	return len(blocks) == 0
}

// blankStr is strings.TrimSpace(str(raw)) == "" without copying the text
// when it holds no escape.
func blankStr(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) >= 2 && raw[0] == '"' {
		if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 {
			return len(bytes.TrimSpace(inner)) == 0
		}
	}
	s, _ := str(raw)
	return strings.TrimSpace(s) == ""
}

// strMatches is re.MatchString(str(raw)) without copying the text when it
// holds no escape.
func strMatches(raw []byte, re *regexp.Regexp) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) >= 2 && raw[0] == '"' {
		if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 {
			return re.Match(inner)
		}
	}
	s, _ := str(raw)
	return re.MatchString(s)
}

func (a *analyzer) finish(ix *Index) *Summary {
	s := a.s
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

	children, roots := t.Children()
	s.Branches.Roots = len(roots)
	for _, c := range children {
		switch {
		case len(c) == 0:
			s.Branches.Leaves++
		case len(c) > 1:
			s.Branches.Forks++
		}
	}
	cp := PlanContext(ix, t)
	path := t.Path()
	if leaf := t.Leaf(); leaf >= 0 {
		s.Active.Leaf = ix.Nodes[leaf].ID.String()
		s.Active.LeafLine = ix.Nodes[leaf].Line
	}
	if ix.Header != nil {
		s.Active.Entries = len(path)
		s.Active.Messages = cp.MessageCount()
	}
	a.ownership(ix, path)

	sort.SliceStable(a.findings, func(i, j int) bool { return a.findings[i].Line < a.findings[j].Line })
	s.Findings = a.findings
	if s.Findings == nil {
		s.Findings = []Finding{}
	}
	return s
}

func (a *analyzer) treeFindings(ix *Index, t *Tree) {
	if t.linear {
		return
	}
	seen := make(map[Key]int64, len(ix.Nodes))
	for i := range ix.Nodes {
		n := &ix.Nodes[i]
		if n.NotObject {
			a.add("not-an-object", n.Line, SevWarning, "line is JSON but not an object")
			continue
		}
		if !n.ID.IsString() || n.ID.String() == "" {
			a.add("missing-id", n.Line, SevWarning, "entry has no string id; nothing can link to it")
		} else if first, dup := seen[n.ID]; dup {
			a.add("duplicate-id", n.Line, SevWarning, "id %q is used again (first on line %d); links go to the later entry", n.ID.String(), first)
		} else {
			seen[n.ID] = n.Line
		}
		switch {
		case n.ParentID.Truthy() && n.ParentID == n.ID:
			a.add("self-parent", n.Line, SevWarning, "entry is its own parent")
		case t.MissingParent(i):
			a.add("missing-parent", n.Line, SevWarning, "parentId %q names no entry: its branch stops here, and on the active branch OpenClaw sends the model nothing from before this entry", n.ParentID.String())
		}
	}
	// Cycles: a walk from every node that revisits a node.
	state := make([]uint8, len(ix.Nodes)) // 0 new, 1 on stack, 2 done
	for i := range ix.Nodes {
		if state[i] != 0 {
			continue
		}
		var stack []int
		cur := i
		for cur >= 0 && state[cur] == 0 {
			state[cur] = 1
			stack = append(stack, cur)
			cur = t.parent(cur)
		}
		if cur >= 0 && state[cur] == 1 {
			a.add("parent-cycle", ix.Nodes[cur].Line, SevError, "parentId links form a cycle; OpenClaw hangs when it walks this branch")
		}
		for _, j := range stack {
			state[j] = 2
		}
	}
}

func (a *analyzer) pairing() {
	tc := &a.s.ToolCalls
	for id, n := range a.calls {
		if a.results[id] > 0 {
			tc.Paired += n
		} else {
			tc.MissingResult += n
		}
		if n > 1 {
			tc.DuplicateIDs++
		}
	}
	for id, n := range a.results {
		if a.calls[id] == 0 {
			tc.OrphanResults += n
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
				a.add("duplicate-message", n.Line, SevWarning, "%s message repeats line %d word for word; the model sees it twice", n.Role, prev.Line)
			}
		} else if prev != nil && n.Role == RoleAssistant && prev.Role == RoleAssistant && !cur.mirror && !a.markOf(prev).mirror {
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

// firstUserText reports whether a user message's text (the string content,
// or its first block's text; blocks are its decoded blocks) matches re.
func firstUserText(raw gojson.RawMessage, blocks []rawBlock, re *regexp.Regexp) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		return strMatches(raw, re)
	}
	if len(blocks) == 0 {
		return false
	}
	return strMatches(blocks[0].Text, re)
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
