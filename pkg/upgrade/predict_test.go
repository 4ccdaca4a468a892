package upgrade

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// The UTF-8 detector agrees with Go's validator on validity and throws where
// the WHATWG decoder does (at the byte that proves a sequence bad).
func TestUTF8DetectorPositions(t *testing.T) {
	cases := []struct {
		in   string
		want int
	}{
		{"abc", -1}, {"a\xffb", 1}, {"\xe2\x82\xac", -1}, {"\xe2\x82x", 2}, {"\xed\xa0\x80", 1},
		{"\xe0\x80\x80", 1}, {"\xf0\x9f\x98\x80", -1}, {"\xf4\x90\x80\x80", 1}, {"\xc0\xaf", 0}, {"ok\x80", 2},
	}
	for _, c := range cases {
		var d utf8Detector
		if got := d.feed([]byte(c.in)); got != c.want {
			t.Errorf("%q: error at %d, want %d", c.in, got, c.want)
		}
	}
	var d utf8Detector
	if d.feed([]byte("a\xe2\x82")) != -1 || !d.pending() {
		t.Error("an open sequence at the end must be pending")
	}
}

func FuzzUTF8Detector(f *testing.F) {
	f.Add([]byte("héllo\xff"), 3)
	f.Fuzz(func(t *testing.T, b []byte, split int) {
		var d utf8Detector
		if split < 0 || split > len(b) {
			split = len(b) / 2
		}
		bad := d.feed(b[:split]) >= 0 || d.feed(b[split:]) >= 0 || d.pending()
		if bad == utf8.Valid(b) {
			t.Fatalf("%q: detector bad=%v, utf8.Valid=%v", b, bad, utf8.Valid(b))
		}
	})
}

// An invalid byte throws away every line that ends in its 64 KiB chunk: the
// lines before it in the same chunk are left behind too.
func TestInvalidUTF8DropsItsWholeChunk(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":3,"id":"s1","timestamp":"t","cwd":"/"}` + "\n")
	entry := func(i int) string {
		return `{"type":"message","id":"m` + strings.Repeat("0", 3) + string(rune('a'+i%26)) + itoa(i) + `","parentId":null,"message":{"role":"user","content":"` + strings.Repeat("x", 1000) + `"}}` + "\n"
	}
	i := 0
	for b.Len() < chunkSize+100 {
		b.WriteString(entry(i))
		i++
	}
	// lines now reach into the second chunk; put a bad byte late in that chunk
	for b.Len() < chunkSize+30000 {
		b.WriteString(entry(i))
		i++
	}
	bad := `{"type":"message","id":"bad","parentId":null,"message":{"role":"user","content":"` + "\xff" + `"}}` + "\n"
	b.WriteString(bad)
	b.WriteString(entry(i))
	res, err := predict(bytes.NewReader(b.Bytes()), "s1")
	if err != nil {
		t.Fatal(err)
	}
	// the first line that ends in the second chunk
	var first int64
	off := 0
	for n, l := range bytes.SplitAfter(b.Bytes(), []byte("\n")) {
		off += len(l)
		if off > chunkSize {
			first = int64(n + 1)
			break
		}
	}
	if res.StopReason != StopUTF8 || res.StopLine != first {
		t.Fatalf("stop %q at line %d, want invalid UTF-8 at line %d", res.StopReason, res.StopLine, first)
	}
	if int64(res.Events) != first-1 || len(res.LeftBehind) != int(res.Lines-first+1) {
		t.Fatalf("events %d, left behind %d of %d lines", res.Events, len(res.LeftBehind), res.Lines)
	}
}

func itoa(i int) string {
	var s []byte
	for {
		s = append([]byte{byte('0' + i%10)}, s...)
		i /= 10
		if i == 0 {
			return string(s)
		}
	}
}

// Falsy values are skipped without an event; other scalars are opaque events.
func TestFalsyAndOpaqueLines(t *testing.T) {
	in := `{"type":"session","version":3,"id":"s1"}` + "\n" + "null\nfalse\n0\n-0.0e5\n\"\"\n1e-400\n[1]\n\"x\"\n7\ntrue\n \u00a0\n"
	res, err := predict(strings.NewReader(in), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if res.Events != 5 || res.Keys != 2 || res.StopLine != 0 {
		t.Fatalf("events %d keys %d stop %d, want 5 events (header + 4 opaque), 2 keys, no stop", res.Events, res.Keys, res.StopLine)
	}
}
