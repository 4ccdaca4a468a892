package repair

import (
	"bytes"
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/entrywalk"
	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/vocab"
)

// Entry is one parsed transcript value (a whole line, or one entry salvaged
// from a damaged line) with the raw values of the fields the rules read.
// Like JSON.parse, a key given twice counts with its last value.
type Entry struct {
	B      []byte // the entry's bytes
	Object bool   // the value is a JSON object

	Type, ID, ParentID, Timestamp []byte // raw values; nil when absent
	parentStart, parentEnd        int
	idStart, idEnd                int
	// FirstKept is a compaction's firstKeptEntryId (raw; nil when absent).
	FirstKept                    []byte
	firstKeptStart, firstKeptEnd int

	// Message is the raw "message" value (nil when absent); the fields below
	// come from it when it is an object.
	Message                                                                []byte
	Role, Content, StopReason, API, Provider, Model, ToolCallID, ToolUseID []byte
	contentStart, contentEnd                                               int
	// content is the tape's node of the message's content (-1: not on the
	// tape), for the hints
	content int

	f     facts // what the rules decide of the entry alone (prepare)
	kinds kinds // see kind
}

// ParseEntry reads the fields of one JSON value. b must be valid JSON (it is
// only called on what jsonl.Valid accepted); on anything else the fields it
// could not reach stay nil.
func ParseEntry(b []byte) *Entry {
	e := new(Entry)
	e.fromTape(b, nil)
	return e
}

// fromTape fills e (the entry b) from the tape tp.Parse(b) made (nil: from
// b's text), through the walk every entry decoder shares, and the hints.
func (e *Entry) fromTape(b []byte, tp *jsjson.Tape) {
	*e = Entry{B: b}
	f := (*entryFields)(e)
	f.content = -1
	e.Object = entrywalk.Walk(b, tp, f)
	switch {
	case tp == nil:
		// no tape: prepare and the rules read the content's text
	case jsonl.ValueKind(e.Content) == '[':
		e.f.imageHint, e.f.blankHint, e.f.hintsKnown = contentHints(b, tp.Nodes, f.content)
	default:
		e.f.hintsKnown = true
	}
}

// entryFields is an Entry as the visitor of its walk (entrywalk.Visitor),
// so that Entry itself exports no visitor methods.
type entryFields Entry

// Member takes one member of the entry object.
func (f *entryFields) Member(key, value []byte, start, _ int) {
	(*Entry)(f).topMember(key, start, start+len(value))
}

// MessageMember takes one member of the message object, and the tape's node
// of its content (for the hints).
func (f *entryFields) MessageMember(key, value []byte, start, node int) {
	(*Entry)(f).messageField(key, start, start+len(value))
	if string(key) == "content" {
		f.content = node
	}
}

// contentHints reads off the tape what the content rules would look for in
// the content array, node j (-1: not on it): whether a block may be an image
// (a member "type" of "image") and whether the blank text rule may fire (no
// block at all, or a member "text" holding a string that is not surely
// non-blank, or a key with an escape). known is false when the tape does not hold the blocks'
// members; then the rules read the text.
func contentHints(b []byte, nodes []jsjson.Node, j int) (image, blank, known bool) {
	if j < 0 || nodes[j].Kind != '[' || nodes[j].Flags&jsjson.Pruned != 0 {
		return false, false, false
	}
	blank = j+1 == int(nodes[j].Next) // an empty array is blank text too
	for k := j + 1; k < int(nodes[j].Next); k = int(nodes[k].Next) {
		el := &nodes[k]
		if el.Kind != '{' {
			continue
		}
		if el.Flags&jsjson.Pruned != 0 {
			return false, false, false
		}
		for f := k + 1; f < int(el.Next); f = int(nodes[f].Next) {
			m := &nodes[f]
			if m.Flags&jsjson.KeyEscaped != 0 {
				blank = true
			}
			switch string(m.KeyText(b)) {
			case "type":
				image = image || jsonl.StringIs(m.Value(b), "image")
			case "text":
				blank = blank || (m.Kind == '"' && !surelyNotBlank(m.Value(b)))
			}
		}
	}
	return image, blank, true
}

// surelyNotBlank: the JSON string v starts, after spaces, with a printable
// ASCII character other than a backslash, so String.prototype.trim leaves
// it non-empty (false: it may be blank; decode it to know). A literal holds
// no other raw white space: tabs and newlines are escaped.
func surelyNotBlank(v []byte) bool {
	if len(v) < 3 || v[0] != '"' {
		return false
	}
	for _, c := range v[1 : len(v)-1] {
		if c != ' ' {
			return c > ' ' && c < 0x7f && c != '\\' && c != '"'
		}
	}
	return false
}

