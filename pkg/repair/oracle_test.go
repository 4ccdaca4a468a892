package repair

import (
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

// checkParity compares oc's openclaw-2026.5.6 repair of path with the oracle's
// answer. Failures are fatal to the (sub)test, so a caller that gets back
// counts one complete comparison.
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
	// When OpenClaw stopped before rewriting (a reason), it reports only droppedLines.
	if want.Result.Reason == "" {
		if got := p.Counts[RuleEmptyAssistantError]; got != want.Result.RewrittenAssistantMessages {
			t.Errorf("%s: empty-assistant-error = %d, oracle = %d", name, got, want.Result.RewrittenAssistantMessages)
		}
		if got := p.Counts[RuleBlankUserText]; got != want.Result.RewrittenUserMessages {
			t.Errorf("%s: blank-user-text = %d, oracle = %d", name, got, want.Result.RewrittenUserMessages)
		}
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
	if t.Failed() {
		t.FailNow()
	}
}

// The unmodified corpus, against the stored oracle answers.
func TestParityCorpusStored(t *testing.T) {
	answers := oracletest.StoredAnswers(t)
	files := oracletest.Transcripts(t)
	n := 0
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			a, ok := answers[filepath.Base(f)+"|repair"]
			if !ok || !a.OK {
				t.Fatalf("no stored repair answer (ok=%v %s)", a.OK, a.Error)
			}
			checkParity(t, f, a.Out)
			n++
		})
	}
	oracletest.Compared(t, "stored repair answers equal (corpus transcripts)", n, len(files))
}

// Damaged copies of the corpus: one oracle batch for parity (openclaw set)
// and for the context checks of the default set.
func TestOracleDamagedCorpus(t *testing.T) {
	if testing.Short() {
		oracletest.Unavailable(t, "-short: the damaged-corpus oracle batch is not run")
	}
	corpus := oracletest.Transcripts(t)
	stored := oracletest.StoredAnswers(t)
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
	var withContext []string
	for _, p := range paths {
		jobs = append(jobs, oracletest.Job{ID: "repair|" + p, Mode: "repair", Args: []string{p}})
		exp := expectedAfterPerfectRepair(t, stored, damaged[p], p)
		if exp == "" {
			continue
		}
		// The default rule set's result must open in OpenClaw with the history a perfect repair keeps.
		_, out, _ := renderPlan(t, p, RuleSetAll)
		ocPath := filepath.Join(ocDir, filepath.Base(p))
		if err := os.WriteFile(ocPath, out, 0o644); err != nil {
			t.Fatal(err)
		}
		withContext = append(withContext, p)
		jobs = append(jobs, oracletest.Job{ID: "ctx-oc|" + p, Mode: "context", Args: []string{ocPath}},
			oracletest.Job{ID: "ctx-expect|" + p, Mode: "context", Args: []string{exp}})
	}
	res := oracletest.Batch(t, jobs, 10*time.Minute)
	parity := 0
	for _, p := range paths {
		t.Run("repair/"+filepath.Base(p), func(t *testing.T) {
			r, ok := res["repair|"+p]
			if !ok || !r.OK {
				t.Fatalf("oracle repair failed: %s", r.Error)
			}
			checkParity(t, p, r.Out)
			parity++
		})
	}
	contexts := 0
	for _, p := range withContext {
		t.Run("context/"+filepath.Base(p), func(t *testing.T) {
			ctxOC, ctxExp := res["ctx-oc|"+p], res["ctx-expect|"+p]
			if !ctxOC.OK || !ctxExp.OK {
				t.Fatalf("oracle context failed: %s %s", ctxOC.Error, ctxExp.Error)
			}
			var a, b struct {
				Messages []any `json:"messages"`
			}
			if err := json.Unmarshal(ctxOC.Out, &a); err != nil {
				t.Fatalf("oracle context of oc's repair: %v", err)
			}
			if err := json.Unmarshal(ctxExp.Out, &b); err != nil {
				t.Fatalf("oracle context of the expectation: %v", err)
			}
			if !reflect.DeepEqual(a.Messages, b.Messages) {
				t.Fatalf("OpenClaw's context of oc's repair has %d messages, a perfect repair %d", len(a.Messages), len(b.Messages))
			}
			contexts++
		})
	}
	oracletest.Compared(t, "live repair parity on damaged corpus copies (transcripts x applicable damage kinds)", parity, len(paths))
	oracletest.Compared(t, "live context of oc's repair vs a perfect repair (damage kinds with a known loss)", contexts, len(withContext))
}

// expectedAfterPerfectRepair writes what a perfect repair of the damaged file
// keeps, built without oc's repair code: OpenClaw's own repair of the
// undamaged original (its stored `repair` answer, which rewrites the corpus's
// empty error turns and blank user turns line for line) minus the entry the
// damage made unrecoverable, with that entry's children re-linked to its
// parent. It returns "" for damage kinds where the comparison does not apply.
func expectedAfterPerfectRepair(t *testing.T, stored map[string]oracletest.Answer, orig, damagedPath string) string {
	t.Helper()
	raw, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	kind := ""
	for _, d := range damages {
		if strings.HasSuffix(damagedPath, "."+d.name+".jsonl") {
			kind = d.name
		}
	}
	ls := splitLines(raw)
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
	ans, ok := stored[filepath.Base(orig)+"|repair"]
	if !ok || !ans.OK {
		t.Fatalf("%s: no stored oracle repair answer to build the expectation from", filepath.Base(orig))
	}
	var rep oracleRepair
	if err := json.Unmarshal(ans.Out, &rep); err != nil {
		t.Fatalf("%s: stored repair answer: %v", filepath.Base(orig), err)
	}
	if rep.Result.Repaired {
		fixed := splitLines([]byte(rep.Output))
		if len(fixed) != len(ls) || rep.Result.DroppedLines != 0 {
			t.Fatalf("%s: OpenClaw's repair of the original is not line for line (%d lines, %d before)", filepath.Base(orig), len(fixed), len(ls))
		}
		ls = fixed
	}
	var lostID, lostParent any
	if lostIdx >= 0 {
		var v map[string]any
		if err := json.Unmarshal(ls[lostIdx], &v); err != nil {
			t.Fatalf("%s: line %d: %v", filepath.Base(orig), lostIdx+1, err)
		}
		lostID, lostParent = v["id"], v["parentId"]
	}
	var keep [][]byte
	for i, l := range ls {
		if i == lostIdx {
			continue
		}
		if lostID != nil && i > lostIdx {
			var v map[string]any
			if err := json.Unmarshal(l, &v); err == nil && v["parentId"] == lostID {
				l = replaceParent(t, l, lostParent)
			}
		}
		keep = append(keep, l)
	}
	p := filepath.Join(filepath.Dir(damagedPath), "expect", filepath.Base(damagedPath))
	if err := os.WriteFile(p, joinLines(keep), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// replaceParent sets an entry line's parentId with encoding/json (member
// order does not matter to OpenClaw's context).
func replaceParent(t *testing.T, line []byte, parent any) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(parent)
	if err != nil {
		t.Fatal(err)
	}
	m["parentId"] = b
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
