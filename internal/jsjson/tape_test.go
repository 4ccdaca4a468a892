package jsjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The accept/reject matrix of Node's JSON.parse (research/ecosystem.md §3.3),
// checked against Node itself when this table was written.
var jsonParseCases = []struct {
	in   string
	want bool
}{
	{`{"type":"session","id":"x"}`, true},
	{"{\"a\":\"\xff\xfe\"}", true}, // invalid UTF-8 in a string: U+FFFD to Node
	{`{"a":"\ud83d"}`, true},       // lone surrogate
	{`{"a":1,"a":2}`, true},        // duplicate keys
	{`1e400`, true},
	{`-0.0e-0`, true},
	{`42`, true},
	{`"x"`, true},
	{`null`, true},
	{" \t{\"a\":1} \r\n", true},
	{`[]`, true},
	{`[ ]`, true},
	{`{ }`, true},
	{`[[],[[]],{}]`, true},
	{`"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"`, true},
	{"\"\u2028\u00e9\U0001F600\"", true},
	{"\"\xed\xa0\x80\"", true}, // a surrogate spelled in UTF-8: U+FFFD
	{"{\"a\":\"x\ty\"}", false},
	{"{\"a\":\"x\x01y\"}", false},
	{"\"\x7f\"", true}, // DEL is no control character to JSON
	{`{"a":"\q"}`, false},
	{`{"a":"\u12G4"}`, false},
	{`"\u12"`, false},
	{`"\`, false},
	{`{"a":1}{"b":2}`, false},
	{"\xef\xbb\xbf{\"a\":1}", false},
	{`undefined`, false},
	{`{"type":"message"`, false},
	{"\x00\x00{\"a\":1}", false},
	{``, false},
	{` `, false},
	{`NaN`, false},
	{`Infinity`, false},
	{`{'a':1}`, false},
	{`{"a":1,}`, false},
	{`[1,]`, false},
	{`[,1]`, false},
	{`{,}`, false},
	{`{"a"}`, false},
	{`{"a":}`, false},
	{`{1:2}`, false},
	{`01`, false},
	{`-`, false},
	{`-01`, false},
	{`1.`, false},
	{`.5`, false},
	{`1e`, false},
	{`1e+`, false},
	{`+1`, false},
	{`0x10`, false},
	{`tru`, false},
	{`nul`, false},
	{`falsey`, false},
	{`truefalse`, false},
	{`[1 2]`, false},
	{`{"a":1 "b":2}`, false},
	{`]`, false},
	{`[}`, false},
	{`{]`, false},
	{`"abc`, false},
	{"\"a\nb\"", false},
	{"{\"a\":1}\x00", false},
	{"\v1", false}, // VT is no JSON white space
	{"1\f", false},
	{"\u00a01", false},
	{"\"\xe6\x97\"", true}, // a cut multi-byte character before the quote
}

func TestValidMatchesJSONParse(t *testing.T) {
	for _, c := range jsonParseCases {
		assert.Equal(t, c.want, Valid([]byte(c.in)), "Valid(%q)", c.in)
		var tp Tape
		tp.MaxDepth = 3
		assert.Equal(t, c.want, tp.Parse([]byte(c.in)), "Tape.Parse(%q)", c.in)
	}
}

// Node's JSON.parse has no nesting limit (checked with Node 20: a million
// levels parse); neither has Valid.
func TestValidAnyDepth(t *testing.T) {
	for _, n := range []int{63, 64, 65, 128, 129, 10001, 200000} {
		arr := strings.Repeat("[", n) + strings.Repeat("]", n)
		assert.True(t, Valid([]byte(arr)), "depth %d array", n)
		obj := strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)
		assert.True(t, Valid([]byte(obj)), "depth %d object", n)
		mixed := strings.Repeat(`{"a":[`, n) + strings.Repeat("]}", n)
		var tp Tape
		tp.MaxDepth = 4
		require.True(t, tp.Parse([]byte(mixed)), "depth %d mixed", n)
		assert.Equal(t, 2*n, tp.Depth)
		assert.Len(t, tp.Nodes, 5)
		// one bracket off at the deepest level is caught
		assert.False(t, Valid([]byte(strings.Repeat(`{"a":[`, n)+"}"+strings.Repeat("]}", n)[1:])), "depth %d wrong closer", n)
		assert.False(t, Valid([]byte(arr[:len(arr)-1])), "depth %d unclosed", n)
	}
}

