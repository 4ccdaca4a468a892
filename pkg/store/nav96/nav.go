// Package nav96 computes a session's active branch and model-context size by
// OpenClaw 2026.9.6's rules (src/config/sessions/transcript-tree.ts
// scanSessionTranscriptNavigation and selectSessionTranscriptActiveEntries;
// session-transcript-index visitProjectionSource for the cached active
// events the context is read from; then packages/agent-core session.ts
// buildSessionContext): `leaf` control
// rows move the leaf to their targetId, `appendMode: "side"` entries never
// become the leaf, a `reset` row starts a new visible history, an entry whose
// parent is unknown is re-attached to the preceding leaf
// ("canonicalParentIsStale"), and the last row with an id wins.
package nav96

import (
	"bytes"
	"encoding/json"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/vocab"
)

// ref is a JavaScript value that is undefined, null or a string.
type ref struct {
	kind uint8 // refUndef, refNull, refStr
	s    string
}

const (
	refUndef uint8 = iota
	refNull
	refStr
)

var (
	undef   = ref{}
	nullRef = ref{kind: refNull}
)

func str(s string) ref        { return ref{kind: refStr, s: s} }
func (r ref) isNull() bool    { return r.kind == refNull }
func (r ref) isUndef() bool   { return r.kind == refUndef }
func (r ref) eq(o ref) bool   { return r.kind == o.kind && r.s == o.s }
func (r ref) truthyStr() bool { return r.kind == refStr && r.s != "" }

// Record is one transcript row as the navigation rules see it.
type Record struct {
	Object     bool // a JSON object (isRecord)
	Type       string
	TypeIsStr  bool
	id         ref   // readNonBlankString(id) or undefined
	rawID      field // id as stored (present, a string, …)
	hasParent  bool
	parent     field
	target     field
	appendPar  field
	appendMode field
	firstKept  ref
	// message entries
	hasMessage     bool // message is truthy
	messageMember  bool // message is present (hasTranscriptMessage: any JSON value)
	messageObject  bool
	role           string
	excludeFromCtx bool
	content        json.RawMessage // assistant content that may hold tool calls
	// calls are the tool call ids of a record ParseSlim made (content
	// then nil)
	calls         []string
	toolResultID  string
	summaryTruthy bool
	// indexedShape: the type-specific fields 9.6's indexedSessionEntrySchema
	// requires are there (a reset needs a known reason; a compaction a string
	// summary, a firstKeptEntryId and a numeric tokensBefore). Rows without
	// them are opaque to the session manager: never on the context branch.
	indexedShape bool
}

// field is a JSON member: absent, null, a non-blank string, or another value.
type field struct {
	present  bool
	null     bool
	str      bool // a string (s), blank or not
	nonBlank bool
	s        string
	side     bool // the string "side" (appendMode)
}

func (f field) asParent() ref {
	// record.parentId === null ? null : readNonBlankString(record.parentId) ?? undefined
	switch {
	case f.null:
		return nullRef
	case f.nonBlank:
		return str(f.s)
	}
	return undef
}

func isCanonicalType(t string) bool {
	switch t {
	case "message", "thinking_level_change", "model_change", "compaction", "reset", "branch_summary", "custom", "custom_message", "label", "session_info":
		return true
	}
	return false
}

func (r *Record) canonical() bool { return r.Object && r.TypeIsStr && isCanonicalType(r.Type) }
func (r *Record) side() bool      { return r.appendMode.present && r.appendMode.side }

func readField(raw []byte, ok bool) field {
	if !ok {
		return field{}
	}
	f := field{present: true}
	t := bytes.TrimSpace(raw)
	if string(t) == "null" {
		f.null = true
		return f
	}
	if len(t) > 0 && t[0] == '"' {
		if s, ok := jsonl.StringValue(t); ok {
			f.s, f.str = s, true
			f.nonBlank = jsjson.Trim(s) != ""
			f.side = s == "side"
		}
	}
	return f
}

// Parse decodes one stored event. A row that is not JSON is an opaque,
// non-object record (9.6 keeps such rows and ignores them in the context).
// Members are matched by exact key, as JavaScript property access reads them;
// when a key repeats, the last value wins (JSON.parse). The row is walked
// once, without copying it (the content of an assistant message is kept only
// when it may hold tool calls).
func Parse(line []byte) *Record {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] != '{' || !jsonl.Valid(t) {
		return &Record{}
	}
	return parseObject(t)
}

