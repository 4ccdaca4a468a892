package sanitize96

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/internal/replaytest"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// testdata/replay/rules96/*.jsonl are transcripts built for the steps
// 2026.9.6 changed (make-rules96.py writes them).
// testdata/replay/rules96-answers.jsonl holds the 9.6 oracle's context and
// sanitize answers. Regenerate after changing a
// transcript (the oracle imports each file first: minutes):
//
//	OC_LIVE_ORACLE=1 go test ./pkg/replay -run TestRule96TranscriptsLiveOracle -update-rules96 -timeout 1h
var updateRules96 = flag.Bool("update-rules96", false, "re-ask the 2026.9.6 oracle about the rule transcripts and rewrite rules96-answers.jsonl")

const (
	rule96Dir     = "../../../../testdata/replay/rules96"
	rule96Answers = "../../../../testdata/replay/rules96-answers.jsonl"
)

// rule96Triples are asked for every rule transcript.
var rule96Triples = [][3]string{
	{"anthropic", "anthropic-messages", "claude-sonnet-4-5"},
	{"openai", "openai-responses", "gpt-5"},
	{"openai", "openai-chatgpt-responses", "gpt-5.5"},
	{"google", "google-generative-ai", "gemini-2.5-pro"},
	{"mistral", "mistral-conversations", "mistral-large-latest"},
	{"ollama", "openai-completions", "gemma4:27b"},
}

// rule96ExtraTriples are the routes a transcript's rule needs besides.
var rule96ExtraTriples = map[string][][3]string{
	// append-only runtime context: consecutive user turns stay apart.
	"turn-merge.jsonl":            {{"anthropic", "anthropic-messages", "claude-opus-5-5"}, {"openai", "openai-completions", "gpt-4o-mini"}},
	"compaction-signatures.jsonl": {{"anthropic", "anthropic-messages", "claude-opus-4-6"}, {"minimax", "anthropic-messages", "MiniMax-M2"}},
	"occurrence-pairing.jsonl":    {{"openai", "openai-completions", "gpt-4o-mini"}},
	"model-switch.jsonl":          {{"azure-openai-responses", "azure-openai-responses", "gpt-5"}},
}

type rule96Job struct {
	file, path string // base name, absolute path
	triple     [3]string
}

func (j rule96Job) key() string {
	return strings.Join([]string{j.file, "sanitize", j.triple[0], j.triple[1], j.triple[2]}, "|")
}

// rule96Jobs lists every (transcript, triple) the stored answers cover.
func rule96Jobs(t testing.TB) []rule96Job {
	t.Helper()
	var files []string
	for _, dir := range []string{rule96Dir} {
		fs, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if err != nil || len(fs) == 0 {
			t.Fatalf("no rule transcripts in %s (%v)", dir, err)
		}
		files = append(files, fs...)
	}
	sort.Strings(files)
	var jobs []rule96Job
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		for _, tr := range append(append([][3]string{}, rule96Triples...), rule96ExtraTriples[name]...) {
			jobs = append(jobs, rule96Job{name, abs, tr})
		}
	}
	return jobs
}

// fileSnapshots is ModelSnapshotsOnBranch over a linear transcript file.
func fileSnapshots(t testing.TB, path string) []sanitize.ModelSnapshot {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	for _, l := range strings.Split(string(data), "\n") {
		lines = append(lines, []byte(l))
	}
	snaps, err := ModelSnapshotsOnBranch(lines)
	if err != nil {
		t.Fatal(err)
	}
	return snaps
}

// compareRule96 compares one job's three stages with an oracle answer.
func compareRule96(t testing.TB, j rule96Job, ctxOut, sanOut json.RawMessage) []string {
	t.Helper()
	var c struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(ctxOut, &c); err != nil {
		t.Fatalf("%s: context answer: %v", j.key(), err)
	}
	var w sanitize96Answer
	if err := json.Unmarshal(sanOut, &w); err != nil {
		t.Fatalf("%s: sanitize answer: %v", j.key(), err)
	}
	for _, stage := range []*[]json.RawMessage{&w.Sanitized, &w.Validated, &w.Limited} {
		*stage = jsStringified(t, *stage)
	}
	_, diffs := run96(t, jsStringified(t, c.Messages), j.triple[:], fileSnapshots(t, j.path), w)
	return diffs
}