// topMember takes one member of the entry object (its decoded key and value
// offsets in e.B); like JSON.parse, a key given twice counts with its last
// value, and the message's fields are those of the last "message".
func (e *Entry) topMember(key []byte, vs, ve int) {
	v := e.B[vs:ve]
	switch string(key) {
	case "type":
		e.Type = v
	case "id":
		e.ID, e.idStart, e.idEnd = v, vs, ve
	case "parentId":
		e.ParentID, e.parentStart, e.parentEnd = v, vs, ve
	case "firstKeptEntryId":
		e.FirstKept, e.firstKeptStart, e.firstKeptEnd = v, vs, ve
	case "timestamp":
		e.Timestamp = v
	case "message":
		e.resetMessage()
		e.Message = v
	}
}

func (e *Entry) resetMessage() {
	e.Role, e.Content, e.StopReason, e.API, e.Provider, e.Model, e.ToolCallID, e.ToolUseID = nil, nil, nil, nil, nil, nil, nil, nil
	e.contentStart, e.contentEnd = 0, 0
}

// messageField takes one member of the message object (its decoded key and
// value offsets in e.B).
func (e *Entry) messageField(key []byte, vs, ve int) {
	v := e.B[vs:ve]
	switch string(key) {
	case "role":
		e.Role = v
	case "content":
		e.Content, e.contentStart, e.contentEnd = v, vs, ve
	case "stopReason":
		e.StopReason = v
	case "api":
		e.API = v
	case "provider":
		e.Provider = v
	case "model":
		e.Model = v
	case "toolCallId":
		e.ToolCallID = v
	case "toolUseId":
		e.ToolUseID = v
	}
}

// IsMessage is entry.type === "message".
func (e *Entry) IsMessage() bool { return e.kind().message }

// kinds are what the rules ask of an entry's type and role again and again,
// decoded once.
type kinds struct {
	known, message              bool
	user, assistant, toolResult bool // the message's role (with fields read)
}

func (e *Entry) kind() kinds {
	if !e.kinds.known {
		e.findKinds()
	}
	return e.kinds
}

func (e *Entry) findKinds() {
	k := kinds{known: true, message: e.Object && jsonl.StringIs(e.Type, "message")}
	if e.messageHasFields() {
		k.user = jsonl.StringIs(e.Role, "user")
		k.assistant = !k.user && jsonl.StringIs(e.Role, "assistant")
		k.toolResult = !k.user && !k.assistant && jsonl.StringIs(e.Role, vocab.RoleToolResult)
	}
	e.kinds = k
}

// messageIsObject is JavaScript's `entry.message && typeof entry.message === "object"`
// (arrays count; null does not).
func (e *Entry) messageIsObject() bool {
	return len(e.Message) > 0 && (e.Message[0] == '{' || e.Message[0] == '[')
}

// messageHasFields: the message is a real object whose members were read.
func (e *Entry) messageHasFields() bool { return len(e.Message) > 0 && e.Message[0] == '{' }

// IsHeader is OpenClaw's repair header check: type "session" and a non-empty string id.
func (e *Entry) IsHeader() bool {
	if !e.Object || !jsonl.StringIs(e.Type, "session") {
		return false
	}
	id, ok := jsonl.StringValue(e.ID)
	return ok && id != ""
}

// IDString returns the entry's id when it is a string.
func (e *Entry) IDString() (string, bool) { return jsonl.StringValue(e.ID) }

// ParentString returns parentId when it is a string.
func (e *Entry) ParentString() (string, bool) { return jsonl.StringValue(e.ParentID) }

// withContent returns the entry's bytes with message.content replaced.
func (e *Entry) withContent(content []byte) []byte {
	out := make([]byte, 0, len(e.B)-(e.contentEnd-e.contentStart)+len(content))
	out = append(out, e.B[:e.contentStart]...)
	out = append(out, content...)
	return append(out, e.B[e.contentEnd:]...)
}

// withParent returns the entry's bytes with parentId replaced by raw JSON.
func (e *Entry) withParent(parent []byte) []byte {
	out := make([]byte, 0, len(e.B)+len(parent))
	out = append(out, e.B[:e.parentStart]...)
	out = append(out, parent...)
	return append(out, e.B[e.parentEnd:]...)
}