// ParseSlim is Parse for a reader that keeps a record of every row (oc
// show): an assistant message's content is not kept, only its tool call
// ids (what a reset boundary reads of it), decoded at once. The rules give
// the same answers on its records.
func ParseSlim(line []byte) *Record {
	r := Parse(line)
	if r.content != nil {
		r.calls = r.toolCalls()
		r.content = nil
	}
	return r
}

func parseObject(t []byte) *Record {
	var f Fields
	jsonl.Members(t, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			f.Type = v
		case "id":
			f.ID = v
		case "parentId":
			f.ParentID = v
		case "targetId":
			f.TargetID = v
		case "appendParentId":
			f.AppendParentID = v
		case "appendMode":
			f.AppendMode = v
		case "firstKeptEntryId":
			f.FirstKeptEntryID = v
		case "summary":
			f.Summary = v
		case "reason":
			f.Reason = v
		case "tokensBefore":
			f.TokensBefore = v
		case "message":
			f.Message = v
		case "customType":
			f.CustomType = v
		case "display":
			f.Display = v
		case "fromId":
			f.FromID = v
		case "content":
			f.EntryContent = v
		}
		return true
	})
	f.EntryMembers = true
	return FromFields(&f)
}

// Fields are the members of a JSON object row that the rules read, as raw
// JSON (nil: absent; no surrounding white space), for a caller that has
// already walked the row (pkg/transcript's analyzer hands them out).
type Fields struct {
	Type, ID, ParentID, TargetID, AppendParentID, AppendMode, FirstKeptEntryID,
	Summary, Reason, TokensBefore, Message []byte
	// MessageMembers: Message is an object whose members below are set;
	// false: FromFields decodes Message itself.
	MessageMembers                                           bool
	Role, Content, ExcludeFromContext, ToolCallID, ToolUseID []byte
	// EntryMembers: the members below were read (Parse reads them); false
	// leaves custom_message and branch_summary rows' shapes unchecked.
	EntryMembers                              bool
	CustomType, Display, FromID, EntryContent []byte
}

// FromFields is Parse of a row that is a JSON object with these members.
func FromFields(e *Fields) *Record {
	r := &Record{}
	FromFieldsTo(r, e)
	return r
}

// FromFieldsTo is FromFields into *r (all of it is overwritten), for a
// caller that keeps a session's records in a slab it reuses.
func FromFieldsTo(r *Record, e *Fields) {
	*r = Record{Object: true}
	if v := e.Type; len(v) > 0 && v[0] == '"' {
		if s, ok := knownString(v); ok {
			r.Type, r.TypeIsStr = s, true
		}
	}
	r.rawID = readField(e.ID, e.ID != nil)
	if r.rawID.nonBlank {
		r.id = str(r.rawID.s)
	}
	r.parent = readField(e.ParentID, e.ParentID != nil)
	r.hasParent = r.parent.present
	r.target = readField(e.TargetID, e.TargetID != nil)
	r.appendPar = readField(e.AppendParentID, e.AppendParentID != nil)
	r.appendMode = readField(e.AppendMode, e.AppendMode != nil)
	if f := readField(e.FirstKeptEntryID, e.FirstKeptEntryID != nil); f.nonBlank {
		r.firstKept = str(f.s)
	}
	summaryIsString := len(e.Summary) > 0 && e.Summary[0] == '"'
	r.summaryTruthy = e.Summary != nil && jsTruthy(e.Summary)
	r.indexedShape = indexedShape(r, e.Reason, e.TokensBefore, summaryIsString)
	if e.EntryMembers && r.indexedShape {
		r.indexedShape = entryShape(r.Type, e, summaryIsString)
	}
	if r.TypeIsStr && r.Type == "message" && !(len(e.Message) > 0 && e.Message[0] == '{') {
		// readableMessageSchema: the message is an object
		r.indexedShape = false
	}
	r.messageMember = e.Message != nil
	if e.Message != nil && jsTruthy(e.Message) {
		r.hasMessage = true
		if e.Message[0] == '{' {
			r.messageObject = true
			role, exclude, toolCallID, toolUseID, content := e.Role, e.ExcludeFromContext, e.ToolCallID, e.ToolUseID, e.Content
			if !e.MessageMembers {
				jsonl.Members(e.Message, func(k, v []byte) bool {
					switch string(k) {
					case "role":
						role = v
					case "excludeFromContext":
						exclude = v
					case "toolCallId":
						toolCallID = v
					case "toolUseId":
						toolUseID = v
					case "content":
						content = v
					}
					return true
				})
			}
			r.role, _ = knownString(role)
			r.excludeFromCtx = string(exclude) == "true"
			if r.TypeIsStr && r.Type == "message" && r.indexedShape {
				r.indexedShape = readableMessage(r.role, role, content, toolCallID, e.Message)
			}
			if r.role == vocab.RoleToolResult {
				id, ok := jsonl.StringValue(toolCallID)
				if !ok || id == "" {
					id, _ = jsonl.StringValue(toolUseID)
				}
				r.toolResultID = id
			}
			if r.role == "assistant" && mayHoldToolCalls(content) {
				r.content = bytes.Clone(content)
			}
		}
	}
}

