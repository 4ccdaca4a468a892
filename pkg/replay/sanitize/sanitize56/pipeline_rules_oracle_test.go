package sanitize56

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/replay/internal/replaytest"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// testdata/replay/rules/*.jsonl are transcripts built to hit each rule;
// testdata/replay/rules-answers.jsonl holds the oracle's context and
// sanitize answers for them (same format as the corpus answers).
// Regenerate after changing a transcript (slow: the oracle loads provider
// plugins for every job):
//
//	go test ./pkg/replay -run TestRuleTranscriptsMatchOracle -update-rule-answers -timeout 3h
var updateRuleAnswers = flag.Bool("update-rule-answers", false, "re-ask the oracle about testdata/replay/rules and rewrite rules-answers.jsonl")

const (
	ruleDir     = "../../../../testdata/replay/rules"
	ruleAnswers = "../../../../testdata/replay/rules-answers.jsonl"
)

func loadRuleAnswers(t *testing.T) map[string]oracletest.Answer {
	t.Helper()
	f, err := os.Open(ruleAnswers)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]oracletest.Answer{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var a oracletest.Answer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("%s: %v", ruleAnswers, err)
		}
		out[strings.Join(a.ID, "|")] = a
	}
	return out
}

// normalizeImageData replaces re-encoded image data (sharp's bytes differ from
// Go's) with its decoded type and size, in place.
func normalizeImageData(v any) {
	switch x := v.(type) {
	case map[string]any:
		if x["type"] == "image" {
			if s, ok := x["data"].(string); ok {
				if b, err := base64.StdEncoding.DecodeString(s); err == nil {
					if cfg, format, err := image.DecodeConfig(strings.NewReader(string(b))); err == nil {
						x["data"] = fmt.Sprintf("<%s %dx%d>", format, cfg.Width, cfg.Height)
					}
				}
			}
		}
		for _, e := range x {
			normalizeImageData(e)
		}
	case []any:
		for _, e := range x {
			normalizeImageData(e)
		}
	}
}

