package replay

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/internal/replaytest"
)

// Crafted transcripts for the 2026.9.6 LLM boundary and renderers
// (testdata/payload96): boundary.jsonl has user turns with inbound metadata
// (headers marked ⟦openclaw:ctx⟧, a message-tool delivery hint), blank text
// blocks, an already stamped envelope, a cron "Current time: " text, an
// inter-session message, historical and current runtime context, in winter
// and in summer; reasoning.jsonl has openai-chatgpt-responses turns with
// encrypted reasoning items (one without summary, one unparseable), text
// signatures with a phase and no id, a tool call with a "|" id, and a turn
// of another model; sender.jsonl has user turns with persisted sender
// metadata (__openclaw.senderId, a Conversation info block to merge into,
// an inter-session turn). answers.jsonl holds the 9.6 oracle's sanitize and
// payload answers for them (gen.sh), per variant below.

// payload96Variant is one oracle process environment.
type payload96Variant struct {
	name, tz, modelJSON string
	triples             []string // "file:provider:api:model"
}

var payload96Variants = func() []payload96Variant {
	all := []string{"anthropic:anthropic-messages:claude-sonnet-4-5", "openai:openai-responses:gpt-5",
		"openai:openai-chatgpt-responses:gpt-5.5", "google:google-generative-ai:gemini-2.5-pro", "openai:openai-completions:gpt-4o-mini"}
	var utc []string
	for _, f := range []string{"boundary.jsonl", "reasoning.jsonl"} {
		for _, t := range all {
			utc = append(utc, f+":"+t)
		}
	}
	zoned := []string{"boundary.jsonl:anthropic:anthropic-messages:claude-sonnet-4-5", "boundary.jsonl:openai:openai-responses:gpt-5"}
	return []payload96Variant{
		{name: "utc", tz: "UTC", triples: utc},
		{name: "kolkata", tz: "Asia/Kolkata", triples: zoned},
		{name: "newyork", tz: "America/New_York", triples: zoned},
		{name: "model", tz: "UTC", modelJSON: `{"maxTokens":64000,"reasoning":true,"input":["text"]}`, triples: []string{
			"boundary.jsonl:anthropic:anthropic-messages:claude-sonnet-4-5",
			"reasoning.jsonl:openai:openai-chatgpt-responses:gpt-5.5",
			"reasoning.jsonl:openai:openai-responses:gpt-5"}},
		{name: "more", tz: "UTC", triples: []string{
			"boundary.jsonl:azure-openai-responses:azure-openai-responses:gpt-5",
			"boundary.jsonl:google-vertex:google-vertex:gemini-2.5-pro",
			"boundary.jsonl:mistral:mistral-conversations:mistral-large-latest",
			"reasoning.jsonl:azure-openai-responses:azure-openai-responses:gpt-5",
			"reasoning.jsonl:google-vertex:google-vertex:gemini-2.5-pro",
			"reasoning.jsonl:mistral:mistral-conversations:mistral-large-latest"}},
		{name: "sender", tz: "UTC", triples: []string{
			"sender.jsonl:anthropic:anthropic-messages:claude-sonnet-4-5",
			"sender.jsonl:openai:openai-responses:gpt-5"}},
	}
}()

// checkCrafted96 renders one crafted case (the oracle's sanitize answer as
// input) and compares it with the oracle's payload answer; it reports
// whether they are equal.
func checkCrafted96(t *testing.T, name string, v payload96Variant, provider, api, model string, san, pay oracletest.Result) bool {
	t.Helper()
	if !san.OK {
		t.Errorf("%s: oracle sanitize failed: %s", name, san.Error)
		return false
	}
	loc, err := time.LoadLocation(v.tz)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	msgs := limitedMessages(t, san.Out)
	in := PayloadInput{Release: policy.Release96, Location: loc, Provider: provider, API: api, Model: model, Messages: msgs}
	if v.modelJSON != "" {
		in.ModelOverrides = []byte(v.modelJSON)
	}
	p, err := BuildPayload(in)
	if !pay.OK {
		if err == nil {
			t.Errorf("%s: oracle failed (%s) but BuildPayload succeeded", name, pay.Error)
			return false
		}
		return true
	}
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return false
	}
	got, err := p.AppendJSON(nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if d := wireDifference(t, got, reencodeJS(t, pay.Out)); d != "" {
		t.Errorf("%s: payload differs from the 2026.9.6 oracle's\n%s", name, d)
		return false
	}
	return true
}

// TestPayload96CraftedStoredAnswers: the crafted transcripts against the
// stored oracle answers (time zones, inbound metadata, runtime context,
// ChatGPT reasoning items, model overrides).
func TestPayload96CraftedStoredAnswers(t *testing.T) {
	answers := map[string]oracletest.Result{}
	replaytest.ReadJSONLines(t, filepath.Join("testdata", "payload96", "answers.jsonl"), func(line []byte) {
		var r oracletest.Result
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("answers.jsonl: %v", err)
		}
		answers[r.ID] = r
	})
	want, equal := 0, 0
	for _, v := range payload96Variants {
		for _, tr := range v.triples {
			parts := strings.Split(tr, ":")
			file, provider, api, model := parts[0], parts[1], parts[2], parts[3]
			key := func(mode string) string {
				return strings.Join([]string{v.name, file, mode, provider, api, model}, "|")
			}
			san, ok1 := answers[key("sanitize")]
			pay, ok2 := answers[key("payload")]
			want++
			if !ok1 || !ok2 {
				t.Errorf("%s: no stored answer: run testdata/payload96/gen.sh", key("payload"))
				continue
			}
			if checkCrafted96(t, key("payload"), v, provider, api, model, san, pay) {
				equal++
			}
		}
	}
	oracletest.Compared(t, "2026.9.6 crafted payload answers equal byte for byte", equal, want)
}

// TestPayload96CraftedLive asks the live 2026.9.6 oracle the same questions
// (OC_LIVE_ORACLE=1; about 15 minutes: one batch per variant;
// OC_PAYLOAD96_VARIANT=<name> asks one variant only).
func TestPayload96CraftedLive(t *testing.T) {
	oracletest.RequireLive(t, "2026.9.6 crafted payloads against the live oracle")
	dir, err := filepath.Abs(filepath.Join("testdata", "payload96"))
	if err != nil {
		t.Fatal(err)
	}
	want, equal := 0, 0
	only := os.Getenv("OC_PAYLOAD96_VARIANT")
	for _, v := range payload96Variants {
		if only != "" && v.name != only {
			continue
		}
		var jobs []oracletest.Job
		for _, tr := range v.triples {
			parts := strings.Split(tr, ":")
			for _, mode := range []string{"sanitize", "payload"} {
				jobs = append(jobs, oracletest.Job{ID: mode + "|" + tr, Mode: mode,
					Args: []string{filepath.Join(dir, parts[0]), parts[1], parts[2], parts[3]}})
			}
		}
		env := []string{"ORACLE_TZ=" + v.tz, "ORACLE_MODEL_JSON=" + v.modelJSON}
		res := oracletest.Batch96Env(t, jobs, env, 15*time.Minute)
		for _, tr := range v.triples {
			parts := strings.Split(tr, ":")
			want++
			if checkCrafted96(t, v.name+"|"+tr, v, parts[1], parts[2], parts[3], res["sanitize|"+tr], res["payload|"+tr]) {
				equal++
			}
		}
	}
	oracletest.Compared(t, "2026.9.6 crafted payloads equal the live oracle's", equal, want)
}
