package conversation

import (
	"bufio"
	"bytes"
	"encoding/json"
	"hash/maphash"
	"io"
	"slices"
	"strconv"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// skeleton is what Items, Leaves and the selection flags need of a
// session's entries: their lines, offsets, parents and ids, in file order.
// fullSkeleton is transcript's index and tree (every rule of pi's
// SessionManager); slimSkeleton keeps 24 bytes an entry for the usual
// transcript (see scanSlim), so that a transcript of any size is opened in
// little memory.
type skeleton interface {
	Len() int
	Line(i int) int64
	Offset(i int) int64
	// Parent is node i's parent as OpenClaw links it, -1 for none.
	Parent(i int) int
	// ID is node i's id as text (its line may be read again).
	ID(i int) string
	// HasID reports whether node i's id is id (for a slim skeleton: has
	// its 64-bit hash, which tells a changed file from the one indexed).
	HasID(i int, id string) bool
	// Migrated: OpenClaw migrates the file on open (ids may be synthetic).
	Migrated() bool
	// Path is the active branch by 2026.5.6's rules.
	Path() []int
}

// fullSkeleton is transcript's index and tree.
type fullSkeleton struct {
	ix   *transcript.Index
	tree *transcript.Tree
}

func (f *fullSkeleton) Len() int                    { return len(f.ix.Nodes) }
func (f *fullSkeleton) Line(i int) int64            { return f.ix.Nodes[i].Line }
func (f *fullSkeleton) Offset(i int) int64          { return f.ix.Nodes[i].Offset }
func (f *fullSkeleton) Parent(i int) int            { return f.tree.Parent(i) }
func (f *fullSkeleton) ID(i int) string             { return f.ix.Nodes[i].ID().String() }
func (f *fullSkeleton) HasID(i int, id string) bool { return f.ID(i) == id }
func (f *fullSkeleton) Migrated() bool              { return f.tree.Migrated }
func (f *fullSkeleton) Path() []int                 { return f.tree.Path() }

// slimSkeleton is the skeleton of a transcript every line of which is a
// JSON object with a plain string id and a plain string (or null, or no)
// parentId, under a version-3 header: each entry's
// line, offset, parent and the hash of its id. Ids are read back from the
// file when they are needed as text (fork points, leaves).
type slimSkeleton struct {
	file  io.ReaderAt
	seed  maphash.Seed
	nodes chunked[slimNode]
	path  []int
}

// slimNode is one entry of a slim skeleton: 24 bytes.
type slimNode struct {
	offset int64
	hash   uint64 // of its id
	line   uint32
	parent int32 // -1: none
}

// chunked is a list grown in chunks of its own: no copy as it grows, and
// no garbage of the arrays outgrown (a slice's growth holds the old array
// and the new one at once).
type chunked[T any] struct {
	chunks [][]T
	n      int
}

const chunkBits = 15

func (c *chunked[T]) append(v T) {
	switch {
	case len(c.chunks) == 0:
		// the first chunk grows as a slice does (a small transcript
		// allocates little), up to a chunk's size
		c.chunks = append(c.chunks, make([]T, 0, 64))
	case c.n>>chunkBits == len(c.chunks):
		c.chunks = append(c.chunks, make([]T, 0, 1<<chunkBits))
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = append(*last, v)
	c.n++
}

func (c *chunked[T]) at(i int) *T { return &c.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

func (s *slimSkeleton) Len() int              { return s.nodes.n }
func (s *slimSkeleton) Line(i int) int64      { return int64(s.nodes.at(i).line) }
func (s *slimSkeleton) Offset(i int) int64    { return s.nodes.at(i).offset }
func (s *slimSkeleton) Migrated() bool        { return false }
func (s *slimSkeleton) Path() []int           { return s.path }
func (s *slimSkeleton) Parent(i int) int      { return int(s.nodes.at(i).parent) }
func (s *slimSkeleton) hash(id []byte) uint64 { return maphash.Bytes(s.seed, id) }

func (s *slimSkeleton) HasID(i int, id string) bool {
	return s.nodes.at(i).hash == maphash.String(s.seed, id)
}

func (s *slimSkeleton) ID(i int) string {
	br := bufio.NewReaderSize(io.NewSectionReader(s.file, s.Offset(i), 1<<62), 4096)
	data, err := br.ReadBytes('\n')
	if err != nil && !(err == io.EOF && len(data) > 0) {
		return ""
	}
	tp := jsjson.Tape{MaxDepth: 1}
	if !tp.Parse(data) {
		return "" // the file changed since the first pass
	}
	m, ok := tapeMembers(&tp, data)
	if !ok || m.id == nil {
		return ""
	}
	return string(m.id)
}

// members are the top-level values scanSlim reads of an entry: a string's
// bytes between its quotes (nil: absent), and whether each was a plain
// string (no escape) or null.
type members struct {
	typ, id, parent, version []byte
	// odd: a member scanSlim does not decide on (an escaped key, an id or
	// parentId that is not a plain string, a type with an escape)
	odd        bool
	parentNull bool
}

// tapeMembers reads an object's top-level "type", "id", "parentId" and
// "version" members (the last of each, as JSON.parse keeps it) off the
// tape of a line tp parsed (MaxDepth 1): ok is false when the line is not
// an object, or its members were not recorded.
func tapeMembers(tp *jsjson.Tape, data []byte) (m members, ok bool) {
	if tp.Unrecorded || len(tp.Nodes) == 0 || tp.Nodes[0].Kind != '{' || tp.Nodes[0].Flags&jsjson.Pruned != 0 {
		return m, false
	}
	for k := 1; k < len(tp.Nodes); k = int(tp.Nodes[k].Next) {
		n := &tp.Nodes[k]
		if n.Flags&jsjson.KeyEscaped != 0 {
			m.odd = true
			continue
		}
		m.set(n.Key(data), n.Value(data))
	}
	return m, true
}

// set notes one member (a later one replaces an earlier one of its key).
func (m *members) set(key, val []byte) {
	switch string(key) {
	case "type":
		m.typ = plainString(val, &m.odd)
	case "id":
		m.id = plainString(val, &m.odd)
		if m.id == nil {
			m.odd = true
		}
	case "parentId":
		m.parentNull = string(val) == "null"
		m.parent = nil
		if !m.parentNull {
			m.parent = plainString(val, &m.odd)
			if m.parent == nil {
				m.odd = true
			}
		}
	case "version":
		m.version = val
	}
}

// plainString is a JSON string value's bytes without quotes when it has no
// escape; else nil, and odd is set when it is a string with an escape (or
// not a string).
func plainString(val []byte, odd *bool) []byte {
	if len(val) < 2 || val[0] != '"' {
		*odd = true
		return nil
	}
	s := val[1 : len(val)-1]
	if bytes.IndexByte(s, '\\') >= 0 {
		*odd = true
		return nil
	}
	if s == nil {
		s = []byte{}
	}
	return s
}

// scanSlim makes the slim skeleton of the transcript r, and its header,
// line and byte counts, in one pass that keeps no entry's content. ok is
// false when the transcript is one the slim skeleton does not decide on:
// a line that is not a JSON object JSON.parse accepts (OpenClaw skips
// malformed lines), a line with bytes that are not UTF-8,
// white space or a BOM before the first entry, a header that is missing,
// invalid or older than version 3 (OpenClaw migrates those), an id or
// parentId that is not a plain string, two ids of one 64-bit hash, or
// more lines than fit in 32 bits; transcript's full index is then used.
func scanSlim(r io.Reader, file io.ReaderAt) (s *slimSkeleton, h *transcript.Header, lines, size int64, ok bool, err error) {
	s = &slimSkeleton{file: file, seed: maphash.MakeSeed()}
	rd := jsonl.NewReaderSize(r, 256<<10) // grows for a longer line
	tp := &jsjson.Tape{MaxDepth: 1}
	parsed := 0
	var pending []int32 // entries whose parent is not the entry before them
	var parentHashes []uint64
	for {
		l, rerr := rd.Next()
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, nil, 0, 0, false, rerr
		}
		lines, size = l.Num, l.Offset+l.Len()
		if jsonl.IsBlank(l.Data) {
			continue
		}
		data := l.Data
		if l.Num > 1<<31 || !tp.Parse(data) || (parsed == 0 && data[0] != '{') {
			return nil, nil, 0, 0, false, nil
		}
		if tp.BadUTF8 {
			// an id or parentId may hold bytes JavaScript reads as U+FFFD:
			// the full index compares ids as it does
			return nil, nil, 0, 0, false, nil
		}
		m, isObj := tapeMembers(tp, data)
		if !isObj || m.odd {
			return nil, nil, 0, 0, false, nil
		}
		parsed++
		if parsed == 1 {
			if h, ok = slimHeader(l.Num, data, m); !ok {
				return nil, nil, 0, 0, false, nil
			}
			continue
		}
		if string(m.typ) == transcript.TypeSession {
			continue // later session lines are not entries
		}
		if m.id == nil {
			return nil, nil, 0, 0, false, nil
		}
		i := s.nodes.n
		n := slimNode{offset: l.Offset, hash: s.hash(m.id), line: uint32(l.Num), parent: -1}
		// a root when parentId is null, "" or none; else the entry before
		// is the parent (nearly always; an id given twice is seen to
		// below), else the parent is looked up at the end
		if len(m.parent) > 0 {
			switch ph := s.hash(m.parent); {
			case i > 0 && s.nodes.at(i-1).hash == ph:
				n.parent = int32(i - 1)
			default:
				pending = append(pending, int32(i))
				parentHashes = append(parentHashes, ph)
			}
		}
		s.nodes.append(n)
	}
	if parsed == 0 || h == nil {
		return nil, nil, 0, 0, false, nil
	}
	// The parents not found on the line before, and the ids given twice,
	// by an index sorted by the top half of each entry's hash, then file
	// order: one uint64 an entry (the top bits of its hash over its index),
	// which sorts without a comparison function.
	hashOf := func(i int32) uint64 { return s.nodes.at(int(i)).hash }
	low := uint64(1)<<keyIndexBits - 1
	keys := make([]uint64, s.nodes.n)
	for i := range keys {
		keys[i] = hashOf(int32(i))&^low | uint64(i)
	}
	slices.Sort(keys)
	entry := func(k uint64) int32 { return int32(k & low) }
	// lastOf maps the hash of an id given twice to the last entry with it
	// (a parentId names the last entry with its id, as a JavaScript Map
	// keeps it). The entries of one hash are read back to check that they
	// have one id (two ids of one 64-bit hash: the full index decides).
	var lastOf map[uint64]int32
	for g := 0; g < len(keys); {
		end := g + 1
		for end < len(keys) && keys[end]&^low == keys[g]&^low {
			end++
		}
		if end-g > 1 {
			first := map[uint64]int32{}
			for _, k := range keys[g:end] { // in file order
				i := entry(k)
				h := hashOf(i)
				f, seen := first[h]
				if !seen {
					first[h] = i
					continue
				}
				if s.ID(int(i)) != s.ID(int(f)) {
					return nil, nil, 0, 0, false, nil
				}
				if lastOf == nil {
					lastOf = map[uint64]int32{}
				}
				lastOf[h] = i
			}
		}
		g = end
	}
	if lastOf != nil {
		for i := 1; i < s.nodes.n; i++ {
			if n := s.nodes.at(i); n.parent == int32(i-1) {
				if last, ok := lastOf[hashOf(int32(i-1))]; ok {
					n.parent = last
				}
			}
		}
	}
	for k, i := range pending {
		ph := parentHashes[k]
		n := s.nodes.at(int(i))
		n.parent = -1 // a parentId that names no entry
		if last, ok := lastOf[ph]; ok {
			n.parent = last
			continue
		}
		// the one entry with the hash, among those of its top half
		top := ph &^ low
		for j, _ := slices.BinarySearch(keys, top); j < len(keys) && keys[j]&^low == top; j++ {
			if hashOf(entry(keys[j])) == ph {
				n.parent = entry(keys[j])
			}
		}
	}
	// the active branch: from the last entry (pi's leaf) to the root,
	// stopping where a cycle of parentId links would revisit an entry
	if n := s.nodes.n; n > 0 {
		seen := make([]bool, n)
		var rev []int
		for cur := n - 1; cur >= 0 && !seen[cur]; cur = s.Parent(cur) {
			seen[cur] = true
			rev = append(rev, cur)
		}
		slices.Reverse(rev)
		s.path = rev
	}
	return s, h, lines, size, true, nil
}

// keyIndexBits is how many low bits of scanSlim's sort keys hold the
// entry's index (at least 32: at most 2^31 lines); a test makes it larger,
// so that entries of different hashes share a key's top bits.
var keyIndexBits = 32

// slimHeader is the session header of the first line, when it is one
// scanSlim decides on (version 3 or later, given as a number).
func slimHeader(line int64, data []byte, m members) (*transcript.Header, bool) {
	if string(m.typ) != transcript.TypeSession || m.id == nil || m.version == nil {
		return nil, false
	}
	v, err := strconv.ParseFloat(string(m.version), 64)
	if err != nil || v < 3 {
		return nil, false
	}
	var f struct {
		ID        string          `json:"id"`
		Timestamp json.RawMessage `json:"timestamp"`
		Cwd       json.RawMessage `json:"cwd"`
	}
	if json.Unmarshal(data, &f) != nil {
		return nil, false
	}
	h := &transcript.Header{Line: line, ID: f.ID, Version: json.Number(m.version), Raw: bytes.Clone(data)}
	_ = json.Unmarshal(f.Timestamp, &h.Timestamp) // a string, else none
	_ = json.Unmarshal(f.Cwd, &h.Cwd)
	return h, true
}