// knownString is jsonl.StringValue, without allocating for the entry types
// and roles every row repeats.
func knownString(v []byte) (string, bool) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		switch string(v[1 : len(v)-1]) {
		case "message":
			return "message", true
		case "user":
			return "user", true
		case "assistant":
			return "assistant", true
		case vocab.RoleToolResult:
			return vocab.RoleToolResult, true
		case "session":
			return "session", true
		case "leaf":
			return "leaf", true
		case "custom":
			return "custom", true
		case "custom_message":
			return "custom_message", true
		case "compaction":
			return "compaction", true
		case "model_change":
			return "model_change", true
		case "thinking_level_change":
			return "thinking_level_change", true
		}
	}
	return jsonl.StringValue(v)
}

// mayHoldToolCalls: the content names a tool call block type somewhere
// ("toolCall", "functionCall" or "toolUse"). One scan for each capital
// letter (C, U), rare in most text, instead of one for each name: a search
// for a name starts at its quote, and falls back to comparing at every byte
// after a few near misses ("type", "text").
func mayHoldToolCalls(b []byte) bool {
	for i := len(`"tool`); i < len(b); i++ {
		j := bytes.IndexByte(b[i:], 'C')
		if j < 0 {
			break
		}
		i += j
		if len(b)-i >= len(`Call"`) && string(b[i:i+len(`Call"`)]) == `Call"` &&
			(string(b[i-len(`"tool`):i]) == `"tool` || i >= len(`"function`) && string(b[i-len(`"function`):i]) == `"function`) {
			return true
		}
	}
	for i := len(`"tool`); i < len(b); i++ {
		j := bytes.IndexByte(b[i:], 'U')
		if j < 0 {
			break
		}
		i += j
		if len(b)-i >= len(`Use"`) && string(b[i:i+len(`Use"`)]) == `Use"` && string(b[i-len(`"tool`):i]) == `"tool` {
			return true
		}
	}
	return false
}

var resetReasons = map[string]bool{`"new"`: true, `"reset"`: true, `"idle"`: true, `"daily"`: true, `"cron-stale"`: true}

func indexedShape(r *Record, reason, tokensBefore []byte, summaryIsString bool) bool {
	switch r.Type {
	case "reset":
		return resetReasons[string(reason)]
	case "compaction":
		tb := tokensBefore
		return summaryIsString && r.firstKept.truthyStr() && len(tb) > 0 && (tb[0] == '-' || tb[0] >= '0' && tb[0] <= '9')
	}
	return true
}

// entryShape checks the members indexedSessionEntrySchema requires of a
// custom_message (customType a non-empty string, content readable, display
// a boolean) and a branch_summary (fromId and summary strings).
func entryShape(typ string, e *Fields, summaryIsString bool) bool {
	switch typ {
	case "custom_message":
		ct, ok := jsonl.StringValue(e.CustomType)
		return ok && ct != "" && (string(e.Display) == "true" || string(e.Display) == "false") && readableContent(e.EntryContent)
	case "branch_summary":
		return summaryIsString && len(e.FromID) > 0 && e.FromID[0] == '"'
	}
	return true
}

