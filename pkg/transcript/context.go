package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// Context is the model context OpenClaw 2026.5.6 builds when it opens a
// transcript (pi's SessionManager.open(file).buildSessionContext()): the
// active branch as model messages, the thinking level and the model in force.
// Its JSON is the oracle's `context` output.
type Context struct {
	Messages []json.RawMessage `json:"messages"`
	// ThinkingLevel is raw JSON; nil when a thinking_level_change set it to undefined.
	ThinkingLevel json.RawMessage `json:"thinkingLevel,omitempty"`
	Model         *ModelRef       `json:"model"`
	// CycleLine is the line of an entry on a cycle of parentId links the
	// active branch runs into (0: none). OpenClaw's buildSessionContext
	// loops forever there; Messages holds the branch up to the cycle.
	CycleLine int64 `json:"-"`
}

// ModelRef is the provider and model id in force on the active branch.
type ModelRef struct {
	Provider json.RawMessage `json:"provider,omitempty"`
	ModelID  json.RawMessage `json:"modelId,omitempty"`
}

// ContextPlan is the part of the context that can be computed from the index
// alone: which entries produce messages and the settings in force.
type ContextPlan struct {
	// Entries are node indexes, in message order. Compaction is the index of the
	// compaction whose summary comes first (-1: none).
	Entries       []int
	Compaction    int
	ThinkingLevel json.RawMessage
	Model         *ModelRef
	CycleLine     int64 // see Context.CycleLine
}

// PlanContext walks the active branch as buildSessionContext does. A file
// whose header is invalid opens as an empty session.
func PlanContext(ix *Index, t *Tree) *ContextPlan {
	cp := &ContextPlan{Compaction: -1, ThinkingLevel: json.RawMessage(`"off"`)}
	if ix.Header == nil {
		return cp
	}
	path, cycle := t.PathCycle()
	if cycle && len(path) > 0 {
		// the walk ran into the cycle at path[0]'s parent: name the
		// cycle's entry written first, as inspect does
		cp.CycleLine = ix.Nodes[t.CycleFirst(t.parent(path[0]))].Line
	}
	model := -1 // the last entry on the path that sets the model
	for _, i := range path {
		n := &ix.Nodes[i]
		switch {
		case n.Type == TypeThinkingLevelChange:
			cp.ThinkingLevel = n.Extra.ThinkingLevelRaw
		case n.Type == TypeModelChange, n.Type == TypeMessage && n.Role() == RoleAssistant:
			model = i
		case n.Type == TypeCompaction:
			cp.Compaction = i
		}
	}
	if model >= 0 {
		n := &ix.Nodes[model]
		cp.Model = &ModelRef{Provider: n.Extra.ProviderRaw, ModelID: n.Extra.ModelRaw}
	}
	produces := func(i int) bool {
		n := &ix.Nodes[i]
		switch n.Type {
		case TypeMessage, TypeCustomMessage:
			return true
		case TypeBranchSummary:
			return n.SummaryTruthy
		}
		return false
	}
	if cp.Compaction < 0 {
		cp.Entries = make([]int, 0, len(path))
		for _, i := range path {
			if produces(i) {
				cp.Entries = append(cp.Entries, i)
			}
		}
		return cp
	}
	comp := cp.Compaction
	compID := t.id(comp)
	firstKept := ix.Nodes[comp].Extra.FirstKept
	if t.linear {
		firstKept = Key{}
		if k := ix.Nodes[comp].Extra.FirstKeptIndex; k >= 0 {
			for j := range ix.Nodes {
				if int(ix.Nodes[j].FileIndex) == k {
					firstKept = t.id(j)
					break
				}
			}
		}
	}
	compIdx := -1
	for p, i := range path {
		if ix.Nodes[i].Type == TypeCompaction && t.id(i) == compID {
			compIdx = p
			break
		}
	}
	found := false
	for p := 0; p < compIdx; p++ {
		i := path[p]
		if t.id(i) == firstKept {
			found = true
		}
		if found && produces(i) {
			cp.Entries = append(cp.Entries, i)
		}
	}
	for p := compIdx + 1; p < len(path); p++ {
		if produces(path[p]) {
			cp.Entries = append(cp.Entries, path[p])
		}
	}
	return cp
}