func TestTapeUTF8(t *testing.T) {
	for _, c := range []struct {
		in            string
		nonASCII, bad bool
	}{
		{`{"a":"plain"}`, false, false},
		{"{\"a\":\"é 日本 \U0001F600\"}", true, false},
		{"{\"a\":\"\xff\"}", true, true},
		{"{\"a\":\"x\xc3\"}", true, true},
		{"{\"\xe9\":1}", true, true}, // in a key
		{"\"\xed\xa0\x80\"", true, true},
		{"\"\xef\xbf\xbd\"", true, false}, // U+FFFD itself is valid
		{`"\u00e9"`, false, false},
	} {
		var tp Tape
		require.True(t, tp.Parse([]byte(c.in)), c.in)
		assert.Equal(t, c.nonASCII, tp.NonASCII, "NonASCII of %q", c.in)
		assert.Equal(t, c.bad, tp.BadUTF8, "BadUTF8 of %q", c.in)
		assert.Equal(t, !utf8.ValidString(c.in), tp.BadUTF8, "BadUTF8 of %q against utf8.Valid", c.in)
	}
}

func TestTapeNodes(t *testing.T) {
	text := []byte(` {"type":"message","id":"a\"b","message":{"role":"user","content":[{"type":"text","text":"hi"},7,[1,[2]]]},"n":null, "e":{} }`)
	var tp Tape
	tp.MaxDepth = 3
	require.True(t, tp.Parse(text))
	var got []string
	for i, n := range tp.Nodes {
		flags := ""
		if n.Flags&Pruned != 0 {
			flags += " pruned"
		}
		if n.Flags&Escaped != 0 {
			flags += " escaped"
		}
		got = append(got, fmt.Sprintf("%d %q=%s next=%d%s", i, n.Key(text), n.Value(text), int(n.Next), flags))
	}
	want := []string{
		`0 ""={"type":"message","id":"a\"b","message":{"role":"user","content":[{"type":"text","text":"hi"},7,[1,[2]]]},"n":null, "e":{} }` + " next=11",
		`1 "type"="message" next=2`,
		`2 "id"="a\"b" next=3 escaped`,
		`3 "message"={"role":"user","content":[{"type":"text","text":"hi"},7,[1,[2]]]} next=9`,
		`4 "role"="user" next=5`,
		`5 "content"=[{"type":"text","text":"hi"},7,[1,[2]]] next=9`,
		`6 ""={"type":"text","text":"hi"} next=7 pruned`,
		`7 ""=7 next=8`,
		`8 ""=[1,[2]] next=9 pruned`,
		`9 "n"=null next=10`,
		`10 "e"={} next=11`,
	}
	assert.Equal(t, want, got)
	assert.Greater(t, int(tp.Nodes[0].Next), 1)   // members follow
	assert.Equal(t, int32(11), tp.Nodes[10].Next) // empty: none follow
	assert.Equal(t, int32(7), tp.Nodes[6].Next)   // pruned: none follow
}

