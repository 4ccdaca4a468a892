package sqlitestore_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store/nav96"
)

func msg(id, parent, role, text string) string {
	p := "null"
	if parent != "" {
		p = fmt.Sprintf("%q", parent)
	}
	extra := ""
	if role == "assistant" {
		extra = `,"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop"`
	}
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-02-03T03:46:30.573Z","message":{"role":%q,"content":[{"type":"text","text":%q}]%s,"timestamp":1770090390574}}`, id, p, role, text, extra)
}

// navCases are sessions that exercise 2026.9.6's navigation rules: leaf
// control rows, side appends, resets (with and without kept entries),
// orphans, duplicate ids, an invalid leaf control.
func navCases() map[string][]string {
	base := []string{
		msg("u1", "", "user", "one"), msg("a1", "u1", "assistant", "two"),
		msg("u2", "a1", "user", "three"), msg("a2", "u2", "assistant", "four"),
	}
	with := func(rows ...string) []string { return append(append([]string{}, base...), rows...) }
	return map[string][]string{
		"base":            with(),
		"leaf-back":       with(`{"type":"leaf","id":"l1","parentId":"a2","targetId":"a1"}`, msg("u3", "l1", "user", "five"), msg("a3", "u3", "assistant", "six")),
		"leaf-only":       with(`{"type":"leaf","id":"l1","parentId":"a2","targetId":"u1"}`),
		"leaf-invalid":    with(`{"type":"leaf","id":"l1","parentId":"a2","targetId":"nope"}`, msg("u3", "a2", "user", "five")),
		"side":            with(msg("s1", "a2", "user", "aside"), msg("u3", "s1", "user", "five")),
		"reset":           with(`{"type":"reset","id":"r1","parentId":"a2","reason":"reset","timestamp":"2026-02-03T03:46:31.000Z"}`, msg("u3", "r1", "user", "five"), msg("a3", "u3", "assistant", "six")),
		"reset-kept":      with(`{"type":"reset","id":"r1","parentId":"a2","reason":"new","firstKeptEntryId":"u2","timestamp":"2026-02-03T03:46:31.000Z"}`, msg("u3", "r1", "user", "five")),
		"reset-no-reason": with(`{"type":"reset","id":"r1","parentId":"a2","timestamp":"2026-02-03T03:46:31.000Z"}`, msg("u3", "r1", "user", "five")),
		"compaction-bad":  with(`{"type":"compaction","id":"c1","parentId":"a2","summary":"sum","timestamp":"2026-02-03T03:46:31.000Z"}`, msg("u3", "c1", "user", "five")),
		"orphan":          with(msg("u3", "zzz", "user", "five"), msg("a3", "u3", "assistant", "six")),
		"duplicate-id":    with(msg("a2", "u2", "assistant", "four again")),
		"branch":          with(msg("u3", "a1", "user", "fork"), msg("a3", "u3", "assistant", "fork reply")),
		"excluded":        with(`{"type":"message","id":"x1","parentId":"a2","timestamp":"2026-02-03T03:46:30.573Z","message":{"role":"user","content":"hidden","excludeFromContext":true,"timestamp":1}}`),
		"compaction":      with(`{"type":"compaction","id":"c1","parentId":"a2","summary":"sum","firstKeptEntryId":"u2","tokensBefore":10,"timestamp":"2026-02-03T03:46:31.000Z"}`, msg("u3", "c1", "user", "five")),
	}
}

// The active branch by oc's port of 9.6's rules equals what 2026.9.6 itself
// reads: each case is a JSONL transcript that the oracle's `context` imports
// with 9.6's own import (which stores the lines and builds its cached
// navigation) and then reads as the embedded runner does.
func TestNavigationRulesAgreeWithOracle(t *testing.T) {
	dir := t.TempDir()
	cases := navCases()
	var jobs []oracletest.Job
	want := map[string]int{}
	n := 0
	for name, rows := range cases {
		n++
		id := fmt.Sprintf("c0000000-0000-4000-8000-%012d", n)
		header := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-02-03T03:46:30.000Z","cwd":"/root"}`, id)
		all := append([]string{header}, rows...)
		path := filepath.Join(dir, id+".jsonl")
		if err := os.WriteFile(path, []byte(strings.Join(all, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		lines := make([][]byte, len(all))
		for i, r := range all {
			lines[i] = []byte(r)
		}
		want[name] = nav96.Analyze(lines).Messages
		jobs = append(jobs, oracletest.Job{ID: name, Mode: "context", Args: []string{path}})
	}
	res := oracletest.Batch96(t, jobs, 8*time.Minute)
	compared := 0
	for name, got := range want {
		r, ok := res[name]
		if !ok || !r.OK {
			t.Errorf("%s: oracle gave no context: %s", name, r.Error)
			continue
		}
		var out struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(r.Out, &out); err != nil {
			t.Fatal(err)
		}
		compared++
		if got != len(out.Messages) {
			var texts []string
			for _, m := range out.Messages {
				texts = append(texts, string(m))
			}
			t.Errorf("%s: oc counts %d context messages, 2026.9.6 reads %d:\n%s", name, got, len(out.Messages), strings.Join(texts, "\n"))
		}
	}
	oracletest.Compared(t, "9.6 active-branch message count vs the 2026.9.6 oracle's context (crafted navigation cases)", compared, len(cases))
}