// withID returns the entry's bytes with id replaced by raw JSON.
func (e *Entry) withID(id []byte) []byte {
	out := make([]byte, 0, len(e.B)+len(id))
	out = append(out, e.B[:e.idStart]...)
	out = append(out, id...)
	return append(out, e.B[e.idEnd:]...)
}

// withFirstKept returns the entry's bytes with firstKeptEntryId replaced.
func (e *Entry) withFirstKept(id []byte) []byte {
	out := make([]byte, 0, len(e.B)+len(id))
	out = append(out, e.B[:e.firstKeptStart]...)
	out = append(out, id...)
	return append(out, e.B[e.firstKeptEnd:]...)
}

// EntryFix is what an entry rule decided.
type EntryFix struct {
	Drop       bool   // drop the entry
	NewContent []byte // new message.content (nil: unchanged)
	Count      int    // how many things the rule changed (0: it did not fire)
	Detail     string // for the quarantine file
}

// fixInvalidRole: later OpenClaw's isStructurallyInvalidMessageEntry.
func fixInvalidRole(e *Entry) EntryFix {
	if !e.IsMessage() {
		return EntryFix{}
	}
	if !e.messageIsObject() {
		return EntryFix{Drop: true, Count: 1, Detail: "message entry without a message object"}
	}
	if k := e.kind(); k.user || k.assistant || k.toolResult {
		return EntryFix{} // a role OpenClaw writes: a non-blank string
	}
	role, ok := strView(e.Role)
	if !e.messageHasFields() || !ok || len(jsjson.TrimBytes(role)) == 0 {
		return EntryFix{Drop: true, Count: 1, Detail: "message without a non-blank string role"}
	}
	return EntryFix{}
}

// fixEmptyAssistantError: isAssistantEntryWithEmptyContent.
func fixEmptyAssistantError(e *Entry) EntryFix {
	if !e.IsMessage() || !e.kind().assistant || !jsonl.StringIs(e.StopReason, "error") {
		return EntryFix{}
	}
	if !isEmptyArray(e.Content) {
		return EntryFix{}
	}
	return EntryFix{NewContent: []byte(`[{"type":"text","text":"` + StreamErrorFallbackText + `"}]`), Count: 1,
		Detail: "assistant error turn with empty content"}
}

func isEmptyArray(v []byte) bool {
	if len(v) < 2 || v[0] != '[' {
		return false
	}
	return jsonl.SkipSpace(v, 1) == len(v)-1
}

// fixBlankUser: repairUserEntryWithBlankTextContent (applies to role "user").
func fixBlankUser(e *Entry) EntryFix {
	if !e.IsMessage() || !e.kind().user {
		return EntryFix{}
	}
	nc, ok := blankUserContent(e.Content, e.f.hintsKnown && !e.f.blankHint)
	if !ok {
		return EntryFix{}
	}
	return EntryFix{NewContent: nc, Count: 1, Detail: "blank user text"}
}

// blankUserContent returns the rewritten content and true when the rule fires.
// noBlankBlock: the tape showed that content holds no blank text block
// (contentHints), so an array is left as it is without a walk.
func blankUserContent(content []byte, noBlankBlock bool) ([]byte, bool) {
	switch jsonl.ValueKind(content) {
	case '"':
		if surelyNotBlank(content) {
			return nil, false
		}
		s, _ := strView(content)
		if len(jsjson.TrimBytes(s)) > 0 {
			return nil, false
		}
		return []byte(`"` + BlankUserFallbackText + `"`), true
	case '[':
		if noBlankBlock {
			return nil, false
		}
	default:
		return nil, false
	}
	var kept [][]byte
	touched := false
	jsonl.EachElement(content, 0, func(s, end int) bool {
		el := content[s:end]
		if isBlankTextBlock(el) {
			touched = true
			return true
		}
		kept = append(kept, el)
		return true
	})
	if len(kept) == 0 {
		return []byte(`[{"type":"text","text":"` + BlankUserFallbackText + `"}]`), true
	}
	if !touched {
		return nil, false
	}
	return joinArray(kept), true
}

func joinArray(els [][]byte) []byte {
	n := 2
	for _, el := range els {
		n += len(el) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, el := range els {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, el...)
	}
	return append(out, ']')
}

// blockFields reads the fields of a content block object.
type block struct {
	isObject                                     bool
	typ, text, data, mimeType, mediaType, media_ []byte
	id, name                                     []byte
}

