package repair

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// Damage generators: each takes a transcript's bytes and returns a damaged
// copy (or nil when the file is too small for that damage).

type damage struct {
	name string
	fn   func(lines [][]byte) (out []byte, lost int) // lost: index of the entry line made unrecoverable, or -1
}

func splitLines(b []byte) [][]byte {
	b = bytes.TrimRight(b, "\n")
	return bytes.Split(b, []byte("\n"))
}

func joinLines(ls [][]byte) []byte {
	return append(bytes.Join(ls, []byte("\n")), '\n')
}

func cloneLines(ls [][]byte) [][]byte {
	out := make([][]byte, len(ls))
	for i, l := range ls {
		out[i] = append([]byte(nil), l...)
	}
	return out
}

func middle(ls [][]byte) int { return len(ls) / 2 }

var damages = []damage{
	{"cut-last", func(ls [][]byte) ([]byte, int) {
		if len(ls) < 3 {
			return nil, -1
		}
		ls = cloneLines(ls)
		last := ls[len(ls)-1]
		ls[len(ls)-1] = last[:len(last)/2]
		out := bytes.Join(ls, []byte("\n")) // no final newline: a crash mid-append
		return out, len(ls) - 1
	}},
	{"cut-middle", func(ls [][]byte) ([]byte, int) {
		if len(ls) < 4 {
			return nil, -1
		}
		ls = cloneLines(ls)
		m := middle(ls)
		ls[m] = ls[m][:len(ls[m])*2/3]
		return joinLines(ls), m
	}},
	{"glued", func(ls [][]byte) ([]byte, int) {
		if len(ls) < 4 {
			return nil, -1
		}
		ls = cloneLines(ls)
		m := middle(ls)
		glued := append(append([]byte(nil), ls[m]...), ls[m+1]...)
		out := append(append(ls[:m:m], glued), ls[m+2:]...)
		return joinLines(out), -1
	}},
	{"garbage-nul", func(ls [][]byte) ([]byte, int) {
		if len(ls) < 3 {
			return nil, -1
		}
		ls = cloneLines(ls)
		m := middle(ls)
		ls[m] = append(append([]byte("\x00\x00\x00\x00garbage#"), ls[m]...), []byte("\x00\x00zz")...)
		return joinLines(ls), -1
	}},
	{"splice", func(ls [][]byte) ([]byte, int) {
		// a cut-off entry and the next complete entry on one line (the Claude Code audit's commonest case)
		if len(ls) < 4 {
			return nil, -1
		}
		ls = cloneLines(ls)
		m := middle(ls)
		cut := ls[m][:len(ls[m])/2]
		spliced := append(append([]byte(nil), cut...), ls[m+1]...)
		out := append(append(ls[:m:m], spliced), ls[m+2:]...)
		return joinLines(out), m
	}},
	{"empty-assistant-error", func(ls [][]byte) ([]byte, int) {
		ls = cloneLines(ls)
		last := lastID(ls)
		add := fmt.Sprintf(`{"type":"message","id":"dmg-err-1","parentId":%s,"timestamp":"2026-05-12T09:00:00.000Z","message":{"role":"assistant","content":[],"api":"bedrock-converse-stream","provider":"amazon-bedrock","model":"m","usage":{"input":0,"output":0},"stopReason":"error","errorMessage":"boom","timestamp":1778576400000}}`, last)
		ok := `{"type":"message","id":"dmg-ok-1","parentId":"dmg-err-1","timestamp":"2026-05-12T09:00:01.000Z","message":{"role":"assistant","content":[],"stopReason":"stop","timestamp":1778576401000}}`
		return joinLines(append(ls, []byte(add), []byte(ok))), -1
	}},
	{"blank-user", func(ls [][]byte) ([]byte, int) {
		ls = cloneLines(ls)
		last := lastID(ls)
		a := fmt.Sprintf(`{"type":"message","id":"dmg-u1","parentId":%s,"timestamp":"2026-05-12T09:00:00.000Z","message":{"role":"user","content":" \u00a0\n ","timestamp":1}}`, last)
		b := `{"type":"message","id":"dmg-u2","parentId":"dmg-u1","timestamp":"2026-05-12T09:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":""},{"type":"text","text":"  "}],"timestamp":2}}`
		c := `{"type":"message","id":"dmg-u3","parentId":"dmg-u2","timestamp":"2026-05-12T09:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"\t"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"timestamp":3}}`
		d := `{"type":"message","id":"dmg-u4","parentId":"dmg-u3","timestamp":"2026-05-12T09:00:03.000Z","message":{"role":"user","content":[],"timestamp":4}}`
		return joinLines(append(ls, []byte(a), []byte(b), []byte(c), []byte(d))), -1
	}},
	{"damaged-header", func(ls [][]byte) ([]byte, int) {
		if len(ls) < 2 {
			return nil, -1
		}
		ls = cloneLines(ls)
		ls[0] = ls[0][:len(ls[0])/2]
		return joinLines(ls), -1
	}},
	{"crlf", func(ls [][]byte) ([]byte, int) {
		if len(ls) < 4 {
			return nil, -1
		}
		ls = cloneLines(ls)
		m := middle(ls)
		ls[m] = ls[m][:len(ls[m])/2]
		return append(bytes.Join(ls, []byte("\r\n")), '\r', '\n'), m
	}},
	{"blank-lines-and-undefined", func(ls [][]byte) ([]byte, int) {
		if len(ls) < 3 {
			return nil, -1
		}
		ls = cloneLines(ls)
		m := middle(ls)
		out := append(append(ls[:m:m], []byte(""), []byte("   "), []byte("undefined"), []byte("\u00a0")), ls[m:]...)
		return joinLines(out), -1
	}},
}

