package repair

import (
	"bytes"
	"encoding/json"
	"github.com/openclaw-tools/oc/internal/jsjson"
	"reflect"
	"testing"
	"unicode/utf8"
)

const fuzzHeader = `{"type":"session","version":3,"id":"s1","timestamp":"2026-05-12T09:00:00.000Z","cwd":"/"}`
const fuzzEntry = `{"type":"message","id":"a","parentId":null,"timestamp":"2026-05-12T09:00:01.000Z","message":{"role":"user","content":"hi"}}`

// transcriptEntryTypes are the entry types of OpenClaw 2026.5.6's session
// files (its SessionEntry union), listed here apart from salvage.go.
var transcriptEntryTypes = map[string]bool{
	"session": true, "message": true, "thinking_level_change": true, "model_change": true,
	"compaction": true, "branch_summary": true, "custom": true, "custom_message": true,
	"label": true, "session_info": true,
}

// FuzzSalvage checks salvage against encoding/json: every piece it keeps is a
// JSON object (encoding/json) that starts with a "type" member, and whose
// type (the last "type" member, as JSON.parse reads it) is an entry type; pieces are in order and do not overlap; the garbage and NUL
// counts are exactly the non-white-space and NUL bytes outside the pieces;
// "between" says whether any garbage comes before the last piece; and an
// entry line that is valid on its own, glued to itself, gives two pieces.
func FuzzSalvage(f *testing.F) {
	f.Add([]byte(fuzzEntry + fuzzEntry))
	f.Add([]byte("\x00\x00\x00" + fuzzEntry + "zz"))
	f.Add([]byte(fuzzEntry[:40] + fuzzEntry))
	f.Add([]byte(`{"type":"message","message":{"content":[{"type":"text","text":"\"}{`))
	f.Add([]byte(`{"type":"label","id":"x"} ` + "\t" + `{"type":"text"}{"type":"custom","data":[1,{"type":"message"}]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		s := salvage(line)
		prev := 0
		garbage, nuls, lastStart := 0, 0, -1
		countGap := func(gap []byte) {
			for _, c := range gap {
				if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
					garbage++
					if c == 0 {
						nuls++
					}
				}
			}
		}
		between := false
		for _, p := range s.pieces {
			if p[0] < prev || p[1] <= p[0] || p[1] > len(line) {
				t.Fatalf("bad piece %v after %d in %d bytes", p, prev, len(line))
			}
			gapBefore := garbage
			countGap(line[prev:p[0]])
			if garbage > gapBefore {
				between = true
			}
			piece := line[p[0]:p[1]]
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(piece, &obj); err != nil {
				t.Fatalf("piece %q is not a JSON object: %v", piece, err)
			}
			if !bytes.HasPrefix(piece, []byte(`{"type":`)) {
				t.Fatalf("piece %q does not start with a type member", piece)
			}
			var typ string // the last "type" member counts, as in JSON.parse
			if err := json.Unmarshal(obj["type"], &typ); err != nil || !transcriptEntryTypes[typ] {
				t.Fatalf("piece %q: type %s is not an entry type", piece, obj["type"])
			}
			prev, lastStart = p[1], p[0]
		}
		countGap(line[prev:])
		if s.garbage != garbage || s.nuls != nuls {
			t.Fatalf("garbage %d, NULs %d; outside the pieces there are %d and %d", s.garbage, s.nuls, garbage, nuls)
		}
		if s.between != between {
			t.Fatalf("between = %v, but garbage before the last piece (at %d): %v", s.between, lastStart, between)
		}
		_, _ = readFragment(line)
		_ = ParseEntry(line)

		// A complete entry glued to itself: both copies come back whole.
		if bytes.HasPrefix(line, []byte(`{"type":"`)) && utf8.Valid(line) && json.Valid(line) && len(s.pieces) == 1 && s.pieces[0] == [2]int{0, len(line)} {
			twice := append(append([]byte{}, line...), line...)
			s2 := salvage(twice)
			if len(s2.pieces) != 2 || s2.pieces[0] != [2]int{0, len(line)} || s2.pieces[1] != [2]int{len(line), 2 * len(line)} || s2.garbage != 0 {
				t.Fatalf("entry glued to itself: pieces %v, garbage %d (want [0 %d] [%d %d], 0)", s2.pieces, s2.garbage, len(line), len(line), 2*len(line))
			}
		}
	})
}

// FuzzPlan: planning and rendering any file never panics, the repaired file
// plans clean (idempotence), and with the openclaw rule set every kept line
// parses.
func FuzzPlan(f *testing.F) {
	f.Add([]byte(fuzzHeader + "\n" + fuzzEntry + "\n"))
	f.Add([]byte(fuzzHeader[:30] + "\n" + fuzzEntry + fuzzEntry + "\n\x00\x00" + fuzzEntry))
	f.Add([]byte(fuzzHeader + "\r\n" + `{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"assistant","content":[],"stopReason":"error"}}` + "\r\n"))
	f.Add([]byte(fuzzHeader + "\n" + `{"type":"message","id":"b","parentId":"a","message":{"role":"user","content":[{"type":"text","text":" "},{"type":"image","data":"SGVsbG8=","mimeType":"image/png"}]}}`))
	// repeated ids (the repeated-id rule)
	f.Add([]byte(fuzzHeader + "\n" + `{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}` + "\n" +
		`{"type":"message","id":"a","parentId":"a","message":{"role":"user","content":"y"}}` + "\n" +
		`{"type":"message","id":"a-oc3","parentId":"a","message":{"role":"user","content":"z"}}` + "\n" +
		`{"type":"compaction","id":"c","parentId":"a-oc3","firstKeptEntryId":"a","summary":"s"}` + "\n"))
	// a parent written after its child; a cycle of parentId links
	f.Add([]byte(fuzzHeader + "\n" + `{"type":"message","id":"a","parentId":"b","message":{"role":"user","content":"x"}}` + "\n" +
		`{"type":"message","id":"b","parentId":null,"message":{"role":"user","content":"y"}}` + "\n"))
	f.Add([]byte(fuzzHeader + "\n" + `{"type":"message","id":"a","parentId":"b","message":{"role":"user","content":"x"}}` + "\n" +
		`{"type":"message","id":"b","parentId":"a","message":{"role":"user","content":"y"}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, set := range []RuleSet{RuleSetAll, RuleSetOpenClaw} {
			p, err := PlanReader(bytes.NewReader(data), "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl", Options{Rules: set, NewID: func() string { return "x" }, poison: true})
			if err != nil {
				t.Fatal(err)
			}
			if !p.Changed() {
				continue
			}
			var out, q bytes.Buffer
			if err := p.Render(bytes.NewReader(data), &out, &q); err != nil {
				t.Fatal(err)
			}
			// the spans copied between edits are what a render line by
			// line writes
			var refOut, refQ bytes.Buffer
			if err := renderLineByLine(p, bytes.NewReader(data), &refOut, &refQ); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), refOut.Bytes()) || !bytes.Equal(q.Bytes(), refQ.Bytes()) {
				t.Fatalf("%s: Render wrote\n%q\n%q\nline by line\n%q\n%q\nfrom\n%q", set, out.Bytes(), q.Bytes(), refOut.Bytes(), refQ.Bytes(), data)
			}
			checkNothingLost(t, set, data, out.Bytes(), q.Bytes())
			p2, err := PlanReader(bytes.NewReader(out.Bytes()), "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl", Options{Rules: set, NewID: func() string { return "x" }, poison: true})
			if err != nil {
				t.Fatal(err)
			}
			if p2.Changed() {
				t.Fatalf("%s: not idempotent: second plan %v on\n%q\nfrom\n%q", set, p2.Changes, out.Bytes(), data)
			}
		}
	})
}

// checkNothingLost: every line of data that is not blank is in the
// repaired file as it was, or in the quarantine under its line number with
// its bytes (the repair's promise beside the backup: what it takes out or
// rewrites is named and kept).
func checkNothingLost(t *testing.T, set RuleSet, data, out, quarantine []byte) {
	t.Helper()
	kept := map[string]int{}
	for _, l := range bytes.Split(out, []byte("\n")) {
		kept[string(bytes.TrimSuffix(l, []byte("\r")))]++
	}
	quarantined := parseQuarantine(t, quarantine)
	for i, l := range bytes.Split(data, []byte("\n")) {
		l = bytes.TrimSuffix(l, []byte("\r"))
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if q, ok := quarantined[int64(i+1)]; ok {
			if !bytes.Equal(bytes.TrimSuffix(q, []byte("\r")), l) {
				t.Fatalf("%s: line %d quarantined as %q, was %q; from\n%q", set, i+1, q, l, data)
			}
			continue
		}
		if kept[string(l)] == 0 {
			t.Fatalf("%s: line %d (%q) is neither in the repaired file nor in the quarantine; from\n%q\nto\n%q\nquarantine\n%q", set, i+1, l, data, out, quarantine)
		}
		kept[string(l)]--
	}
}

// FuzzEntryFromTape: reading an entry off its line's tape gives exactly
// the fields (and offsets) the text walk of ParseEntry gives, and the image
// hint is still true for every content whose images the rule rewrites; the
// facts worked out with the tape's hints (no walk of a content with no
// blank text block) equal those worked out from the text.
func FuzzEntryFromTape(f *testing.F) {
	f.Add([]byte(fuzzEntry), uint8(4))
	f.Add([]byte(`{"type":"message","id":"a","message":{"role":"user","content":[{"type":"image","data":"!!","mimeType":"image/png"}]},"message":{"role":"assistant"}}`), uint8(4))
	f.Add([]byte(`{"ty\u0070e":"message","mess\u0061ge":{"r\u006fle":"user","content":[]},"parentId":"p","firstKeptEntryId":"k"}`), uint8(2))
	f.Add([]byte(`{"type":"message","message":{"content":[{"type":"text","text":"image"},{"type":"im\u0061ge","data":"x","mimeType":"image/png"}]}}`), uint8(5))
	f.Add([]byte(`[1,2]`), uint8(1))
	f.Add([]byte(`{"type":"message","message":{"role":"user","content":[{"type":"text","text":"x"},{"type":"text","text":" \u00a0"},{"type":"text","t\u0065xt":"\t"}]}}`), uint8(9))
	f.Add([]byte(`{"type":"message","message":{"role":"user","content":[{"type":"text","text":"\u2028"},{"type":"text","text":"ok","text":" "}]}}`), uint8(9))
	f.Add([]byte(`{"type":"message","message":{"role":"user","content":"\u3000"}}`), uint8(4))
	f.Add([]byte(`{"type":"message","message":{"role":"user","content":[{"type":"text","text":"   x"},{"type":"text","text":"   "},{"type":"text","text":"  \u00a0"}]}}`), uint8(9))
	f.Add([]byte(`{"type":"message","message":{"role":"user","content":"   "}}`), uint8(4))
	f.Fuzz(func(t *testing.T, line []byte, budget uint8) {
		tp := &jsjson.Tape{MaxDepth: 4}
		tp.MaxNodes = int(budget%24) + 1
		if budget >= 240 {
			tp.RecordLimit = 1 // nothing recorded: the text is read instead
		}
		if !tp.Parse(line) {
			return
		}
		var got Entry
		got.fromTape(line, tp)
		got.prepare(true)
		want := ParseEntry(line)
		want.prepare(true)
		if got.f.imageHint && !want.f.imageHint {
			t.Fatalf("tape image hint without the text's on %q", line)
		}
		if _, n := corruptedImageContent(want.Content); n > 0 && want.Object && !got.f.imageHint {
			t.Fatalf("tape image hint misses a corrupted image in %q", line)
		}
		got.f.imageHint, want.f.imageHint, got.f.hintsKnown, got.f.blankHint = false, false, false, false
		got.content, want.content = 0, 0 // the tape's node, where there is one
		if !reflect.DeepEqual(&got, want) {
			t.Fatalf("fromTape %+v\nParseEntry %+v\non %q", got, *want, line)
		}
	})
}
