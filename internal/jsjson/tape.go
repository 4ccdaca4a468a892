package jsjson

import (
	"encoding/binary"
	"math"
	"math/bits"
	"unicode/utf8"
)

// A Tape is the structure of one JSON text, found in one validating pass:
// JSON.parse's accept/reject decision and, for every value down to MaxDepth
// levels (the root is level 0), its offsets in the text and, for an object
// member, its key's. Nothing is copied or decoded: the hot paths (a line of
// a transcript: is it JSON, and what are its type, id, parentId, message
// role, content blocks?) read the members they need off the tape instead of
// walking the text again. A Tape is reused from text to text; it is not
// safe for concurrent use.
//
// Like JSON.parse, Parse accepts invalid UTF-8 in strings (Node decodes it
// to U+FFFD first: the tape reports it in BadUTF8), lone surrogate escapes,
// duplicate keys, numbers of any size, top-level scalars, any nesting depth
// and JSON white space around the value; it rejects raw control characters
// in strings, bad escapes, a byte-order mark and anything after the value.
type Tape struct {
	// Nodes are the recorded values in document order: a container is
	// followed by its recorded members or elements.
	Nodes []Node
	// MaxDepth is the deepest level recorded (0: the root only; a negative
	// value records nothing: validation alone). At most MaxTapeDepth.
	MaxDepth int
	// MaxNodes bounds len(Nodes) (0: DefaultMaxNodes): a container whose
	// children would pass it is marked Pruned instead, so that a hostile
	// line of a billion elements costs no memory.
	MaxNodes int
	// NonASCII: some string holds a byte >= 0x80.
	NonASCII bool
	// BadUTF8: some string holds bytes that are not UTF-8 (Node reads each
	// such sequence as U+FFFD).
	BadUTF8 bool
	// Depth is the deepest nesting of the text (0: a scalar).
	Depth int
	// RecordLimit is the longest text whose values are recorded (0, and at
	// most: 2 GiB - 1, what 32-bit offsets reach).
	RecordLimit int
	// Unrecorded: the text was longer than RecordLimit: it was validated and
	// nothing recorded (Nodes is empty); read it from the text.
	Unrecorded bool
	kinds      []uint64 // bit per nesting level beyond 64: the level is an object
}

// MaxTapeDepth is the deepest MaxDepth a Tape records.
const MaxTapeDepth = 15

// DefaultMaxNodes is a Tape's node budget when MaxNodes is 0.
const DefaultMaxNodes = 1 << 16

// Node is one recorded value of a Tape. Offsets are 32-bit (a tape of a
// line of 40 values is a kilobyte, written for every line); a text longer
// than that records nothing (Tape.Unrecorded).
type Node struct {
	Start, End int32 // the value is text[Start:End]
	// KeyStart and KeyEnd delimit an object member's key between its quotes
	// (raw: escapes not decoded, see KeyEscaped); both 0 for the root and
	// array elements.
	KeyStart, KeyEnd int32
	// Next is the index of the node after this value and its recorded
	// children: its next sibling, if it has one.
	Next  int32
	Kind  byte      // the value's first byte: { [ " t f n - or a digit
	Flags NodeFlags // what else is known of it
}

// NodeFlags say what a Node holds.
type NodeFlags uint8

const (
	// KeyEscaped: the member's key holds a backslash escape.
	KeyEscaped NodeFlags = 1 << iota
	// Escaped: the string value holds a backslash escape.
	Escaped
	// Pruned: a non-empty container whose children are not recorded
	// (deeper than MaxDepth, or past MaxNodes).
	Pruned
)

// Key returns n's raw key text in text (nil for a value that is no member).
func (n *Node) Key(text []byte) []byte {
	if n.KeyStart == 0 {
		return nil
	}
	return text[n.KeyStart:n.KeyEnd]
}

// KeyText returns n's key in text as JavaScript reads it: the raw key when
// it holds no escape (no look for a backslash: the tape saw none), else
// decoded (empty for a value that is no member). The common case is
// inlined where it is called: it is asked for every member read.
func (n *Node) KeyText(text []byte) []byte {
	if n.Flags&KeyEscaped != 0 {
		return n.escapedKey(text)
	}
	return text[n.KeyStart:n.KeyEnd]
}

// escapedKey is KeyText of a key that holds an escape.
func (n *Node) escapedKey(text []byte) []byte {
	if s, ok := StringValue(text[n.KeyStart-1 : n.KeyEnd+1]); ok {
		return []byte(s)
	}
	return n.Key(text)
}

// Value returns n's value text.
func (n *Node) Value(text []byte) []byte { return text[n.Start:n.End] }

// Valid reports whether JSON.parse accepts text (see Tape).
func Valid(text []byte) bool {
	var t Tape
	t.MaxDepth = -1
	return t.Parse(text)
}