func TestTapeKeyText(t *testing.T) {
	text := []byte(`{"\u0074ype":"a","id":1,"\"q\\":2,"\ud83d":3,"":4}`)
	tp := Tape{MaxDepth: 1}
	require.True(t, tp.Parse(text))
	var got []string
	for _, n := range tp.Nodes[1:] {
		got = append(got, string(n.KeyText(text)))
	}
	// as JSON.parse names them (a lone surrogate reads as U+FFFD, as
	// StringValue decodes it)
	assert.Equal(t, []string{"type", "id", `"q\`, "\uFFFD", ""}, got)
	assert.Empty(t, tp.Nodes[0].KeyText(text)) // the root is no member
	assert.Equal(t, "id", string(tp.Nodes[2].KeyText(text)))
}

func TestTapeMaxNodes(t *testing.T) {
	text := []byte(`{"a":[1,2,3,4,5],"b":{"c":1},"d":2}`)
	var tp Tape
	tp.MaxDepth, tp.MaxNodes = 5, 4
	require.True(t, tp.Parse(text))
	require.Len(t, tp.Nodes, 4) // root, a, 1, 2
	assert.NotZero(t, tp.Nodes[0].Flags&Pruned, "root lost members")
	assert.NotZero(t, tp.Nodes[1].Flags&Pruned, "a lost elements")
	assert.Equal(t, `[1,2,3,4,5]`, string(tp.Nodes[1].Value(text)))
	assert.Equal(t, string(text), string(tp.Nodes[0].Value(text)))
}

// refNode is the reference model of a tape: a naive recursive descent over
// text that encoding/json validated.
type refNode struct {
	key, value string
	children   []refNode
	complete   bool // every child recorded
}

func refParse(b []byte, i int, key string, depth, maxDepth int) (refNode, int) {
	i = skipWSRef(b, i)
	start := i
	n := refNode{key: key, complete: true}
	switch b[i] {
	case '{', '[':
		obj := b[i] == '{'
		i = skipWSRef(b, i+1)
		if b[i] == '}' || b[i] == ']' {
			i++
			break
		}
		for {
			k := ""
			if obj {
				i = skipWSRef(b, i) // after a comma: white space before the key
				ks := i
				var s string
				dec := json.NewDecoder(bytes.NewReader(b[i:]))
				_ = dec.Decode(&s)
				i = ks + int(dec.InputOffset())
				k = string(b[ks+1 : i-1])
				i = skipWSRef(b, i) + 1 // ':'
			}
			var c refNode
			c, i = refParse(b, i, k, depth+1, maxDepth)
			if depth+1 <= maxDepth {
				n.children = append(n.children, c)
			} else {
				n.complete = false
			}
			i = skipWSRef(b, i)
			if b[i] == ',' {
				i++
				continue
			}
			i++ // closer
			break
		}
	default:
		var v json.RawMessage
		dec := json.NewDecoder(bytes.NewReader(b[i:]))
		if err := dec.Decode(&v); err != nil {
			panic(err)
		}
		i += int(dec.InputOffset())
		// Decode may read white space after a number: the value ends at its last byte
		for i > start && isWS(b[i-1]) {
			i--
		}
	}
	n.value = string(b[start:i])
	return n, i
}

func skipWSRef(b []byte, i int) int {
	for i < len(b) && isWS(b[i]) {
		i++
	}
	return i
}

// tapeTree rebuilds the tree a tape records.
func tapeTree(text []byte, nodes []Node, i int) (refNode, int) {
	n := nodes[i]
	r := refNode{key: string(n.Key(text)), value: string(n.Value(text)), complete: n.Flags&Pruned == 0}
	j := i + 1
	for j < int(n.Next) {
		var c refNode
		c, j = tapeTree(text, nodes, j)
		r.children = append(r.children, c)
	}
	return r, int(n.Next)
}

// FuzzTape: Valid is encoding/json's Valid (which agrees with JSON.parse on
// everything but nesting beyond 10,000 levels, kept out here), and the tape
// records exactly the tree a naive recursive reading finds, down to
// MaxDepth; BadUTF8 is utf8.Valid's answer on valid text.
func FuzzTape(f *testing.F) {
	for _, c := range jsonParseCases {
		f.Add([]byte(c.in), uint8(2))
	}
	f.Add([]byte(`{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","arguments":{"a":[1,{"b":2}]}}]}}`), uint8(4))
	f.Add([]byte(`[[[[[[[]]]]]],{"":{"":{"":[]}}}]`), uint8(3))
	// strings ending in the first or second word after their quote (the
	// inline path), or holding what sends them to scanStringAt
	f.Add([]byte(`[0,-0,0.5,0e1,{"a":0},[0],0]`), uint8(2))
	f.Add([]byte(`0`), uint8(0))
	f.Add([]byte(`{"a":"1234567","abcdefg":"12345678","abcdefghijklmno":"","abcdefghijklmnop":"x\"y","k\u00e9":"\u00e9t\u00e9","é":"日本","tab":"a	b","padding":"................"}`), uint8(2))
	f.Add([]byte(`{"a":"1234567","abcdefg":"12345678","abcdefghijklmno":"","abcdefghijklmnop":"x\"y","k\u00e9":"\u00e9t\u00e9","é":"日本","padding":"................"}`), uint8(2))
	f.Fuzz(func(t *testing.T, text []byte, depth uint8) {
		maxDepth := int(depth%6) - 1
		var tp Tape
		tp.MaxDepth = maxDepth
		got := tp.Parse(text)
		if bytes.Count(text, []byte("["))+bytes.Count(text, []byte("{")) < 9000 {
			if want := json.Valid(text); got != want {
				t.Fatalf("Parse(%q) = %v, encoding/json says %v", text, got, want)
			}
		}
		if got != Valid(text) {
			t.Fatalf("Parse and Valid disagree on %q", text)
		}
		if !got {
			return
		}
		if tp.BadUTF8 != !utf8.Valid(text) {
			t.Fatalf("BadUTF8 = %v on %q", tp.BadUTF8, text)
		}
		if maxDepth < 0 {
			if len(tp.Nodes) != 0 {
				t.Fatalf("validation alone recorded %d nodes", len(tp.Nodes))
			}
			return
		}
		if tp.Depth > 500 {
			return // the reference recursion is for ordinary depths
		}
		want, _ := refParse(text, 0, "", 0, maxDepth)
		have, next := tapeTree(text, tp.Nodes, 0)
		if next != len(tp.Nodes) {
			t.Fatalf("root's Next %d, %d nodes", next, len(tp.Nodes))
		}
		assert.Equal(t, want, have, "tape of %q at depth %d", text, maxDepth)
	})
}

func BenchmarkValid(b *testing.B) {
	line := benchLine()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if !Valid(line) {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkTape(b *testing.B) {
	line := benchLine()
	var tp Tape
	tp.MaxDepth = 4
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if !tp.Parse(line) {
			b.Fatal("invalid")
		}
	}
}

// benchLine is an assistant turn as OpenClaw writes one: text with some
// accents and CJK, a thinking block, a tool call and usage.
func benchLine() []byte {
	text := strings.Repeat("the quick brown fox jumps over a lazy dog while tool output streams in é ü 日本 /home/user/project ", 8)
	return []byte(`{"type":"message","id":"00000002","parentId":"00000001","timestamp":"2026-05-12T09:00:07.556Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"` +
		text + `","thinkingSignature":"sig"},{"type":"text","text":"` + text + `"},{"type":"toolCall","id":"call_2","name":"read","arguments":{"path":"/home/user/project/file.go"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1200,"output":80,"cacheRead":0,"cacheWrite":0,"totalTokens":1280,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1778576407556}}`)
}

// skipPlainRef is skipPlain's answer when it finds a special byte, byte by
// byte: the index of the first quote, backslash or control character
// (len(b): none) and what the bytes before it hold.
func skipPlainRef(b []byte) (int, NodeFlags) {
	j := len(b)
	for i, c := range b {
		if c == '"' || c == '\\' || c < 0x20 {
			j = i
			break
		}
	}
	return j, utf8Flags(b[:j])
}

// utf8Flags is nonASCIIString and badUTF8String of b.
func utf8Flags(b []byte) NodeFlags {
	var f NodeFlags
	for _, c := range b {
		if c >= 0x80 {
			f |= nonASCIIString
			break
		}
	}
	if !utf8.Valid(b) {
		f |= badUTF8String
	}
	return f
}

// checkSkipPlain fails t unless skipPlain(b) (where there is a SIMD scan)
// finds what skipPlainRef finds, or stops short of it with nothing
// misread: before at most b's last 34 bytes (its last round of 32 and a
// character cut), never inside a character, and with flags that hold for
// the bytes up to the round's end.
func checkSkipPlain(t testing.TB, b []byte) {
	t.Helper()
	j, f, found, ok := skipPlain(b)
	if !ok {
		return
	}
	wantJ, wantF := skipPlainRef(b)
	if found {
		if j != wantJ || f != wantF {
			t.Fatalf("skipPlain(%q) = %d, %#x; want %d, %#x", b, j, f, wantJ, wantF)
		}
		return
	}
	end := min(j+3, len(b)) // where the last round ended, at most
	switch {
	case j > wantJ || j < len(b)-34:
		t.Fatalf("skipPlain(%q) stopped at %d; the special byte is at %d", b, j, wantJ)
	case j < len(b) && b[j]&0xC0 == 0x80 && utf8.Valid(b[:end]):
		t.Fatalf("skipPlain(%q) stopped inside a character, at %d", b, j)
	case f&badUTF8String == 0 && !utf8.Valid(b[:j]):
		t.Fatalf("skipPlain(%q) missed bad UTF-8 before %d", b, j)
	case f&badUTF8String != 0 && utf8.Valid(b[:end]):
		t.Fatalf("skipPlain(%q) reported bad UTF-8 in valid bytes up to %d", b, end)
	case f&nonASCIIString == 0 && utf8Flags(b[:j])&nonASCIIString != 0:
		t.Fatalf("skipPlain(%q) missed a byte >= 0x80 before %d", b, j)
	}
}

// scanStringRef is scanStringAt's answer for a string from its opening
// quote at b[0], from encoding/json (which agrees with JSON.parse on where a
// string literal ends and whether it is one; refParse reads literals so
// too) and a look at the literal's bytes for the flags.
func scanStringRef(b []byte) (int, NodeFlags) {
	var s string
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&s); err != nil {
		return -1, 0
	}
	end := int(dec.InputOffset())
	text := b[1 : end-1]
	f := utf8Flags(text)
	if bytes.IndexByte(text, '\\') >= 0 {
		f |= Escaped
	}
	return end, f
}

// checkScanString fails t unless scanStringAt reads the string at b[0]
// (a quote) as scanStringRef does, flags and all.
func checkScanString(t testing.TB, b []byte) {
	t.Helper()
	wantJ, wantF := scanStringRef(b)
	j, f := scanStringAt(b, 1)
	if j != wantJ || (j >= 0 && f != wantF) {
		t.Fatalf("scanStringAt(%q) = %d, %#x; want %d, %#x", b, j, f, wantJ, wantF)
	}
}

// FuzzSkipPlain: the SIMD scan (where there is one) finds the byte the
// plain loop finds and validates the UTF-8 before it as utf8.Valid does,
// at every length and alignment; a string scanned with it reads as the
// byte-by-byte reference reads it.
func FuzzSkipPlain(f *testing.F) {
	f.Add([]byte(strings.Repeat("a", 100)+`"`), uint8(3))
	f.Add([]byte(strings.Repeat("abcdefgh", 8)), uint8(0))
	f.Add([]byte(strings.Repeat("x", 40)+"\x1f"+strings.Repeat("y", 40)), uint8(7))
	f.Add([]byte(strings.Repeat("é ü 日本 \U0001F600 ", 9)+`"`), uint8(1))
	f.Add([]byte(strings.Repeat("x", 30)+"\xe6\x97\xa5"+strings.Repeat("y", 40)), uint8(0))
	f.Add([]byte(strings.Repeat("x", 31)+"\xed\xa0\x80"+strings.Repeat("y", 40)+`"`), uint8(0))
	f.Add([]byte(strings.Repeat("é", 20)+`\"\\\u00e9\ud83d\n`+strings.Repeat("y", 40)+`"`), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, off uint8) {
		o := int(off) % (len(data) + 1)
		b := data[o:]
		checkSkipPlain(t, b)
		checkScanString(t, append([]byte{'"'}, b...))
	})
}

// Every byte sequence of up to three bytes from an alphabet of the bytes
// UTF-8's rules turn on (and four-byte ones from a smaller one) is checked
// at every place around the SIMD scan's lanes and rounds, with the string's
// closing quote right after it and far after it.
func TestSkipPlainUTF8Sequences(t *testing.T) {
	if _, _, _, ok := skipPlain(make([]byte, 64)); !ok {
		t.Skip("no SIMD scan on this machine")
	}
	alphabet := []byte{'a', 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xef, 0xf0, 0xf1, 0xf4, 0xf5, 0xff}
	small := []byte{'a', 0x80, 0x8f, 0x90, 0xbf, 0xc2, 0xe0, 0xed, 0xf0, 0xf4, 0xf5}
	offsets := []int{0, 1, 13, 14, 15, 16, 17, 28, 29, 30, 31, 32, 33, 45, 46, 47, 48, 61, 62, 63, 64}
	buf := make([]byte, 0, 160)
	check := func(seq []byte) {
		for _, off := range offsets {
			for _, tail := range []int{0, 1, 40} {
				buf = append(buf[:0], '"')
				buf = append(buf, bytes.Repeat([]byte{'x'}, off)...)
				buf = append(buf, seq...)
				buf = append(buf, bytes.Repeat([]byte{'y'}, tail)...)
				buf = append(buf, '"')
				buf = append(buf, bytes.Repeat([]byte{'z'}, 40-tail)...)
				checkSkipPlain(t, buf[1:])
				checkScanString(t, buf)
				// unterminated: the scan runs to the end
				checkSkipPlain(t, buf[1:len(buf)-41+tail])
			}
		}
	}
	var seq [4]byte
	for _, a := range alphabet {
		seq[0] = a
		check(seq[:1])
		for _, b := range alphabet {
			seq[1] = b
			check(seq[:2])
			for _, c := range alphabet {
				seq[2] = c
				check(seq[:3])
			}
		}
	}
	for _, a := range small {
		for _, b := range small {
			for _, c := range small {
				for _, d := range small {
					seq = [4]byte{a, b, c, d}
					check(seq[:])
				}
			}
		}
	}
}

func TestSkipPlainEveryPosition(t *testing.T) {
	for n := 32; n <= 200; n++ {
		for pos := 0; pos <= n; pos++ {
			for _, c := range []byte{'"', '\\', 0, 0x1f, 0x80, 0xff, 0xc3} {
				b := bytes.Repeat([]byte{'a'}, n)
				if pos < n {
					b[pos] = c
				}
				// a special byte after the end must not be seen
				full := append(b, '"')
				if _, _, _, ok := skipPlain(full[:n]); !ok {
					if testing.Short() {
						return
					}
					t.Skip("no SIMD scan on this machine")
				}
				checkSkipPlain(t, full[:n])
				j, _, found, _ := skipPlain(full[:n])
				if want, _ := skipPlainRef(b); found && j != want {
					t.Fatalf("n=%d pos=%d byte %#x: %d, want %d", n, pos, c, j, want)
				}
			}
		}
	}
}

// A text past RecordLimit is validated as any other and records nothing.
func TestTapeRecordLimit(t *testing.T) {
	tp := Tape{MaxDepth: 3, RecordLimit: 10}
	require.True(t, tp.Parse([]byte(`{"a":[1,2,3]}`)))
	assert.True(t, tp.Unrecorded)
	assert.Empty(t, tp.Nodes)
	assert.False(t, tp.Parse([]byte(`{"a":[1,2,3}`)))
	require.True(t, tp.Parse([]byte(`{"a":1}`)))
	assert.False(t, tp.Unrecorded)
	assert.Len(t, tp.Nodes, 2)
}
