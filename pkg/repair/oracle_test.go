package repair

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// oracleRepair is the part of the oracle's `repair` answer the tests compare.
type oracleRepair struct {
	Result struct {
		Repaired                   bool   `json:"repaired"`
		DroppedLines               int    `json:"droppedLines"`
		RewrittenAssistantMessages int    `json:"rewrittenAssistantMessages"`
		RewrittenUserMessages      int    `json:"rewrittenUserMessages"`
		Reason                     string `json:"reason"`
	} `json:"result"`
	Output string `json:"output"`
}

// checkParity compares oc's openclaw-2026.5.6 repair of path with the oracle's answer.
func checkParity(t *testing.T, path string, raw json.RawMessage) {
	t.Helper()
	var want oracleRepair
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("%s: oracle answer: %v", path, err)
	}
	p, out, _ := renderPlan(t, path, RuleSetOpenClaw)
	name := filepath.Base(path)
	if got := p.Counts[RuleMalformedLine]; got != want.Result.DroppedLines {
		t.Errorf("%s: malformed-line = %d, oracle droppedLines = %d", name, got, want.Result.DroppedLines)
	}
	if want.Result.Reason != "" {
		// OpenClaw stopped before rewriting: it reports only droppedLines.
	} else if got := p.Counts[RuleEmptyAssistantError]; got != want.Result.RewrittenAssistantMessages {
		t.Errorf("%s: empty-assistant-error = %d, oracle = %d", name, got, want.Result.RewrittenAssistantMessages)
	}
	if want.Result.Reason != "" {
	} else if got := p.Counts[RuleBlankUserText]; got != want.Result.RewrittenUserMessages {
		t.Errorf("%s: blank-user-text = %d, oracle = %d", name, got, want.Result.RewrittenUserMessages)
	}
	if p.Changed() != want.Result.Repaired {
		t.Errorf("%s: changed = %v, oracle repaired = %v (reason %q, ours %q)", name, p.Changed(), want.Result.Repaired, want.Result.Reason, p.Skipped)
	}
	if want.Result.Reason == SkipInvalidHeader || want.Result.Reason == SkipEmpty {
		if p.Skipped != want.Result.Reason {
			t.Errorf("%s: skipped = %q, oracle reason = %q", name, p.Skipped, want.Result.Reason)
		}
	}
	got := parseLines(t, out, p.Changed())
	exp := parseLines(t, []byte(want.Output), want.Result.Repaired)
	if len(got) != len(exp) {
		t.Fatalf("%s: %d entries, oracle %d", name, len(got), len(exp))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], exp[i]) {
			a, _ := json.Marshal(got[i])
			b, _ := json.Marshal(exp[i])
			t.Fatalf("%s: entry %d differs:\n oc:     %s\n oracle: %s", name, i, truncate(a), truncate(b))
		}
	}
}

// The unmodified corpus, against the stored oracle answers.
func TestParityCorpusStored(t *testing.T) {
	answers := oracletest.StoredAnswers(t)
	files := oracletest.Transcripts(t)
	n := 0
	for _, f := range files {
		a, ok := answers[filepath.Base(f)+"|repair"]
		if !ok || !a.OK {
			continue
		}
		n++
		checkParity(t, f, a.Out)
	}
	if n == 0 {
		t.Skip("SKIP: no stored repair answers matched the corpus")
	}
}

