package repair

import (
	"bytes"
	"testing"

	"github.com/openclaw-tools/oc/pkg/jsonl"
)

const fuzzHeader = `{"type":"session","version":3,"id":"s1","timestamp":"2026-05-12T09:00:00.000Z","cwd":"/"}`
const fuzzEntry = `{"type":"message","id":"a","parentId":null,"timestamp":"2026-05-12T09:00:01.000Z","message":{"role":"user","content":"hi"}}`

// FuzzSalvage: salvaging a damaged line never panics, every piece it keeps is
// valid JSON with an entry type, and pieces do not overlap.
func FuzzSalvage(f *testing.F) {
	f.Add([]byte(fuzzEntry + fuzzEntry))
	f.Add([]byte("\x00\x00\x00" + fuzzEntry + "zz"))
	f.Add([]byte(fuzzEntry[:40] + fuzzEntry))
	f.Add([]byte(`{"type":"message","message":{"content":[{"type":"text","text":"\"}{`))
	f.Fuzz(func(t *testing.T, line []byte) {
		s := salvage(line)
		prev := 0
		for _, p := range s.pieces {
			if p[0] < prev || p[1] <= p[0] || p[1] > len(line) {
				t.Fatalf("bad piece %v", p)
			}
			if !jsonl.Valid(line[p[0]:p[1]]) {
				t.Fatalf("invalid piece %q", line[p[0]:p[1]])
			}
			prev = p[1]
		}
		_, _ = readFragment(line)
		_ = ParseEntry(line)
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
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, set := range []RuleSet{RuleSetAll, RuleSetOpenClaw} {
			p, err := PlanReader(bytes.NewReader(data), "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl", Options{Rules: set, NewID: func() string { return "x" }})
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
			p2, err := PlanReader(bytes.NewReader(out.Bytes()), "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl", Options{Rules: set, NewID: func() string { return "x" }})
			if err != nil {
				t.Fatal(err)
			}
			if p2.Changed() {
				t.Fatalf("%s: not idempotent: second plan %v on\n%q\nfrom\n%q", set, p2.Changes, out.Bytes(), data)
			}
		}
	})
}