// Parse validates text and records its structure. On false (JSON.parse
// would throw) the recorded nodes are meaningless.
//
// It is one loop of gotos, a state per place in the grammar (a value, after
// a value, a key, after a key, a container's end), so that its state stays
// in registers.
func (t *Tape) Parse(text []byte) bool {
	maxDepth := min(t.MaxDepth, MaxTapeDepth)
	limit := t.RecordLimit
	if limit <= 0 || limit > math.MaxInt32 {
		limit = math.MaxInt32
	}
	t.Unrecorded = len(text) > limit
	if t.Unrecorded {
		maxDepth = -1
	}
	maxNodes := t.MaxNodes
	if maxNodes <= 0 {
		maxNodes = DefaultMaxNodes
	}
	nodes := t.Nodes[:0]
	kinds := t.kinds[:0]
	nonASCII, badUTF8, deepest := false, false, 0
	var shallow uint64 // kind bits of levels 1-64 (set: an object)
	// open[d] is the node of the container open at level d (-1: not recorded)
	var open [MaxTapeDepth + 1]int
	b, n := text, len(text)
	i, d := 0, 0 // position, open containers
	inObj := false
	overflow := false // a value went unrecorded for MaxNodes: the open containers are Pruned
	keyS, keyE := 0, 0
	var keyF, strF NodeFlags
	var c byte
	inKey := false // the string being scanned is a member's key
	strStart := 0
	resume := 0 // where scanStringAt goes on in the string being scanned

value:
	if i < n && b[i] <= ' ' {
		for i < n && isWS(b[i]) {
			i++
		}
	}
	if i >= n {
		goto fail
	}
	c = b[i]
	if c == '"' {
		inKey = false
		goto scanStr
	}
	switch {
	case c == '{' || c == '[':
		idx := -1
		if d <= maxDepth {
			if len(nodes) < maxNodes {
				idx = len(nodes)
				nodes = append(nodes, Node{}) // filled where it lands: see leaf
				nd := &nodes[idx]
				nd.Start, nd.KeyStart, nd.KeyEnd, nd.Kind, nd.Flags = int32(i), int32(keyS), int32(keyE), c, keyF
			} else {
				overflow = true
			}
		}
		if d <= MaxTapeDepth {
			open[d] = idx
		}
		d++
		if d > deepest {
			deepest = d
		}
		inObj = c == '{'
		if d <= 64 {
			shallow = shallow&^(1<<(d-1)) | boolBit(inObj)<<(d-1)
		} else {
			kinds = setKind(kinds, d-65, inObj)
		}
		i++
		if i < n && b[i] <= ' ' {
			for i < n && isWS(b[i]) {
				i++
			}
		}
		if i < n && (b[i] == '}' && inObj || b[i] == ']' && !inObj) {
			goto closeContainer
		}
		if inObj {
			goto key
		}
		keyS, keyE, keyF = 0, 0, 0
		goto value
	case c == 't':
		if i+4 > n || b[i+1] != 'r' || b[i+2] != 'u' || b[i+3] != 'e' {
			goto fail
		}
		nodes, overflow = leaf(nodes, overflow, d <= maxDepth, maxNodes, i, i+4, keyS, keyE, keyF, c)
		i += 4
	case c == 'f':
		if i+5 > n || b[i+1] != 'a' || b[i+2] != 'l' || b[i+3] != 's' || b[i+4] != 'e' {
			goto fail
		}
		nodes, overflow = leaf(nodes, overflow, d <= maxDepth, maxNodes, i, i+5, keyS, keyE, keyF, c)
		i += 5
	case c == 'n':
		if i+4 > n || b[i+1] != 'u' || b[i+2] != 'l' || b[i+3] != 'l' {
			goto fail
		}
		nodes, overflow = leaf(nodes, overflow, d <= maxDepth, maxNodes, i, i+4, keyS, keyE, keyF, c)
		i += 4
	case c >= '1' && c <= '9':
		// an integer inline; a fraction or exponent is scanNumber's
		j := i + 1
		for j < n && b[j]-'0' < 10 {
			j++
		}
		if j < n && (b[j] == '.' || b[j]|0x20 == 'e') {
			if j = scanNumber(b, i); j < 0 {
				goto fail
			}
		}
		nodes, overflow = leaf(nodes, overflow, d <= maxDepth, maxNodes, i, j, keyS, keyE, keyF, c)
		i = j
	case c == '0' && (i+1 >= n || b[i+1] == ',' || b[i+1] == '}' || b[i+1] == ']'):
		// a plain 0 (a usage or cost field): no call of scanNumber
		nodes, overflow = leaf(nodes, overflow, d <= maxDepth, maxNodes, i, i+1, keyS, keyE, keyF, c)
		i++
	case c == '-' || c == '0':
		j := scanNumber(b, i)
		if j < 0 {
			goto fail
		}
		nodes, overflow = leaf(nodes, overflow, d <= maxDepth, maxNodes, i, j, keyS, keyE, keyF, c)
		i = j
	default:
		goto fail
	}

afterValue:
	if i < n && b[i] <= ' ' {
		for i < n && isWS(b[i]) {
			i++
		}
	}
	if d == 0 {
		if i != n {
			goto fail
		}
		t.Nodes, t.kinds = nodes, kinds
		t.NonASCII, t.BadUTF8, t.Depth = nonASCII, badUTF8, deepest
		return true
	}
	if i >= n {
		goto fail
	}
	c = b[i]
	if c == ',' {
		i++
		if inObj {
			goto key
		}
		keyS, keyE, keyF = 0, 0, 0
		goto value
	}
	if c == '}' && inObj || c == ']' && !inObj {
		goto closeContainer
	}
	goto fail

closeContainer:
	// b[i] closes the container open at level d-1.
	if d-1 <= maxDepth {
		if idx := open[d-1]; idx >= 0 {
			nodes[idx].End = int32(i + 1)
			nodes[idx].Next = int32(len(nodes))
			if (overflow || d-1 == maxDepth) && !emptyContainer(b, int(nodes[idx].Start), i) {
				nodes[idx].Flags |= Pruned
			}
		}
	}
	i++
	d--
	if d > 0 {
		if d <= 64 {
			inObj = shallow>>(d-1)&1 == 1
		} else {
			k := d - 65
			inObj = kinds[k>>6]>>(k&63)&1 == 1
		}
	}
	goto afterValue

key:
	if i < n && b[i] <= ' ' {
		for i < n && isWS(b[i]) {
			i++
		}
	}
	if i >= n || b[i] != '"' {
		goto fail
	}
	inKey = true
	goto scanStr

keyDone:
	if i < n && b[i] <= ' ' {
		for i < n && isWS(b[i]) {
			i++
		}
	}
	if i >= n || b[i] != ':' {
		goto fail
	}
	i++
	goto value

scanStr:
	// b[i] == '"'
	strStart = i
	// a key, an id, a role: a string of at most 15 plain ASCII bytes ends
	// in the first two words after its quote; it is found here rather than
	// in a call of scanStringAt
	// (else scanStringAt goes on from the first byte these words did not
	// pass: the words are not looked at again)
	strF = 0
	resume = i + 1
	if i+17 <= n {
		if m := specialBytes(binary.LittleEndian.Uint64(b[i+1:])); m != 0 {
			if resume = i + 1 + bits.TrailingZeros64(m)>>3; b[resume] == '"' {
				i = resume + 1
				goto strDone
			}
		} else if m := specialBytes(binary.LittleEndian.Uint64(b[i+9:])); m != 0 {
			if resume = i + 9 + bits.TrailingZeros64(m)>>3; b[resume] == '"' {
				i = resume + 1
				goto strDone
			}
		} else {
			resume = i + 17
		}
	}
	{
		j, f := scanStringAt(b, resume)
		if j < 0 {
			goto fail
		}
		if f&nonASCIIString != 0 {
			nonASCII = true
			badUTF8 = badUTF8 || f&badUTF8String != 0
		}
		i, strF = j, f&Escaped
	}

strDone:

	if inKey {
		keyS, keyE, keyF = strStart+1, i-1, 0
		if strF != 0 {
			keyF = KeyEscaped
		}
		goto keyDone
	}
	if d <= maxDepth {
		if len(nodes) < maxNodes {
			nodes = append(nodes, Node{}) // filled where it lands: see leaf
			nd := &nodes[len(nodes)-1]
			nd.Start, nd.End, nd.KeyStart, nd.KeyEnd, nd.Next = int32(strStart), int32(i), int32(keyS), int32(keyE), int32(len(nodes))
			nd.Kind, nd.Flags = '"', keyF|strF
		} else {
			overflow = true
		}
	}
	goto afterValue

fail:
	t.Nodes, t.kinds = nodes[:0], kinds
	return false
}