func parseBlock(el []byte) block {
	var bl block
	if len(el) == 0 || el[0] != '{' {
		return bl
	}
	bl.isObject = true
	jsonl.EachMember(el, 0, func(m jsonl.Member) bool {
		v := el[m.Start:m.End]
		switch string(jsonl.KeyText(m.Key)) {
		case "type":
			bl.typ = v
		case "text":
			bl.text = v
		case "data":
			bl.data = v
		case "mimeType":
			bl.mimeType = v
		case "mediaType":
			bl.mediaType = v
		case "media_type":
			bl.media_ = v
		case "id":
			bl.id = v
		case "name":
			bl.name = v
		}
		return true
	})
	return bl
}

func isBlankTextBlock(el []byte) bool {
	bl := parseBlock(el)
	if !bl.isObject || !jsonl.StringIs(bl.typ, "text") || surelyNotBlank(bl.text) {
		return false
	}
	s, ok := strView(bl.text)
	return ok && len(jsjson.TrimBytes(s)) == 0
}

// fixCorruptedImages: later OpenClaw's repairEntryWithCorruptedImageBlocks.
func fixCorruptedImages(e *Entry) EntryFix {
	if !e.IsMessage() || !e.messageHasFields() {
		return EntryFix{}
	}
	nc, n := corruptedImageContent(e.Content)
	if n == 0 {
		return EntryFix{}
	}
	return EntryFix{NewContent: nc, Count: n, Detail: "corrupted base64 image"}
}

func corruptedImageContent(content []byte) ([]byte, int) {
	if jsonl.ValueKind(content) != '[' || !bytes.Contains(content, []byte("image")) {
		return nil, 0
	}
	var els [][]byte
	n := 0
	jsonl.EachElement(content, 0, func(s, end int) bool {
		el := content[s:end]
		if isCorruptedImageBlock(el) {
			n++
			el = []byte(`{"type":"text","text":"` + CorruptedImageFallbackText + `"}`)
		}
		els = append(els, el)
		return true
	})
	if n == 0 {
		return nil, 0
	}
	return joinArray(els), n
}

func isCorruptedImageBlock(el []byte) bool {
	bl := parseBlock(el)
	if !bl.isObject || !jsonl.StringIs(bl.typ, "image") || jsonl.ValueKind(bl.data) != '"' {
		return false
	}
	mime := ""
	for _, v := range [][]byte{bl.mimeType, bl.mediaType, bl.media_} {
		if s, ok := jsonl.StringValue(v); ok && isImageMime(s) {
			mime = s
			break
		}
	}
	if mime == "" {
		return false
	}
	data, _ := jsonl.StringValue(bl.data)
	for i := 0; i < len(data); i++ {
		if data[i] >= 0x80 {
			return true // containsNonAscii
		}
	}
	return !validInlineImage(data)
}

func isImageMime(s string) bool {
	s = strings.TrimFunc(s, jsjson.IsSpace)
	return len(s) >= 6 && strings.EqualFold(s[:6], "image/")
}

// validInlineImage is sanitizeInlineImageBase64 for ASCII data: canonical
// base64 (white space and control characters ignored, at most two '=' at the
// end, a multiple of four characters) whose first 128 characters decode to a
// known image signature.
func validInlineImage(data string) bool {
	head := make([]byte, 0, 128)
	n, padding, sawPadding := 0, 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c <= 32 {
			continue
		}
		if c == '=' {
			padding++
			if padding > 2 {
				return false
			}
			sawPadding = true
		} else if sawPadding || !isBase64Char(c) {
			return false
		}
		n++
		if len(head) < 128 {
			head = append(head, c)
		}
	}
	if n == 0 || n%4 != 0 {
		return false
	}
	return sniffImage(decodeLenient(string(head)))
}

func isBase64Char(c byte) bool {
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/'
}

// decodeLenient decodes base64 the way Node's Buffer.from does for
// canonical input (stops at padding, ignores trailing bits).
func decodeLenient(s string) []byte {
	s = strings.TrimRight(s, "=")
	out, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		// trailing partial quantum: decode what can be decoded
		for len(s) > 0 && err != nil {
			s = s[:len(s)-1]
			out, err = base64.RawStdEncoding.DecodeString(s)
		}
	}
	return out
}

func sniffImage(b []byte) bool {
	switch {
	case len(b) >= 8 && bytes.Equal(b[:8], []byte{0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a}):
		return true
	case len(b) >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff:
		return true
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return true
	case len(b) >= 6 && (string(b[:6]) == "GIF87a" || string(b[:6]) == "GIF89a"):
		return true
	case len(b) >= 2 && b[0] == 'B' && b[1] == 'M':
		return true
	}
	if len(b) < 12 || string(b[4:8]) != "ftyp" {
		return false
	}
	brands := []string{string(b[8:12])}
	for off := 16; off+4 <= len(b); off += 4 {
		brands = append(brands, string(b[off:off+4]))
	}
	for _, br := range brands {
		switch br {
		case "heic", "heix", "hevc", "hevx", "heis", "heim", "hevm", "hevs", "mif1", "msf1":
			return true
		}
	}
	return false
}

