package repair

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The recovery rules (a transcript no sessions.json names, Options.Recovery):
// what is quarantined, what is rewritten, what is reported unrepairable, and
// that nothing changes without the hint, with the 2026.5.6 rule set, or in a
// file without messages.
func TestRecoveryRules(t *testing.T) {
	const id = "0197e000-0000-7000-8000-000000000042"
	hdr := func(hid, extra string) string {
		return `{"type":"session","version":3,"id":"` + hid + `"` + extra + `,"timestamp":"2026-05-17T06:45:00.000Z","cwd":"/w"}`
	}
	user := `{"type":"message","id":"m1","parentId":null,"timestamp":"2026-05-17T06:45:01.000Z","message":{"role":"user","content":"hi"}}`
	asst := `{"type":"message","id":"m2","parentId":"m1","timestamp":"2026-05-17T06:45:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}`
	model := `{"type":"model_change","id":"c1","parentId":null,"timestamp":"2026-05-17T06:45:00.500Z","provider":"anthropic","modelId":"claude"}`
	lines := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
	hint := &Recovery{SessionID: id}
	for _, c := range []struct {
		name  string
		in    string
		rec   *Recovery
		rules RuleSet
		// want: the repaired file ("" = unchanged); counts: rule -> count
		want         string
		counts       map[string]int
		unrepairable string // substring
	}{
		{name: "non-object lines quarantined, falsy ones kept",
			in: lines(hdr(id, ""), `[1,2]`, user, `42`, `null`, `"text"`, `0`, `true`, asst), rec: hint,
			want: lines(hdr(id, ""), user, `null`, `0`, asst), counts: map[string]int{RuleRecoveryNonEntry: 4}},
		{name: "trajectory and unrecognised records quarantined",
			in:   lines(hdr(id, ""), `{"traceSchema":1,"type":"run.start","ts":1}`, user, `{"type":"note","text":"x"}`, `{"type":"leaf","id":"l","parentId":"m1"}`, asst, `{"type":"custom-x","id":"k","parentId":"m2"}`),
			rec:  hint,
			want: lines(hdr(id, ""), user, asst, `{"type":"custom-x","id":"k","parentId":"m2"}`), counts: map[string]int{RuleRecoveryNonEntry: 3}},
		{name: "header id set to the file name's, every other byte kept",
			in: lines(hdr("other-id", `,"extra":"keep"`), user, asst), rec: hint,
			want: lines(hdr(id, `,"extra":"keep"`), user, asst), counts: map[string]int{RuleRecoveryHeaderID: 1}},
		{name: "a missing header is rebuilt with the file name's id",
			in: lines(user, asst), rec: &Recovery{SessionID: "x-" + id},
			want: lines(`{"type":"session","version":3,"id":"x-`+id+`","timestamp":"2026-05-17T06:45:01.000Z"}`+"\n"+user, asst), counts: map[string]int{RuleHeaderRebuild: 1}},
		{name: "without the hint nothing changes",
			in: lines(hdr("other-id", ""), `[1,2]`, user, asst), rec: nil},
		{name: "the 2026.5.6 rule set ignores the hint",
			in: lines(hdr("other-id", ""), `[1,2]`, user, asst), rec: hint, rules: RuleSetOpenClaw},
		{name: "no message: left alone",
			in: lines(hdr("other-id", ""), model, `[1,2]`), rec: hint},
		{name: "only non-entry lines: left alone",
			in: lines(`[1,2]`, `"text"`), rec: hint},
		{name: "second header: unrepairable",
			in: lines(hdr(id, ""), user, hdr("b", ""), asst), rec: hint, unrepairable: "a second session header at line 3"},
		{name: "header version 4: unrepairable",
			in: lines(strings.Replace(hdr(id, ""), `"version":3`, `"version":4`, 1), user), rec: hint, unrepairable: "version"},
		{name: "the hint's reason is reported",
			in: lines(hdr("notes.v2", ""), user), rec: &Recovery{SessionID: "notes.v2", Unrepairable: "its file name gives no session id"}, unrepairable: "its file name gives no session id"},
		{name: "fixable and unrepairable: the fix is made, the rest reported",
			in: lines(hdr(id, ""), `[1]`, user, hdr("b", ""), asst), rec: hint,
			want: lines(hdr(id, ""), user, hdr("b", ""), asst), counts: map[string]int{RuleRecoveryNonEntry: 1}, unrepairable: "second session header"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, id+".jsonl")
			if err := os.WriteFile(path, []byte(c.in), 0o644); err != nil {
				t.Fatal(err)
			}
			opts := Options{Recovery: c.rec, Rules: c.rules, Now: func() time.Time { return time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC) }}
			p, err := PlanFile(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Unrepairable(); (c.unrepairable == "") != (got == "") || !strings.Contains(got, c.unrepairable) {
				t.Errorf("Unrepairable() = %q, want %q", got, c.unrepairable)
			}
			if want := c.want != "" || c.unrepairable != ""; p.NeedsAttention() != want {
				t.Errorf("NeedsAttention() = %v, want %v (%v)", p.NeedsAttention(), want, p.Counts)
			}
			if c.unrepairable != "" {
				if f, ok := p.Finding(); !ok || !strings.Contains(f.Message, c.unrepairable) {
					t.Errorf("finding %q does not give the reason", f.Message)
				}
			}
			for rule, n := range c.counts {
				if p.Counts[rule] != n {
					t.Errorf("%s ×%d, want ×%d (%v)", rule, p.Counts[rule], n, p.Counts)
				}
			}
			rep, err := ApplyFile(t.Context(), path, ApplyOptions{Options: opts})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if c.want == "" {
				if rep.Changed || string(got) != c.in {
					t.Fatalf("changed:\n%s", got)
				}
				return
			}
			if string(got) != c.want {
				t.Fatalf("repaired:\n%s\nwant:\n%s", got, c.want)
			}
			// nothing lost: the backup is the original, every removed or
			// rewritten line is in the quarantine file
			if b, _ := os.ReadFile(rep.Backup); string(b) != c.in {
				t.Errorf("backup differs from the original")
			}
			q := readQuarantine(t, rep.Quarantine)
			inLines := strings.Split(strings.TrimSuffix(c.in, "\n"), "\n")
			for i, l := range inLines {
				if !strings.Contains(string(got), l+"\n") && !bytes.Equal(q[int64(i+1)], []byte(l)) {
					t.Errorf("line %d %q is neither kept nor quarantined", i+1, l)
				}
			}
			// a second run changes nothing
			again, err := PlanFile(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			if again.Changed() {
				t.Errorf("a second run would change %v", again.Counts)
			}
		})
	}
}