// Damaged copies of the corpus: one oracle batch for parity (openclaw set)
// and for the context checks of the default set.
func TestOracleDamagedCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("oracle batch skipped in -short mode")
	}
	corpus := oracletest.Transcripts(t)
	dir := t.TempDir()
	damaged := makeDamaged(t, corpus, dir)
	oracletest.Oracle(t)

	var jobs []oracletest.Job
	var paths []string
	for p := range damaged {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	expectDir := filepath.Join(dir, "expect")
	ocDir := filepath.Join(dir, "oc")
	for _, d := range []string{expectDir, ocDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range paths {
		jobs = append(jobs, oracletest.Job{ID: "repair|" + p, Mode: "repair", Args: []string{p}})
		// The default rule set's result must open in OpenClaw with the history a perfect repair keeps.
		_, out, _ := renderPlan(t, p, RuleSetAll)
		ocPath := filepath.Join(ocDir, filepath.Base(p))
		if err := os.WriteFile(ocPath, out, 0o644); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, oracletest.Job{ID: "ctx-oc|" + p, Mode: "context", Args: []string{ocPath}})
		exp := expectedAfterPerfectRepair(t, damaged[p], p)
		if exp != "" {
			jobs = append(jobs, oracletest.Job{ID: "ctx-expect|" + p, Mode: "context", Args: []string{exp}})
		}
	}
	res := oracletest.Batch(t, jobs, 10*time.Minute)
	for _, p := range paths {
		r := res["repair|"+p]
		if !r.OK {
			t.Errorf("%s: oracle repair failed: %s", p, r.Error)
			continue
		}
		checkParity(t, p, r.Out)
		ctxOC, ctxExp := res["ctx-oc|"+p], res["ctx-expect|"+p]
		if ctxExp.ID == "" {
			continue
		}
		if !ctxOC.OK || !ctxExp.OK {
			t.Errorf("%s: oracle context failed: %s %s", p, ctxOC.Error, ctxExp.Error)
			continue
		}
		var a, b struct {
			Messages []any `json:"messages"`
		}
		_ = json.Unmarshal(ctxOC.Out, &a)
		_ = json.Unmarshal(ctxExp.Out, &b)
		if !reflect.DeepEqual(a.Messages, b.Messages) {
			t.Errorf("%s: OpenClaw's context of oc's repair has %d messages, a perfect repair %d", filepath.Base(p), len(a.Messages), len(b.Messages))
		}
	}
}

// expectedAfterPerfectRepair writes what a perfect repair of the damaged file
// keeps: the original transcript minus the entry the damage made
// unrecoverable, with that entry's children re-linked to its parent. It
// returns "" for damage kinds where the comparison does not apply.
func expectedAfterPerfectRepair(t *testing.T, orig, damagedPath string) string {
	t.Helper()
	raw, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	ls := splitLines(raw)
	kind := ""
	for _, d := range damages {
		if strings.HasSuffix(damagedPath, "."+d.name+".jsonl") {
			kind = d.name
		}
	}
	lostIdx := -1
	switch kind {
	case "cut-middle", "crlf", "splice":
		lostIdx = middle(ls)
	case "cut-last":
		lostIdx = len(ls) - 1
	case "glued", "garbage-nul", "damaged-header", "blank-lines-and-undefined":
	default:
		return ""
	}
	var keep [][]byte
	var lostID, lostParent json.RawMessage
	if lostIdx >= 0 {
		var v struct {
			ID       json.RawMessage `json:"id"`
			ParentID json.RawMessage `json:"parentId"`
		}
		_ = json.Unmarshal(ls[lostIdx], &v)
		lostID, lostParent = v.ID, v.ParentID
	}
	for i, l := range ls {
		if i == lostIdx {
			continue
		}
		if lostID != nil && i > lostIdx {
			e := ParseEntry(l)
			if bytes.Equal(e.ParentID, lostID) {
				l = e.withParent(lostParent)
			}
		}
		keep = append(keep, l)
	}
	p := filepath.Join(filepath.Dir(damagedPath), "expect", filepath.Base(damagedPath))
	if err := os.WriteFile(p, joinLines(keep), 0o644); err != nil {
		t.Fatal(err)
	}
	// The corpus itself holds turns the entry rules rewrite: apply them too,
	// so that only the damage makes a difference.
	_, fixed, _ := renderPlan(t, p, RuleSetAll)
	if err := os.WriteFile(p, fixed, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