func TestRuleTranscriptsMatchOracle(t *testing.T) {
	if *updateRuleAnswers {
		regenerateRuleAnswers(t)
	}
	answers := loadRuleAnswers(t)
	// The jobs regenerateRuleAnswers asks: every rule transcript with
	// ruleTriples and its ruleExtraTriples. Each must have a stored answer.
	files, err := filepath.Glob(filepath.Join(ruleDir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no rule transcripts in %s (%v)", ruleDir, err)
	}
	sort.Strings(files)
	var keys []string
	for _, f := range files {
		name := filepath.Base(f)
		for _, tr := range append(append([][3]string{}, ruleTriples...), ruleExtraTriples[name]...) {
			keys = append(keys, strings.Join([]string{name, "sanitize", tr[0], tr[1], tr[2]}, "|"))
		}
	}
	total, matched := 0, 0
	for _, key := range keys {
		id := strings.Split(key, "|")
		if _, ok := answers[key]; !ok {
			t.Errorf("%s: no stored answer: regenerate with -update-rule-answers", key)
			continue
		}
		ctx, ok := answers[id[0]+"|context"]
		if !ok || !ctx.OK || !answers[key].OK {
			t.Errorf("%s: no usable oracle answer", key)
			continue
		}
		total++
		var want sanitizeAnswer
		if err := json.Unmarshal(answers[key].Out, &want); err != nil {
			t.Fatal(err)
		}
		res, err := Pipeline().Run(contextMessages(t, ctx.Out), sanitize.Options{Provider: id[2], API: id[3], Model: id[4], Now: replaytest.FixedNow})
		if err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		var diffs []string
		for _, st := range []struct {
			name string
			got  []sanitize.Message
			want []json.RawMessage
		}{{"sanitized", res.Sanitized, want.Sanitized}, {"validated", res.Validated, want.Validated}, {"limited", res.Limited, want.Limited}} {
			w := replaytest.PlainRaw(t, st.want)
			g := replaytest.Plain(t, st.got)
			normalizeImageData(w)
			normalizeImageData(g)
			gb, _ := json.Marshal(g)
			var gm []sanitize.Message
			_ = json.Unmarshal(gb, &gm)
			if d := replaytest.CompareStage(t, gm, w); d != "" {
				diffs = append(diffs, st.name+d)
			}
		}
		if len(diffs) > 0 {
			t.Errorf("%s:\n  %s", key, strings.Join(diffs, "\n  "))
			continue
		}
		matched++
	}
	t.Logf("rule transcripts: %d of %d (file, triple) pairs equal the oracle in all three stages", matched, total)
	oracletest.Compared(t, "stored sanitize answers of the rule transcripts equal in all three stages (rule transcripts x their triples)", matched, len(keys))
}

// ruleTriples are asked for every rule transcript; some transcripts add
// the routes their rule needs.
var ruleTriples = [][3]string{
	{"anthropic", "anthropic-messages", "claude-sonnet-4-5"},
	{"openai", "openai-responses", "gpt-5"},
	{"google", "google-generative-ai", "gemini-2.5-pro"},
	{"mistral", "mistral-conversations", "mistral-large-latest"},
	{"ollama", "openai-completions", "gemma4:27b"},
}

// allRouteTriples: the ten corpus triples' other routes plus the extra
// routes of the rule files, asked for the transcripts every route must take.
var allRouteTriples = [][3]string{
	{"openai", "openai-completions", "gpt-4o-mini"},
	{"openai-codex", "openai-codex-responses", "gpt-5.5"},
	{"amazon-bedrock", "bedrock-converse-stream", "anthropic.claude-sonnet-4-5"},
	{"openrouter", "openai-completions", "google/gemini-2.5-pro"},
	{"minimax", "anthropic-messages", "MiniMax-M2"},
	{"anthropic", "anthropic-messages", "claude-3-7-sonnet-20250219"},
	{"vllm", "openai-completions", "gemma4:27b"},
	{"github-copilot", "openai-completions", "claude-opus-4.6"},
	{"moonshot", "openai-completions", "kimi-k2.6"},
	{"lmstudio", "openai-completions", "qwen3-32b"},
}

var ruleExtraTriples = map[string][][3]string{
	"assistant-first.jsonl":       allRouteTriples,
	"assistant-text.jsonl":        allRouteTriples,
	"blank-user.jsonl":            allRouteTriples[:3],
	"old-claude-thinking.jsonl":   {{"anthropic", "anthropic-messages", "claude-3-7-sonnet-20250219"}, {"github-copilot", "openai-completions", "claude-opus-4.6"}},
	"reasoning-history.jsonl":     {{"vllm", "openai-completions", "gemma4:27b"}, {"lmstudio", "openai-completions", "qwen3-32b"}},
	"thought-signatures.jsonl":    {{"openrouter", "openai-completions", "google/gemini-2.5-pro"}, {"openai", "openai-completions", "gpt-4o-mini"}},
	"tool-ids.jsonl":              {{"moonshot", "openai-completions", "kimi-k2.6"}, {"amazon-bedrock", "bedrock-converse-stream", "anthropic.claude-sonnet-4-5"}},
	"signed-thinking-tools.jsonl": {{"amazon-bedrock", "bedrock-converse-stream", "anthropic.claude-sonnet-4-5"}, {"minimax", "anthropic-messages", "MiniMax-M2"}},
	"responses-reasoning.jsonl":   {{"openai-codex", "openai-codex-responses", "gpt-5.5"}},
	"pairing.jsonl":               {{"openai-codex", "openai-codex-responses", "gpt-5.5"}},
	"thinking-signatures.jsonl":   {{"amazon-bedrock", "bedrock-converse-stream", "anthropic.claude-sonnet-4-5"}},
}

func regenerateRuleAnswers(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(ruleDir, "*.jsonl"))
	sort.Strings(files)
	var jobs []oracletest.Job
	ids := map[string][]string{}
	add := func(id []string, mode string, args []string) {
		key := strings.Join(id, "|")
		ids[key] = id
		jobs = append(jobs, oracletest.Job{ID: key, Mode: mode, Args: args})
	}
	for _, f := range files {
		abs, _ := filepath.Abs(f)
		name := filepath.Base(f)
		add([]string{name, "context"}, "context", []string{abs})
		for _, tr := range append(append([][3]string{}, ruleTriples...), ruleExtraTriples[name]...) {
			add([]string{name, "sanitize", tr[0], tr[1], tr[2]}, "sanitize", []string{abs, tr[0], tr[1], tr[2]})
		}
	}
	res := oracletest.Batch(t, jobs, 3*time.Hour)
	var b strings.Builder
	for _, j := range jobs {
		r := res[j.ID]
		line, _ := json.Marshal(oracletest.Answer{ID: ids[j.ID], OK: r.OK, Out: r.Out, Error: r.Error})
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(ruleAnswers, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRuleTranscriptsLiveOracle re-asks the oracle about one rule
// transcript per run of the full suite (a sample: the whole set is slow).
func TestRuleTranscriptsLiveOracle(t *testing.T) {
	if testing.Short() {
		oracletest.Unavailable(t, "-short: live oracle comparison not run")
	}
	abs, _ := filepath.Abs(filepath.Join(ruleDir, "pairing.jsonl"))
	tr := ruleTriples[0]
	res := oracletest.Batch(t, []oracletest.Job{
		{ID: "ctx", Mode: "context", Args: []string{abs}},
		{ID: "san", Mode: "sanitize", Args: []string{abs, tr[0], tr[1], tr[2]}},
	}, 10*time.Minute)
	if !res["ctx"].OK || !res["san"].OK {
		t.Fatalf("oracle: %s %s", res["ctx"].Error, res["san"].Error)
	}
	var want sanitizeAnswer
	if err := json.Unmarshal(res["san"].Out, &want); err != nil {
		t.Fatalf("oracle sanitize answer: %v", err)
	}
	got, err := Pipeline().Run(contextMessages(t, res["ctx"].Out), sanitize.Options{Provider: tr[0], API: tr[1], Model: tr[2], Now: replaytest.FixedNow})
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	if d := replaytest.CompareStage(t, got.Limited, replaytest.PlainRaw(t, want.Limited)); d != "" {
		t.Errorf("pairing.jsonl %v limited: %s", tr, d)
	} else {
		compared++
	}
	oracletest.Compared(t, "live sanitize of pairing.jsonl (one sample)", compared, 1)
}