// String flags beyond Escaped that scanStringAt reports (not Node flags).
const (
	nonASCIIString NodeFlags = 1 << 6 // a byte >= 0x80
	badUTF8String  NodeFlags = 1 << 7 // bytes that are not UTF-8
)

// scanStringAt checks the rest of a string from b[i] (the bytes between its
// opening quote and b[i] are plain: no quote, backslash, control character
// or byte >= 0x80) and returns the index after its closing quote (-1:
// invalid or not closed) and what it holds (Escaped, nonASCIIString,
// badUTF8String). Eight bytes are tested at a time for a quote, a
// backslash, a control character or a byte >= 0x80; only those are looked
// at one by one. With AVX2, 32 bytes are tested at a time for the first
// three, and their UTF-8 is validated on the way (skipPlain).
func scanStringAt(b []byte, i int) (int, NodeFlags) {
	var flags NodeFlags
	n := len(b)
	for {
		// two words one at a time (keys, ids and roles end there), then the
		// rest with SIMD where there is one, else a word at a time
		for k := 0; k < 2 && i+8 <= n; k++ {
			if m := specialBytes(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto special
			}
			i += 8
		}
		if j, f, found, ok := skipPlain(b[i:]); ok {
			flags |= f
			i += j
			if found {
				goto special
			}
			// the last few bytes: a word at a time
		}
		for i+8 <= n {
			if m := specialBytes(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto special
			}
			i += 8
		}
		for i < n {
			if c := b[i]; c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
				goto special
			}
			i++
		}
		return -1, flags
	special:
		switch c := b[i]; {
		case c == '"':
			return i + 1, flags
		case c == '\\':
			flags |= Escaped
			if i+1 >= n {
				return -1, flags
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > n || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1, flags
				}
				i += 6
			default:
				return -1, flags
			}
		case c < 0x20:
			return -1, flags
		default:
			flags |= nonASCIIString
			// a run of multi-byte characters (accents, CJK) is checked here
			// rather than one SWAR round each
			for i < n && b[i] >= 0x80 {
				if c := b[i]; c >= 0xC2 && c <= 0xDF && i+1 < n && b[i+1]&0xC0 == 0x80 {
					i += 2
					continue
				}
				r, size := utf8.DecodeRune(b[i:])
				if r == utf8.RuneError && size == 1 {
					flags |= badUTF8String
				}
				i += size
			}
		}
	}
}