// lastID returns the JSON of the last line's id (or null).
func lastID(ls [][]byte) string {
	for i := len(ls) - 1; i >= 0; i-- {
		var v struct {
			ID *string `json:"id"`
		}
		if json.Unmarshal(ls[i], &v) == nil && v.ID != nil && i > 0 {
			b, _ := json.Marshal(*v.ID)
			return string(b)
		}
	}
	return "null"
}

// parseLines parses the non-blank lines; strict fails on a line that does not parse,
// otherwise such lines are left out (as OpenClaw's readers do).
func parseLines(t *testing.T, b []byte, strict bool) []any {
	t.Helper()
	var out []any
	for _, l := range bytes.Split(b, []byte("\n")) {
		l = bytes.TrimSuffix(l, []byte("\r"))
		if jsonl.IsBlank(l) {
			continue
		}
		var v any
		if err := json.Unmarshal(l, &v); err != nil {
			if !strict {
				continue
			}
			t.Fatalf("repaired output has an invalid line %q: %v", truncate(l), err)
		}
		out = append(out, v)
	}
	return out
}

func truncate(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "..."
	}
	return string(b)
}

// renderPlan plans and renders a file into memory.
func renderPlan(t *testing.T, path string, set RuleSet) (*Plan, []byte, []QuarantineRecord) {
	t.Helper()
	p, err := PlanFile(path, Options{Rules: set, NewID: func() string { return "fixed-id" }})
	if err != nil {
		t.Fatalf("%s: plan: %v", path, err)
	}
	if !p.Changed() {
		b, _ := os.ReadFile(path)
		return p, b, nil
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out, q bytes.Buffer
	if err := p.Render(f, &out, &q); err != nil {
		t.Fatalf("%s: render: %v", path, err)
	}
	var recs []QuarantineRecord
	for _, l := range bytes.Split(bytes.TrimSpace(q.Bytes()), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var r QuarantineRecord
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatalf("quarantine line %q: %v", l, err)
		}
		recs = append(recs, r)
	}
	return p, out.Bytes(), recs
}

// makeDamaged writes every damaged variant of every corpus transcript into dir.
func makeDamaged(t *testing.T, corpus []string, dir string) map[string]string {
	t.Helper()
	out := map[string]string{} // damaged path -> original path
	for _, src := range corpus {
		raw, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		ls := splitLines(raw)
		for _, d := range damages {
			b, _ := d.fn(ls)
			if b == nil {
				continue
			}
			name := strings.ReplaceAll(filepath.Base(src), ".jsonl", "") + "." + d.name + ".jsonl"
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			out[p] = src
		}
	}
	return out
}