// MessageCount is the number of model messages the context holds.
func (cp *ContextPlan) MessageCount() int {
	n := len(cp.Entries)
	if cp.Compaction >= 0 {
		n++
	}
	return n
}

// LoadContext opens a transcript (plain, .gz or .zst; "-" is stdin) and builds
// its context. It reads the file twice (index, then the lines on the active
// branch) and holds only the branch's messages in memory; stdin is read once
// into memory.
func LoadContext(path string, stdin io.Reader) (*Context, error) {
	open := func() (io.ReadCloser, error) { return jsonl.Open(path, stdin) }
	if path == "-" {
		src, err := jsonl.Open(path, stdin)
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(src)
		src.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", "<stdin>", err)
		}
		open = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	}
	src, err := open()
	if err != nil {
		return nil, err
	}
	ix, err := Scan(src, ScanOptions{})
	src.Close()
	if err != nil {
		return nil, atFile(path, err)
	}
	return BuildContext(ix, open)
}

// BuildContext builds the context from an index, re-reading the lines of the
// entries on the active branch through open.
func BuildContext(ix *Index, open func() (io.ReadCloser, error)) (*Context, error) {
	return contextLinesOf(ix, PlanContext(ix, NewTree(ix))).read(open)
}

// contextLines is what reading a context needs of its index: the lines of
// the entries whose messages it holds, in file order, and the settings in
// force. It is small (a few words per context message), so a Summary keeps
// it and builds the context without indexing the file again.
type contextLines struct {
	want       []wantedLine
	entries    int  // the messages of entries (the compaction's summary apart)
	compaction bool // a compaction's summary comes first
	thinking   json.RawMessage
	model      *ModelRef
	cycleLine  int64
}

// wantedLine is a line to read again: k is its entry's position in the
// plan's entries, or -1 for the compaction whose summary comes first.
type wantedLine struct {
	line int64
	k    int
	typ  string
}

func contextLinesOf(ix *Index, cp *ContextPlan) *contextLines {
	cl := &contextLines{entries: len(cp.Entries), compaction: cp.Compaction >= 0,
		thinking: cp.ThinkingLevel, model: cp.Model, cycleLine: cp.CycleLine}
	if cp.MessageCount() == 0 {
		return cl
	}
	cl.want = make([]wantedLine, 0, cp.MessageCount())
	for k, i := range cp.Entries {
		cl.want = append(cl.want, wantedLine{ix.Nodes[i].Line, k, ix.Nodes[i].Type})
	}
	if cp.Compaction >= 0 {
		cl.want = append(cl.want, wantedLine{ix.Nodes[cp.Compaction].Line, -1, TypeCompaction})
	}
	sort.Slice(cl.want, func(a, b int) bool { return cl.want[a].line < cl.want[b].line })
	return cl
}