// sameFailure96: where the oracle threw (OpenClaw sends nothing), Sanitize
// must fail with the same error ("" when it does).
func sameFailure96(t testing.TB, j rule96Job, ctxOut json.RawMessage, oracleErr string) string {
	t.Helper()
	var c struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(ctxOut, &c); err != nil {
		t.Fatal(err)
	}
	msgs, err := jsvalue.DecodeMessages(c.Messages, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Pipeline().Run(msgs, sanitize.Options{Release: policy.Release96, Provider: j.triple[0], API: j.triple[1], Model: j.triple[2],
		ModelSnapshots: fileSnapshots(t, j.path), Now: replaytest.FixedNow96})
	first := strings.SplitN(oracleErr, "\n", 2)[0]
	if err == nil || !strings.Contains(first, strings.SplitN(err.Error(), " (OpenClaw", 2)[0]) {
		return "the oracle failed (" + first + "), Sanitize gave " + errText(err)
	}
	return ""
}

func errText(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

func TestRule96TranscriptsMatchStoredOracleAnswers(t *testing.T) {
	f, err := os.Open(rule96Answers)
	if err != nil {
		t.Fatalf("%v: regenerate with -update-rules96", err)
	}
	defer f.Close()
	answers := map[string]oracletest.Answer{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var a oracletest.Answer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("%s: %v", rule96Answers, err)
		}
		answers[strings.Join(a.ID, "|")] = a
	}
	jobs := rule96Jobs(t)
	matched := 0
	for _, j := range jobs {
		ctx, san := answers[j.file+"|context"], answers[j.key()]
		if !ctx.OK || (!san.OK && san.Error == "") {
			t.Errorf("%s: no usable stored answer (%s %s): regenerate with -update-rules96", j.key(), ctx.Error, san.Error)
			continue
		}
		if !san.OK {
			if d := sameFailure96(t, j, ctx.Out, san.Error); d != "" {
				t.Errorf("%s: %s", j.key(), d)
				continue
			}
			matched++
			continue
		}
		if diffs := compareRule96(t, j, ctx.Out, san.Out); len(diffs) > 0 {
			t.Errorf("%s:\n  %s", j.key(), strings.Join(diffs, "\n  "))
			continue
		}
		matched++
	}
	oracletest.Compared(t, "2026.9.6 stored sanitize answers of the rule transcripts equal in all three stages", matched, len(jobs))
}

// TestRule96TranscriptsLiveOracle asks the 2026.9.6 oracle about every rule
// transcript and compares (with -update-rules96 it rewrites the stored
// answers instead).
func TestRule96TranscriptsLiveOracle(t *testing.T) {
	oracletest.RequireLive(t, "2026.9.6 rule transcripts")
	jobs := rule96Jobs(t)
	// One batch per transcript, the answers written after each, so that an
	// interrupted run keeps what it got.
	res := map[string]oracletest.Result{}
	var order []string
	for start := 0; start < len(jobs); {
		end := start
		for end < len(jobs) && jobs[end].file == jobs[start].file {
			end++
		}
		batch := []oracletest.Job{{ID: jobs[start].file + "|context", Mode: "context", Args: []string{jobs[start].path}}}
		for _, j := range jobs[start:end] {
			batch = append(batch, oracletest.Job{ID: j.key(), Mode: "sanitize", Args: []string{j.path, j.triple[0], j.triple[1], j.triple[2]}})
		}
		for id, r := range oracletest.Batch96(t, batch, 30*time.Minute) {
			res[id] = r
		}
		for _, job := range batch {
			order = append(order, job.ID)
		}
		start = end
		if !*updateRules96 {
			continue
		}
		var b strings.Builder
		for _, id := range order {
			r := res[id]
			line, err := json.Marshal(oracletest.Answer{ID: strings.Split(id, "|"), OK: r.OK, Out: r.Out, Error: r.Error})
			if err != nil {
				t.Fatal(err)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		if err := os.WriteFile(rule96Answers, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	matched := 0
	for _, j := range jobs {
		ctx, san := res[j.file+"|context"], res[j.key()]
		if !ctx.OK {
			t.Errorf("%s: oracle failed: %s", j.key(), ctx.Error)
			continue
		}
		if !san.OK {
			if d := sameFailure96(t, j, ctx.Out, san.Error); d != "" {
				t.Errorf("%s: %s", j.key(), d)
				continue
			}
			matched++
			continue
		}
		if diffs := compareRule96(t, j, ctx.Out, san.Out); len(diffs) > 0 {
			t.Errorf("%s:\n  %s", j.key(), strings.Join(diffs, "\n  "))
			continue
		}
		matched++
	}
	oracletest.Compared(t, "2026.9.6 live sanitize answers of the rule transcripts equal in all three stages", matched, len(jobs))
}