// readableMessage is readableMessageSchema of transcript-payload-*.mjs
// (isIndexedSessionEntry's check of a message entry's message, which drops
// an entry failing it from the session manager's branch, so from the
// context): role one of user, assistant, toolResult, custom, bashExecution;
// user and assistant: readable content; toolResult: toolCallId and toolName
// strings, isError a boolean, content an array (or a string or an object,
// which 9.6's import turns into one); custom: readable content
// and a string customType, or none (the import's
// normalizePersistedLegacyHookMessage sets "hook"); bashExecution: command
// and output strings. rawRole, content and toolCallID are the message's
// members already read; msg is the message object, walked for the others a
// role needs.
func readableMessage(role string, rawRole, content, toolCallID, msg []byte) bool {
	if len(rawRole) == 0 || rawRole[0] != '"' {
		return false
	}
	isStr := func(v []byte) bool { return len(v) > 0 && v[0] == '"' }
	switch role {
	case "user", "assistant":
		return readableContent(content)
	case vocab.RoleToolResult, vocab.RoleCustom, vocab.RoleBashExecution:
	default:
		return false
	}
	var toolName, isError, customType, command, output []byte
	jsonl.Members(msg, func(k, v []byte) bool {
		switch string(k) {
		case "toolName":
			toolName = v
		case "isError":
			isError = v
		case "customType":
			customType = v
		case "command":
			command = v
		case "output":
			output = v
		}
		return true
	})
	switch role {
	case vocab.RoleToolResult:
		// normalizeLoadedFileEntry (session-manager-codec-*.mjs) has made a
		// string or object content an array before the check
		c := bytes.TrimSpace(content)
		return isStr(toolCallID) && isStr(toolName) && (string(isError) == "true" || string(isError) == "false") &&
			len(c) > 0 && (c[0] == '[' || c[0] == '"' || c[0] == '{')
	case "custom":
		return readableContent(content) && (customType == nil || isStr(customType))
	default:
		return isStr(command) && isStr(output)
	}
}

// readableContent is readableContentSchema: a string, or an array of
// objects whose type is a string. Each element is walked once, member by
// member (the text of a block is skipped once, not once to find the
// element's end and again for its members).
func readableContent(v []byte) bool {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return false
	}
	if v[0] == '"' {
		return true
	}
	if v[0] != '[' {
		return false
	}
	i := jsonl.SkipSpace(v, 1)
	if i < len(v) && v[i] == ']' {
		return true
	}
	for i < len(v) {
		if v[i] != '{' {
			return false
		}
		var typ []byte
		end, complete := jsonl.EachMember(v, i, func(m jsonl.Member) bool {
			if jsonl.KeyIs(m.Key, "type") {
				typ = v[m.Start:m.End]
			}
			return true
		})
		if !complete || len(typ) == 0 || typ[0] != '"' {
			return false
		}
		if i = jsonl.SkipSpace(v, end); i >= len(v) {
			return false
		}
		switch v[i] {
		case ',':
			i = jsonl.SkipSpace(v, i+1)
		case ']':
			return true
		default:
			return false
		}
	}
	return false
}

// toolCalls are an assistant message's tool call ids (decoded on demand: only
// a reset boundary needs them).
func (r *Record) toolCalls() []string {
	if r.content == nil {
		return r.calls
	}
	// readToolCall: a block that is an object whose type is a tool call's
	// and whose id is a non-empty string (each block on its own; the last
	// of a repeated key counts, as JSON.parse keeps it)
	var ids []string
	jsonl.EachElement(r.content, 0, func(start, end int) bool {
		block := r.content[start:end]
		if block[0] != '{' {
			return true
		}
		var typ, id []byte
		jsonl.EachMember(block, 0, func(m jsonl.Member) bool {
			switch {
			case jsonl.KeyIs(m.Key, "type"):
				typ = block[m.Start:m.End]
			case jsonl.KeyIs(m.Key, "id"):
				id = block[m.Start:m.End]
			}
			return true
		})
		t, tok := jsjson.StringValue(typ)
		v, vok := jsjson.StringValue(id)
		if tok && vok && v != "" && vocab.IsToolCallBlock(t) {
			ids = append(ids, v)
		}
		return true
	})
	return ids
}

// jsTruthy is JavaScript truthiness of a JSON value.
func jsTruthy(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	switch string(t) {
	case "", "null", "false", `""`, "0", "-0":
		return false
	}
	if len(t) > 0 && (t[0] >= '0' && t[0] <= '9' || t[0] == '-') {
		if f, err := jsjson.ParseNumber(string(t)); err == nil && f == 0 {
			return false
		}
	}
	return true
}

