package conversation

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// Selection says which entries Items hands out.
type Selection struct {
	// Branch is the leaf (an entry id or a line number) of the branch to
	// show; "" is the active branch.
	Branch string
	// All: every line in file order, with fork points and the active
	// branch marked.
	All bool
	// From and To bound the entries (inclusive), each an entry id or a
	// line number; "" is the start or the end.
	From, To string
}

// ErrNoSuchEntry: a --branch, --from or --to names no entry.
var ErrNoSuchEntry = errors.New("no such entry")

// ErrChanged: the transcript changed between the two passes.
var ErrChanged = errors.New("the transcript changed while it was read (a writer rewrote it); read it again")

// Items hands fn the selected entries in order, reading one at a time.
// fn's error stops the walk and is returned.
func (c *Conversation) Items(ctx context.Context, sel Selection, fn func(*Item) error) error {
	if sel.All {
		return c.allItems(ctx, sel, fn)
	}
	refs := c.active
	if sel.Branch != "" {
		leaf, ok := c.findNode(sel.Branch)
		if !ok {
			return fmt.Errorf("--branch %q: %w (give an entry id or a line number)", sel.Branch, ErrNoSuchEntry)
		}
		refs = c.branchTo(leaf)
	}
	from, to, err := c.window(refs, sel)
	if err != nil {
		return err
	}
	rd := lineReader{f: c.file}
	p := pairing{}
	for _, r := range refs[from:to] {
		if err := ctx.Err(); err != nil {
			return err
		}
		data, err := rd.at(r.offset)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", c.name(), r.line, err)
		}
		it := DecodeLine(r.line, data)
		if r.node >= 0 && !c.sk.Migrated() && !c.sk.HasID(r.node, it.ID) {
			return fmt.Errorf("%s:%d: %w", c.name(), r.line, ErrChanged)
		}
		c.mark(it, r.node)
		p.pair(it)
		if err := fn(it); err != nil {
			return err
		}
	}
	return nil
}

// branchTo is the branch from the root to node leaf.
func (c *Conversation) branchTo(leaf int) []ref {
	var rev []ref
	seen := map[int]bool{}
	for i := leaf; i >= 0 && !seen[i]; i = c.sk.Parent(i) {
		seen[i] = true
		rev = append(rev, ref{line: c.sk.Line(i), offset: c.sk.Offset(i), node: i})
	}
	for a, b := 0, len(rev)-1; a < b; a, b = a+1, b-1 {
		rev[a], rev[b] = rev[b], rev[a]
	}
	return rev
}

// window is the part of refs between --from and --to.
func (c *Conversation) window(refs []ref, sel Selection) (from, to int, err error) {
	from, to = 0, len(refs)
	find := func(spec, flag string) (int, error) {
		for k, r := range refs {
			if r.node >= 0 && c.sk.HasID(r.node, spec) && c.sk.ID(r.node) == spec {
				return k, nil
			}
		}
		if n, err := strconv.ParseInt(spec, 10, 64); err == nil {
			// --from: the first entry at or after the line; --to: the
			// last at or before it (a window outside the branch is empty)
			if flag == "--to" {
				return sort.Search(len(refs), func(k int) bool { return refs[k].line > n }) - 1, nil
			}
			return sort.Search(len(refs), func(k int) bool { return refs[k].line >= n }), nil
		}
		return 0, fmt.Errorf("%s %q: %w on the branch shown (give an entry id or a line number)", flag, spec, ErrNoSuchEntry)
	}
	if sel.From != "" {
		if from, err = find(sel.From, "--from"); err != nil {
			return 0, 0, err
		}
	}
	if sel.To != "" {
		k, err := find(sel.To, "--to")
		if err != nil {
			return 0, 0, err
		}
		to = k + 1
	}
	if to < from {
		to = from
	}
	return from, to, nil
}