// setKind records whether nesting level k (counted from level 65) is an
// object.
func setKind(kinds []uint64, k int, obj bool) []uint64 {
	for k>>6 >= len(kinds) {
		kinds = append(kinds, 0)
	}
	kinds[k>>6] = kinds[k>>6]&^(1<<(k&63)) | boolBit(obj)<<(k&63)
	return kinds
}

// leaf records a scalar value when its level is recorded and the budget
// allows (else it reports the overflow).
func leaf(nodes []Node, overflow, recorded bool, maxNodes, start, end, keyS, keyE int, keyF NodeFlags, kind byte) ([]Node, bool) {
	if !recorded {
		return nodes, overflow
	}
	if len(nodes) >= maxNodes {
		return nodes, true
	}
	// a Node appended whole is built aside a field at a time and copied
	// in 16 bytes at a time, loads that wait for the narrower stores
	// before them (no store forwarding); a zero Node is stored where it
	// lands, and its fields after it (BenchmarkFileTape 2% faster)
	nodes = append(nodes, Node{})
	nd := &nodes[len(nodes)-1]
	nd.Start, nd.End, nd.KeyStart, nd.KeyEnd, nd.Next = int32(start), int32(end), int32(keyS), int32(keyE), int32(len(nodes))
	nd.Kind, nd.Flags = kind, keyF
	return nodes, overflow
}

func boolBit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// isWS is JSON white space (JSON.parse accepts no other).
func isWS(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// emptyContainer: only white space between the brackets at start and end.
func emptyContainer(b []byte, start, end int) bool {
	for k := start + 1; k < end; k++ {
		if !isWS(b[k]) {
			return false
		}
	}
	return true
}

const (
	swarOnes  = 0x0101010101010101
	swarHighs = 0x8080808080808080
)

// specialBytes has the high bit set in the lowest byte of x that is a
// quote, a backslash, a control character or >= 0x80 (higher bits may be
// set spuriously by borrows: only the lowest counts).
func specialBytes(x uint64) uint64 {
	q := x ^ ('"' * swarOnes)
	s := x ^ ('\\' * swarOnes)
	return (((q - swarOnes) &^ q) | ((s - swarOnes) &^ s) | ((x - 0x20*swarOnes) &^ x) | x) & swarHighs
}

func isHex(c byte) bool { return c-'0' < 10 || (c|0x20)-'a' < 6 }

// scanNumber returns the index after the JSON number at b[i] (-1: none):
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(b []byte, i int) int {
	n := len(b)
	if b[i] == '-' {
		i++
		if i >= n {
			return -1
		}
	}
	switch c := b[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		i++
		for i < n && b[i]-'0' < 10 {
			i++
		}
	default:
		return -1
	}
	if i < n && b[i] == '.' {
		i++
		if i >= n || b[i]-'0' >= 10 {
			return -1
		}
		for i < n && b[i]-'0' < 10 {
			i++
		}
	}
	if i < n && b[i]|0x20 == 'e' {
		i++
		if i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= n || b[i]-'0' >= 10 {
			return -1
		}
		for i < n && b[i]-'0' < 10 {
			i++
		}
	}
	return i
}