type treeEntry struct {
	id        string
	parentID  ref
	leafID    ref
	appendPar ref
	side      bool
}

// parseTreeEntry is parseSessionTranscriptTreeEntry.
func parseTreeEntry(r *Record) *treeEntry {
	if !r.Object || (r.TypeIsStr && r.Type == "session") || !r.hasParent {
		return nil
	}
	if !r.id.truthyStr() {
		return nil
	}
	parent := r.parent.asParent()
	if parent.isUndef() {
		return nil
	}
	if r.TypeIsStr && r.Type == "leaf" {
		target := r.target.asParent()
		var appendPar ref
		if !r.appendPar.present {
			appendPar = target
		} else {
			appendPar = r.appendPar.asParent()
		}
		side := false
		if r.appendMode.present {
			if !r.appendMode.side {
				return nil
			}
			side = true
		}
		if target.isUndef() || appendPar.isUndef() {
			return nil
		}
		return &treeEntry{id: r.id.s, parentID: target, leafID: target, appendPar: appendPar, side: side}
	}
	te := &treeEntry{id: r.id.s, parentID: parent, appendPar: str(r.id.s), side: r.side()}
	if r.canonical() && !r.side() {
		te.leafID = str(r.id.s)
	}
	return te
}

func parseParentless(r *Record, parent ref) *treeEntry {
	if !r.canonical() || r.hasParent || !r.id.truthyStr() {
		return nil
	}
	te := &treeEntry{id: r.id.s, parentID: parent, appendPar: str(r.id.s), side: r.side()}
	if !r.side() {
		te.leafID = str(r.id.s)
	}
	return te
}

func isLeafControl(r *Record) bool {
	return r.Object && r.TypeIsStr && r.Type == "leaf" && parseTreeEntry(r) != nil
}

// Node is one row placed in the tree.
type Node struct {
	ID        string
	ParentID  ref
	leafID    ref
	appendPar ref
	Index     int
	rec       *Record
}

// Tree is the scanned navigation of a session's rows.
type Tree struct {
	Records               []*Record
	Nodes                 []*Node
	byID                  map[string]*Node
	LeafID                string // "" when there is no leaf
	HasLeafControl        bool
	HasExplicitLeafUpdate bool
	HasInvalidLeafControl bool
}

// Scan is scanSessionTranscriptNavigation over rows in seq order.
func Scan(recs []*Record) *Tree {
	t := &Tree{Records: recs, byID: make(map[string]*Node, len(recs))}
	slab := make([]Node, 0, len(recs)) // one Node per row at most
	newNode := func(n Node) *Node {
		slab = append(slab, n)
		return &slab[len(slab)-1]
	}
	leaf, appendPar := nullRef, nullRef
	var latestReset ref
	resetDesc := map[string]bool{}
	invalid := map[string]bool{}
	known := func(r ref) bool {
		if r.isNull() {
			return true
		}
		_, ok := t.byID[r.s]
		return r.kind == refStr && ok && !invalid[r.s]
	}
	for index, rec := range recs {
		ex := parseTreeEntry(rec)
		leafCtl := ex != nil && rec.TypeIsStr && rec.Type == "leaf"
		if !latestReset.isUndef() && !leaf.isNull() && ex != nil && !ex.leafID.isUndef() && leafCtl && (ex.leafID.isNull() || !resetDesc[ex.leafID.s]) {
			c := *ex
			c.parentID, c.leafID, c.appendPar = leaf, leaf, leaf
			ex = &c
		}
		if ex != nil && !ex.leafID.isUndef() && leafCtl && (!known(ex.leafID) || !known(ex.appendPar)) {
			t.HasInvalidLeafControl = true
			invalid[ex.id] = true
			n := newNode(Node{ID: ex.id, ParentID: rec.parent.asParent(), leafID: undef, appendPar: appendPar, Index: index, rec: rec})
			if n.ParentID.isUndef() {
				n.ParentID = nullRef
			}
			t.Nodes = append(t.Nodes, n)
			t.byID[n.ID] = n
			continue
		}
		te := ex
		if te == nil {
			te = parseParentless(rec, leaf)
		}
		if te != nil && rec.canonical() {
			_, parentKnown := t.byID[te.parentID.s]
			stale := ex != nil && !te.parentID.isNull() && !(te.parentID.kind == refStr && parentKnown) && !leaf.isNull()
			var np ref
			switch {
			case !latestReset.isUndef() && !te.side && (te.parentID.isNull() || !resetDesc[te.parentID.s]):
				np = leaf
			case !te.side && stale:
				np = leaf
			case ex != nil && !te.side && te.parentID.eq(appendPar) && !leaf.eq(appendPar):
				np = leaf
			default:
				np = te.parentID
			}
			np = t.resolveCanonicalParent(np)
			if !np.eq(te.parentID) {
				c := *te
				c.parentID = np
				te = &c
			}
		}
		if te == nil {
			continue
		}
		n := newNode(Node{ID: te.id, ParentID: te.parentID, leafID: te.leafID, appendPar: te.appendPar, Index: index, rec: rec})
		t.Nodes = append(t.Nodes, n)
		t.byID[n.ID] = n
		if rec.Object && rec.TypeIsStr && rec.Type == "reset" {
			latestReset = str(n.ID)
			resetDesc = map[string]bool{n.ID: true}
		} else if !latestReset.isUndef() && n.ParentID.kind == refStr && resetDesc[n.ParentID.s] {
			resetDesc[n.ID] = true
		}
		appendPar = n.appendPar
		if !n.leafID.isUndef() {
			leaf = n.leafID
			if ex != nil {
				t.HasExplicitLeafUpdate = true
			}
		}
		if leafCtl {
			t.HasLeafControl = true
		}
	}
	if leaf.kind == refStr {
		t.LeafID = leaf.s
	}
	return t
}