// allItems streams every line in file order.
func (c *Conversation) allItems(ctx context.Context, sel Selection, fn func(*Item) error) error {
	if _, err := c.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	fromLine, toLine := int64(0), int64(1<<62)
	bound := func(spec string) (int64, error) {
		if i, ok := c.findNode(spec); ok {
			return c.sk.Line(i), nil
		}
		if n, err := strconv.ParseInt(spec, 10, 64); err == nil {
			return n, nil
		}
		return 0, fmt.Errorf("%q: %w (give an entry id or a line number)", spec, ErrNoSuchEntry)
	}
	var err error
	if sel.From != "" {
		if fromLine, err = bound(sel.From); err != nil {
			return fmt.Errorf("--from %w", err)
		}
	}
	if sel.To != "" {
		if toLine, err = bound(sel.To); err != nil {
			return fmt.Errorf("--to %w", err)
		}
	}
	rd := jsonl.NewReader(c.file)
	node := 0
	p := pairing{}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		l, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", c.name(), err)
		}
		if l.Num > toLine {
			return nil
		}
		for node < c.sk.Len() && c.sk.Line(node) < l.Num {
			node++
		}
		if l.Num < fromLine || jsonl.IsBlank(l.Data) {
			continue
		}
		it := DecodeLine(l.Num, l.Data)
		if it.Kind == KindSessionHeader && c.Header != nil && c.Header.Line == l.Num {
			continue // the header is the document's own heading
		}
		n := -1
		if node < c.sk.Len() && c.sk.Line(node) == l.Num {
			n = node
		}
		c.mark(it, n)
		k := sort.Search(len(c.activeLines), func(k int) bool { return c.activeLines[k] >= l.Num })
		it.Active = k < len(c.activeLines) && c.activeLines[k] == l.Num
		p.pair(it)
		if err := fn(it); err != nil {
			return err
		}
	}
}

// mark sets an item's fork information from its node.
func (c *Conversation) mark(it *Item, node int) {
	if node < 0 {
		return
	}
	it.Children = int(c.kids[node])
	if it.Children > 1 {
		for j := node + 1; j < c.sk.Len() && len(it.ChildIDs) < it.Children; j++ {
			if c.sk.Parent(j) == node {
				it.ChildIDs = append(it.ChildIDs, c.sk.ID(j))
			}
		}
	}
}

// pairing remembers the tool calls shown, to name and pair their results.
type pairing map[string]string

func (p pairing) pair(it *Item) {
	if it.Kind != KindMessage {
		return
	}
	for _, b := range it.Blocks {
		if b.Kind == BlockToolCall && b.CallID != "" {
			p[b.CallID] = b.Name
		}
	}
	if it.Role == transcript.RoleToolResult && it.ToolCallID != "" {
		name, ok := p[it.ToolCallID]
		it.Paired = ok
		if it.ToolName == "" {
			it.ToolName = name
		}
	}
}

// lineReader reads lines at offsets, sequentially without seeking when
// they follow each other (the usual order of a branch).
type lineReader struct {
	f   io.ReaderAt
	br  *bufio.Reader
	pos int64
	buf []byte
}

// at returns the line at off, without its line end; valid until the next call.
func (r *lineReader) at(off int64) ([]byte, error) {
	if r.br == nil || off != r.pos {
		sr := io.NewSectionReader(r.f, off, 1<<62)
		if r.br == nil {
			r.br = bufio.NewReaderSize(sr, 256<<10)
		} else {
			r.br.Reset(sr)
		}
		r.pos = off
	}
	r.buf = r.buf[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		r.buf = append(r.buf, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		r.pos += int64(len(r.buf))
		if err != nil && !(err == io.EOF && len(r.buf) > 0) {
			if err == io.EOF {
				return nil, ErrChanged
			}
			return nil, err
		}
		break
	}
	line := bytes.TrimSuffix(r.buf, []byte{'\n'})
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if cap(r.buf) > 4<<20 {
		// a huge line's buffer is not kept for the next (short) ones
		out := line
		r.buf = nil
		return out, nil
	}
	return line, nil
}

// Leaf is one branch end of a session.
type Leaf struct {
	ID     string `json:"id"`
	Line   int64  `json:"line"`
	Active bool   `json:"active,omitempty"`
	Depth  int    `json:"depth"`
}

// Leaves lists the entries no entry continues, in file order.
func (c *Conversation) Leaves() []Leaf {
	activeLeaf := int64(-1)
	if n := len(c.active); n > 0 {
		activeLeaf = c.active[n-1].line
	}
	// depth[i]: entries from the root to i (parents usually come first;
	// one that does not counts from itself)
	depth := make([]int32, c.sk.Len())
	var out []Leaf
	for i := range depth {
		depth[i] = 1
		if p := c.sk.Parent(i); p >= 0 && p < i {
			depth[i] = depth[p] + 1
		}
		if c.kids[i] != 0 {
			continue
		}
		line := c.sk.Line(i)
		out = append(out, Leaf{ID: c.sk.ID(i), Line: line, Active: line == activeLeaf, Depth: int(depth[i])})
	}
	return out
}

// Outline is the session's tree as runs of entries without forks.
// A slim skeleton has no outline of its own: the file is indexed whole
// for it (nil when that fails).
func (c *Conversation) Outline() []*transcript.Segment {
	if c.ix == nil {
		ix, err := c.fullIndex()
		if err != nil {
			return nil
		}
		c.ix = ix
	}
	return transcript.Outline(c.ix)
}

// ActiveLength is the number of entries on the active branch.
func (c *Conversation) ActiveLength() int { return len(c.active) }