// read reads the wanted lines through open and builds the context.
func (cl *contextLines) read(open func() (io.ReadCloser, error)) (*Context, error) {
	n := cl.entries
	if cl.compaction {
		n++
	}
	ctx := &Context{Messages: make([]json.RawMessage, 0, n), ThinkingLevel: cl.thinking, Model: cl.model, CycleLine: cl.cycleLine}
	if n == 0 {
		return ctx, nil
	}
	want := cl.want
	byEntry := make([]json.RawMessage, cl.entries)
	var summary json.RawMessage
	src, err := open()
	if err != nil {
		return nil, err
	}
	defer src.Close()
	rd := jsonl.NewReader(src)
	for next := 0; next < len(want); {
		line, err := rd.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("transcript changed while it was read")
		}
		if err != nil {
			return nil, err
		}
		if line.Num != want[next].line {
			continue
		}
		k, typ := want[next].k, want[next].typ
		for next < len(want) && want[next].line == line.Num {
			next++
		}
		data := bytes.TrimPrefix(line.Data, bom)
		if k >= 0 && typ == TypeMessage {
			// Only the message itself is needed: skip the rest without copying it.
			var msg []byte
			jsonl.Members(data, func(key, v []byte) bool {
				if string(key) == "message" {
					msg = v
				}
				return true
			})
			byEntry[k] = entryMessage(TypeMessage, &rawEntry{Message: msg})
			continue
		}
		var e rawEntry
		e.decode(data)
		if k < 0 {
			summary = compactionSummaryMessage(&e)
			continue
		}
		byEntry[k] = entryMessage(typ, &e)
	}
	if cl.compaction {
		ctx.Messages = append(ctx.Messages, summary)
	}
	ctx.Messages = append(ctx.Messages, byEntry...)
	return ctx, nil
}

func entryMessage(typ string, e *rawEntry) json.RawMessage {
	switch typ {
	case TypeMessage:
		if m := jsonl.TrimSpace(e.Message); len(m) > 0 {
			return append(json.RawMessage(nil), m...)
		}
		return json.RawMessage("null")
	case TypeCustomMessage:
		return object(
			field{"role", json.RawMessage(`"custom"`)},
			field{"customType", e.CustomType},
			field{"content", e.Content},
			field{"display", e.Display},
			field{"details", e.Details},
			field{"timestamp", jsDateMillis(e.Timestamp)},
		)
	case TypeBranchSummary:
		return object(
			field{"role", json.RawMessage(`"branchSummary"`)},
			field{"summary", e.Summary},
			field{"fromId", e.FromID},
			field{"timestamp", jsDateMillis(e.Timestamp)},
		)
	}
	return json.RawMessage("null")
}

func compactionSummaryMessage(e *rawEntry) json.RawMessage {
	return object(
		field{"role", json.RawMessage(`"compactionSummary"`)},
		field{"summary", e.Summary},
		field{"tokensBefore", e.TokensBefore},
		field{"timestamp", jsDateMillis(e.Timestamp)},
	)
}

type field struct {
	key string
	val []byte
}

// object writes a JSON object in the given key order, leaving out absent
// values as JSON.stringify leaves out undefined.
func object(fields ...field) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for _, f := range fields {
		v := jsonl.TrimSpace(f.val)
		if len(v) == 0 {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(strconv.Quote(f.key))
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// jsDateMillis is `new Date(v).getTime()` as JSON: a number, or null for NaN.
func jsDateMillis(raw json.RawMessage) json.RawMessage {
	raw = jsonl.TrimSpace(raw)
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	var ms float64
	switch raw[0] {
	case '"':
		s, _ := str(raw)
		t, ok := parseJSDate(s)
		if !ok {
			return json.RawMessage("null")
		}
		ms = float64(t.UnixMilli())
	case 'n': // new Date(null) is the epoch
		ms = 0
	case 't':
		ms = 1
	case 'f':
		ms = 0
	case '{', '[':
		return json.RawMessage("null")
	default:
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || math.IsNaN(f) || math.Abs(f) > 8.64e15 {
			return json.RawMessage("null")
		}
		ms = math.Trunc(f)
	}
	return json.RawMessage(strconv.FormatFloat(ms, 'f', -1, 64))
}

// parseJSDate accepts the ISO forms JavaScript's Date parses reliably.
func parseJSDate(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.000Z07:00", "2006-01-02T15:04Z07:00", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// ParseJSDate is Date.parse of a string, for the ISO forms JavaScript's Date
// parses reliably: ok is false where Date.parse gives NaN.
func ParseJSDate(s string) (time.Time, bool) { return parseJSDate(s) }