func (t *Tree) resolveCanonicalParent(p ref) ref {
	var seen map[string]bool
	cur := p
	for !cur.isNull() {
		if cur.isUndef() {
			return cur
		}
		if seen[cur.s] {
			return cur
		}
		n := t.byID[cur.s]
		if n == nil || !isLeafControl(n.rec) {
			return cur
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[cur.s] = true
		cur = n.ParentID
	}
	return nullRef
}

// pathNodes is selectSessionTranscriptTreePathNodes: rows from the root to
// leaf, leaf controls left out; a cycle gives an empty path.
func (t *Tree) pathNodes(leaf string) []*Node {
	var rev []*Node
	// Each id names one node (and each node one row): a row seen twice is a cycle.
	seen := make([]bool, len(t.Records))
	cur := leaf
	for cur != "" {
		n := t.byID[cur]
		if n == nil {
			break
		}
		if seen[n.Index] {
			return nil
		}
		seen[n.Index] = true
		if !isLeafControl(n.rec) {
			rev = append(rev, n)
		}
		if n.ParentID.kind != refStr {
			break
		}
		cur = n.ParentID.s
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// ActiveIndexes is selectSessionTranscriptActiveEntries: the row indexes of
// the active branch in order (every row when no entry names a parent), with
// the nearest earlier compaction or reset prepended when the path starts
// after one. 9.6 selects entries this way for archive reads and
// leaf-controlled paths (selectSessionTranscriptLeafControlledPath), not for
// the rows it caches as the active events or the runner's context: those
// are ProjectedIndexes.
func (t *Tree) ActiveIndexes() []int {
	if !t.HasExplicitLeafUpdate {
		out := make([]int, len(t.Records))
		for i := range out {
			out[i] = i
		}
		return out
	}
	var path []*Node
	if t.LeafID != "" {
		path = t.pathNodes(t.LeafID)
	}
	active := make([]int, 0, len(path))
	for _, n := range path {
		active = append(active, n.Index)
	}
	first := 0
	if len(path) > 0 {
		first = path[0].Index
	}
	// A row already on the path (re-attached parents can order the path
	// against the rows) is never added twice: each row is one active event.
	onPath := make(map[int]bool, len(active))
	for _, i := range active {
		onPath[i] = true
	}
	for i := first - 1; i >= 0; i-- {
		r := t.Records[i]
		if onPath[i] || !r.Object || !r.TypeIsStr || (r.Type != "compaction" && r.Type != "reset") {
			continue
		}
		if r.Type == "reset" && r.id.truthyStr() && r.firstKept.truthyStr() {
			rp := t.pathNodes(r.id.s)
			for k, n := range rp {
				if n.ID == r.firstKept.s {
					var out []int
					for _, m := range rp[k:] {
						if !onPath[m.Index] {
							out = append(out, m.Index)
						}
					}
					return append(out, active...)
				}
			}
		}
		return append([]int{i}, active...)
	}
	return active
}

// ProjectedIndexes are the rows 9.6 caches as session_transcript_active_events
// (visitProjectionSource, dist/session-transcript-index-*.mjs), in active
// position order: the rows of the visible path from the leaf
// (selectSessionTranscriptTreePathNodes, leaf controls left out); when that
// path is empty, none if a leaf control exists, else every row. Only rows
// shouldProjectActiveEvent takes count: an object that is not a session
// header and is a canonical entry, a parent-linked tree entry or has a
// message member. No compaction or reset before the path is added: the
// bounded read that feeds the embedded runner (readSessionTranscriptBounded-
// ActiveContextCore) takes its events, boundary and parents from these rows,
// so a root leaf written after a compaction on another chain starts a
// context of its own.
func (t *Tree) ProjectedIndexes() []int {
	var path []*Node
	if t.LeafID != "" {
		path = t.pathNodes(t.LeafID)
	}
	var out []int
	if len(path) > 0 {
		out = make([]int, 0, len(path))
		for _, n := range path {
			if t.Records[n.Index].projected() {
				out = append(out, n.Index)
			}
		}
		return out
	}
	if t.HasLeafControl {
		return nil
	}
	for i, r := range t.Records {
		if r.projected() {
			out = append(out, i)
		}
	}
	return out
}

// projected is shouldProjectActiveEvent.
func (r *Record) projected() bool {
	if !r.Object || r.Header() {
		return false
	}
	return r.canonical() || parseTreeEntry(r) != nil || r.messageMember
}

// Result is a session's active branch and context size.
type Result struct {
	Leaf    string // active leaf id ("" none)
	LeafSeq int    // its row index (-1 none)
	// Active are the row indexes of the active branch, in order, as
	// selectSessionTranscriptActiveEntries selects them (ActiveIndexes:
	// archive and leaf-controlled reads).
	Active []int
	// ActiveEvents are the rows 9.6 caches in
	// session_transcript_active_events (ProjectedIndexes): what its bounded
	// read, and so the embedded runner, starts from.
	ActiveEvents []int
	// Branch are the row indexes of the session manager's branch: the
	// canonical entries of ActiveEvents (what buildSessionContext walks).
	Branch []int
	// Context are the messages buildSessionContext yields, in order; Pos is
	// the row index of the entry each comes from.
	Context  []ContextItem
	Messages int // model messages buildSessionContext yields: len(Context)
}

// Analyze runs the rules over rows in seq order.
func Analyze(rows [][]byte) *Result {
	recs := make([]*Record, len(rows))
	for i, l := range rows {
		recs[i] = Parse(l)
	}
	return AnalyzeRecords(recs)
}

// AnalyzeRecords is Analyze on parsed rows.
func AnalyzeRecords(recs []*Record) *Result {
	t := Scan(recs)
	res := &Result{Leaf: t.LeafID, LeafSeq: -1}
	if n := t.byID[t.LeafID]; n != nil {
		res.LeafSeq = n.Index
	}
	res.Active = t.ActiveIndexes()
	res.ActiveEvents = t.ProjectedIndexes()
	// The session manager's branch holds the canonical entries of the path.
	var branch []*Record
	for _, i := range res.ActiveEvents {
		if recs[i].canonical() && recs[i].id.truthyStr() && recs[i].indexedShape {
			branch = append(branch, recs[i])
			res.Branch = append(res.Branch, i)
		}
	}
	res.Context = ContextItems(branch)
	for k := range res.Context {
		res.Context[k].Pos = res.Branch[res.Context[k].Pos]
	}
	res.Messages = len(res.Context)
	return res
}

// Part says how an entry of the branch enters the context
// (iterateSessionContextEntries' `context`).
type Part uint8

const (
	// Current: the boundary itself or an entry after it.
	Current Part = iota
	// Retained: kept before a compaction (from its firstKeptEntryId).
	Retained
	// ResetRetained: kept before a reset by selectResetKeptEntries; a
	// message entry's message is taken as it is (excludeFromContext is not
	// read).
	ResetRetained
)

// ContextItem is one message iterateSessionContextMessages yields: the
// branch entry it comes from (an index into the branch) and how it entered.
type ContextItem struct {
	Pos  int
	Part Part
}

// ContextItems is the walk of iterateSessionContextMessages over a branch
// (packages/agent-core/src/harness/session/session.ts, with
// iterateSessionContextEntries and resolveSessionContextWindow): a
// compaction boundary first, then the kept entries in order. Each item
// becomes one message (pkg/store/context96 builds them; ContextMessages
// counts them).
func ContextItems(path []*Record) []ContextItem {
	boundary := -1
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type == "reset" || path[i].Type == "compaction" {
			boundary = i
			break
		}
	}
	firstKept := boundary
	if boundary >= 0 && path[boundary].firstKept.truthyStr() {
		for i, r := range path {
			if r.id.s == path[boundary].firstKept.s {
				if i < boundary {
					firstKept = i
				}
				break
			}
		}
	}
	var resetKept map[int]bool
	if boundary >= 0 && path[boundary].Type == "reset" {
		resetKept = selectResetKept(path, firstKept, boundary)
	}
	var out []ContextItem
	if boundary >= 0 && path[boundary].Type == "compaction" {
		// A reset boundary is yielded too, and skipped by the message walk.
		out = append(out, ContextItem{Pos: boundary, Part: Current})
	}
	for i, r := range path {
		retained := i < boundary
		if i == boundary || retained && (i < firstKept || resetKept != nil && !resetKept[i]) {
			continue
		}
		part := Current
		if retained {
			part = Retained
			if resetKept != nil {
				part = ResetRetained
			}
		}
		switch r.Type {
		case "message":
			if !r.hasMessage {
				continue
			}
			if r.messageObject && r.excludeFromCtx && !(resetKept != nil && resetKept[i]) {
				continue
			}
		case "custom_message":
		case "branch_summary":
			if !r.summaryTruthy {
				continue
			}
		default:
			continue
		}
		out = append(out, ContextItem{Pos: i, Part: part})
	}
	return out
}

// selectResetKept is selectResetKeptEntries on path[from:to]: user and
// assistant messages, and tool results that answer a call before them.
func selectResetKept(path []*Record, from, to int) map[int]bool {
	kept := map[int]bool{}
	calls := map[string]int{}
	for i := from; i < to && i < len(path); i++ {
		r := path[i]
		if r.Type != "message" || !r.messageObject {
			continue
		}
		switch r.role {
		case "user", "assistant":
			kept[i] = true
			for _, id := range r.toolCalls() {
				calls[id]++
			}
		case vocab.RoleToolResult:
			if calls[r.toolResultID] > 0 {
				calls[r.toolResultID]--
				kept[i] = true
			}
		}
	}
	return kept
}

// ExcludedFromContext says whether a row is a message entry whose message
// has excludeFromContext === true (transcriptEventContextEligibility in 9.6's
// session-transcript-index: such an active event is not context_eligible).
func (r *Record) ExcludedFromContext() bool { return r.messageObject && r.excludeFromCtx }

// Boundary says whether a row is a compaction or reset entry (the
// event_type 9.6's bounded read looks for).
func (r *Record) Boundary() bool {
	return r.Object && r.TypeIsStr && (r.Type == "compaction" || r.Type == "reset")
}

// Header says whether a row is a session header.
func (r *Record) Header() bool { return r.Object && r.TypeIsStr && r.Type == "session" }

// ID is the row's id (readNonBlankString), "" when it has none.
func (r *Record) ID() string {
	if r.id.truthyStr() {
		return r.id.s
	}
	return ""
}

// FirstKept is a boundary row's firstKeptEntryId when it is a non-blank
// string.
func (r *Record) FirstKept() (string, bool) {
	if r.firstKept.truthyStr() {
		return r.firstKept.s, true
	}
	return "", false
}

// Indexed says whether the session manager takes the row as an entry of its
// branch (isIndexedSessionEntry: a canonical entry with an id and the fields
// its type requires).
func (r *Record) Indexed() bool { return r.canonical() && r.id.truthyStr() && r.indexedShape }

// LeafControl says whether a row is a `leaf` navigation control
// (isSessionTranscriptLeafControl).
func (r *Record) LeafControl() bool { return isLeafControl(r) }