// toolCall is one tool call of an assistant message.
type toolCall struct {
	id, name string
	hasName  bool
}

// toolCalls is extractToolCallsFromAssistant.
func toolCalls(content []byte) []toolCall {
	if jsonl.ValueKind(content) != '[' {
		return nil
	}
	var out []toolCall
	jsonl.EachElement(content, 0, func(s, end int) bool {
		bl := parseBlock(content[s:end])
		if !bl.isObject {
			return true
		}
		id, ok := jsonl.StringValue(bl.id)
		if !ok || id == "" || jsonl.ValueKind(bl.id) != '"' {
			return true
		}
		t, ok := jsonl.StringValue(bl.typ)
		if !ok || jsonl.ValueKind(bl.typ) != '"' || !vocab.IsToolCallBlock(t) {
			return true
		}
		tc := toolCall{id: id}
		if jsonl.ValueKind(bl.name) == '"' {
			tc.name, _ = jsonl.StringValue(bl.name)
			tc.hasName = true
		}
		out = append(out, tc)
		return true
	})
	return out
}

// toolResultID is extractToolResultId for a toolResult message.
func (e *Entry) toolResultID() ([]byte, bool) {
	if !e.IsMessage() || !e.kind().toolResult {
		return nil, false
	}
	if s, _ := strView(e.ToolCallID); len(s) > 0 {
		return s, true
	}
	if s, _ := strView(e.ToolUseID); len(s) > 0 {
		return s, true
	}
	return nil, false
}

// strView is the text of the JSON string v (ok: v is a string): a view of v
// itself when it holds no escape and is UTF-8, else a decoded copy.
func strView(v []byte) ([]byte, bool) {
	if jsonl.ValueKind(v) != '"' || len(v) < 2 {
		return nil, false
	}
	inner := v[1 : len(v)-1]
	if len(inner) <= 32 {
		// a role, a name, an id: a word at a time
		escaped, high := jsjson.EscapedOrHigh(inner)
		if !escaped && (!high || utf8.Valid(inner)) {
			return inner, true
		}
	} else if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner, true
	}
	s, ok := jsonl.StringValue(v)
	return []byte(s), ok
}

// trimmedStr is the JSON string v trimmed as String.prototype.trim does
// ("" for any other value), as bytes: a view of v itself when it holds no
// escape (the predicates below compare it on every message).
func trimmedStr(v []byte) []byte {
	inner, _ := strView(v)
	return jsjson.TrimBytes(inner)
}

func (e *Entry) stoppedByErrorOrAbort() bool {
	return jsonl.StringIs(e.StopReason, "error") || jsonl.StringIs(e.StopReason, "aborted")
}

// isCodeModeCandidate: isCodeModeToolCallRepairCandidate (V5 predicate) or
// its V4 spelling for 2026.5-era files (openai-codex-responses / openai-codex).
func (e *Entry) isCodeModeCandidate() bool {
	if !e.IsMessage() || !e.kind().assistant || e.stoppedByErrorOrAbort() {
		return false
	}
	return (jsonl.StringIs(e.API, "openai-chatgpt-responses") && jsonl.StringIs(e.Provider, "openai")) ||
		(jsonl.StringIs(e.API, "openai-codex-responses") && jsonl.StringIs(e.Provider, "openai-codex"))
}

// isResponsesMessageToolCandidate: isResponsesMessageToolRepairCandidate.
func (e *Entry) isResponsesMessageToolCandidate() bool {
	if !e.IsMessage() || !e.kind().assistant || e.stoppedByErrorOrAbort() {
		return false
	}
	switch string(trimmedStr(e.API)) {
	case "openai-responses", "azure-openai-responses", "openai-codex-responses":
		return true
	}
	return false
}

// isDeliveryMirror: isTranscriptOnlyDeliveryMirrorEntry.
func (e *Entry) isDeliveryMirror() bool {
	if !e.IsMessage() || !e.kind().assistant {
		return false
	}
	if string(trimmedStr(e.Provider)) != "openclaw" {
		return false
	}
	m := trimmedStr(e.Model)
	return string(m) == "delivery-mirror" || string(m) == "gateway-injected"
}
