package replay

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/replay/internal/replaytest"
)

// Differential test of the api families added after the first seven
// (azure-openai-responses, google-vertex; google-gemini-cli has no body)
// on the corpus transcripts, on testdata/replay/rules/*.jsonl and on
// testdata/replay/payload/*.jsonl (turns of the new families themselves:
// same-model reasoning items, signatures and "call|item" ids).
//
// Live (one `oracle batch` for every job, about 10 minutes):
//
//	OC_LIVE_ORACLE_FULL=1 go test ./pkg/replay -run TestPayloadNewAPIsMatchOracle -timeout 1h
//
// Stored answers, so that the default `go test` checks the same jobs without
// Node: testdata/replay/payload/new-apis-answers.jsonl. Regenerate them (a
// live run that also rewrites the file) after changing a rule transcript or
// the job list:
//
//	go test ./pkg/replay -run TestPayloadNewAPIsMatchOracle -update-new-api-answers -timeout 1h
//
// The corpus holds people's data, which must not be copied into the repo:
// for corpus jobs the file keeps only SHA-256 digests (of the oracle's exact
// payload bytes and of its normalised JSON, and of the normalised `limited`
// list), never text. The stored-answer run therefore takes its input for a
// corpus file from the pipeline (Sanitize on the stored corpus context
// answer) and compares digests; a live run takes the oracle's own `limited`
// and prints the first difference. Rule transcripts are repo data: their
// oracle `limited` list and payload are stored whole.
var updateNewAPIAnswers = flag.Bool("update-new-api-answers", false,
	"re-ask the oracle about the new api families and rewrite testdata/replay/payload/new-apis-answers.jsonl")

const (
	newAPIDir     = "../../testdata/replay/payload"
	newAPIAnswers = newAPIDir + "/new-apis-answers.jsonl"
)

// newAPITriples are asked for every transcript: the `--provider all` rows
// of the new families (routes.go routeDefaults).
var newAPITriples = [][3]string{
	{"azure-openai-responses", "azure-openai-responses", "gpt-5"},
	{"google-vertex", "google-vertex", "gemini-2.5-pro"},
}

// newAPIRuleTriples are asked for the rule transcripts of newAPIRuleFiles:
// other models of the same families (no reasoning, reasoning without an
// off level, Gemini 3 nesting tool-result images, Claude ids on Vertex).
var newAPIRuleTriples = [][3]string{
	{"azure-openai-responses", "azure-openai-responses", "gpt-4o-mini"},
	{"azure-openai-responses", "azure-openai-responses", "o3"},
	{"google-vertex", "google-vertex", "gemini-3-pro-preview"},
	{"google-vertex", "google-vertex", "claude-sonnet-4-5"},
}

var newAPIRuleFiles = map[string]bool{
	"images.jsonl": true, "tool-ids.jsonl": true, "responses-reasoning.jsonl": true,
	"thought-signatures.jsonl": true, "pairing.jsonl": true, "signed-thinking-tools.jsonl": true,
}

// newAPINoBody are routes whose api has no wire body: the oracle must fail
// and so must BuildPayload.
var newAPINoBody = [][3]string{
	{"google-gemini-cli", "google-gemini-cli", "gemini-2.5-pro"},
	{"google-antigravity", "google-gemini-cli", "gemini-3-pro-high"},
}

// newAPIAnswer is one line of new-apis-answers.jsonl.
type newAPIAnswer struct {
	ID    []string        `json:"id"` // file, mode (sanitize|payload), provider, api, model
	OK    bool            `json:"ok"`
	Out   json.RawMessage `json:"out,omitempty"`   // rule transcripts: {"limited":[...]} or the payload
	Error string          `json:"error,omitempty"` // rule transcripts: the oracle's error
	// Corpus transcripts: digests only.
	Bytes string `json:"bytes,omitempty"` // payload: SHA-256 of the oracle's exact bytes (the comparison is byte-exact)
	Norm  string `json:"norm,omitempty"`  // sanitize: of the normalised limited list (older files: also on payloads, unused)
}

type newAPIJob struct {
	id     []string
	path   string
	corpus bool
}

func newAPIJobs(t *testing.T) []newAPIJob {
	var jobs []newAPIJob
	add := func(path string, corpus bool, triples ...[3]string) {
		for _, tr := range triples {
			for _, mode := range []string{"sanitize", "payload"} {
				jobs = append(jobs, newAPIJob{id: []string{filepath.Base(path), mode, tr[0], tr[1], tr[2]}, path: path, corpus: corpus})
			}
		}
	}
	for _, f := range oracletest.Transcripts(t) {
		add(f, true, newAPITriples...)
	}
	rules, _ := filepath.Glob(filepath.Join("../../testdata/replay/rules", "*.jsonl")) // the sanitize rule transcripts
	sort.Strings(rules)
	// testdata/replay/payload/*.jsonl: turns of the new families themselves.
	own, _ := filepath.Glob(filepath.Join(newAPIDir, "*.jsonl"))
	sort.Strings(own)
	for _, f := range own {
		if f != filepath.Clean(newAPIAnswers) {
			rules = append(rules, f)
		}
	}
	for i, f := range rules {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		add(abs, false, newAPITriples...)
		if newAPIRuleFiles[filepath.Base(f)] || filepath.Dir(f) == newAPIDir {
			add(abs, false, newAPIRuleTriples...)
		}
		if i == 0 {
			add(abs, false, newAPINoBody...)
		}
	}
	return jobs
}

// newAPIAnswersFromOracle runs every job in one oracle batch and returns the
// answers in the stored form (digests for corpus jobs) and the raw results.
func newAPIAnswersFromOracle(t *testing.T, jobs []newAPIJob) ([]newAPIAnswer, map[string]oracletest.Result) {
	batch := make([]oracletest.Job, len(jobs))
	for i, j := range jobs {
		batch[i] = oracletest.Job{ID: strings.Join(j.id, "|"), Mode: j.id[1], Args: append([]string{j.path}, j.id[2:]...)}
	}
	res := oracletest.Batch(t, batch, time.Hour)
	out := make([]newAPIAnswer, 0, len(jobs))
	for i, j := range jobs {
		r, ok := res[batch[i].ID]
		if !ok {
			t.Fatalf("oracle batch: no answer for %s", batch[i].ID)
		}
		a := newAPIAnswer{ID: j.id, OK: r.OK}
		switch {
		case !r.OK && !j.corpus:
			a.Error = r.Error
		case !r.OK: // corpus: an error message may quote the transcript
		case j.id[1] == "sanitize":
			var s struct {
				Limited json.RawMessage `json:"limited"`
			}
			if err := json.Unmarshal(r.Out, &s); err != nil {
				t.Fatalf("%s: %v", batch[i].ID, err)
			}
			if j.corpus {
				a.Norm = limitedDigest(t, decodeJSON(t, s.Limited))
			} else {
				a.Out, _ = json.Marshal(map[string]json.RawMessage{"limited": s.Limited})
			}
		case j.corpus:
			a.Bytes = sha(r.Out)
		default:
			a.Out = r.Out
		}
		out = append(out, a)
	}
	return out, res
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// limitedDigest digests a `limited` list (decoded with UseNumber) without
// the messages' timestamps (synthetic tool results and turns carry
// Date.now(), and no body of these families holds a message timestamp) and
// with image data replaced by decoded type and size.
func limitedDigest(t testing.TB, v any) string {
	l, _ := v.([]any)
	for _, m := range l {
		if mm, ok := m.(map[string]any); ok {
			delete(mm, "timestamp")
		}
	}
	normalizeImages(t, v)
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return sha(out)
}

func readNewAPIAnswers(t *testing.T) []newAPIAnswer {
	f, err := os.Open(newAPIAnswers)
	if err != nil {
		t.Fatalf("%v (regenerate with -update-new-api-answers)", err)
	}
	defer f.Close()
	var out []newAPIAnswer
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		var a newAPIAnswer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("%s:%d: %v", newAPIAnswers, line, err)
		}
		out = append(out, a)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", newAPIAnswers, err)
	}
	return out
}

func writeNewAPIAnswers(t *testing.T, answers []newAPIAnswer) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, a := range answers {
		if err := enc.Encode(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(newAPIAnswers), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(newAPIAnswers, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPayloadNewAPIsMatchOracle(t *testing.T) {
	jobs := newAPIJobs(t)
	live := *updateNewAPIAnswers || os.Getenv(oracletest.FullLiveEnv) != ""
	var answers []newAPIAnswer
	var raw map[string]oracletest.Result // live run: the oracle's full answers
	if live {
		answers, raw = newAPIAnswersFromOracle(t, jobs)
		if *updateNewAPIAnswers {
			writeNewAPIAnswers(t, answers)
		}
	} else {
		answers = readNewAPIAnswers(t)
	}
	byID := map[string]newAPIAnswer{}
	for _, a := range answers {
		byID[strings.Join(a.ID, "|")] = a
	}
	// The stored file must answer every job (a changed job list or a new
	// rule transcript needs -update-new-api-answers).
	for _, j := range jobs {
		if _, ok := byID[strings.Join(j.id, "|")]; !ok {
			t.Fatalf("no stored answer for %s: regenerate with -update-new-api-answers", strings.Join(j.id, "|"))
		}
	}

	var stored map[string]oracletest.Answer // corpus context answers, for the stored-answer run
	type tally struct{ files, bytesEqual, bothFail int }
	counts := map[string]*tally{}
	var order []string
	for _, j := range jobs {
		if j.id[1] != "payload" {
			continue
		}
		id := strings.Join(j.id, "|")
		want := byID[id]
		san := byID[strings.Join(append([]string{j.id[0], "sanitize"}, j.id[2:]...), "|")]
		tr := [3]string{j.id[2], j.id[3], j.id[4]}
		set := "rules"
		if j.corpus {
			set = "corpus"
		}
		key := set + " " + strings.Join(tr[:], "/")
		c, ok := counts[key]
		if !ok {
			c = &tally{}
			counts[key] = c
			order = append(order, key)
		}
		c.files++
		if !san.OK {
			if want.OK {
				t.Errorf("%s: oracle sanitize failed but payload succeeded", id)
			} else {
				c.bothFail++ // the oracle has no input for a body: nothing of oc's to compare, and it says so
			}
			continue
		}

		// The input: the oracle's limited list, or (stored corpus answers)
		// the pipeline's, checked against the oracle's by digest.
		var msgs []Message
		wantOut := want.Out
		switch {
		case !j.corpus:
			msgs = limitedMessages(t, san.Out)
		case live:
			msgs = limitedMessages(t, raw[strings.Join(san.ID, "|")].Out)
			wantOut = raw[id].Out
		default:
			if stored == nil {
				stored = oracletest.StoredAnswers(t)
			}
			ctx, ok := stored[j.id[0]+"|context"]
			if !ok || !ctx.OK {
				t.Errorf("%s: no stored corpus context answer", id)
				continue
			}
			ctxMsgs := contextMessages(t, ctx.Out)
			res, err := Sanitize(ctxMsgs, Options{Provider: tr[0], API: tr[1], Model: tr[2], Now: replaytest.FixedNow})
			if err != nil {
				t.Errorf("%s: Sanitize: %v", id, err)
				continue
			}
			msgs = res.Limited
			if limitedDigest(t, plainNumbers(t, msgs)) != san.Norm {
				// Not a renderer difference: the pipeline hands BuildPayload
				// another list than OpenClaw does (TestSanitizeMatches* say where).
				t.Errorf("%s: the pipeline's limited list differs from the oracle's (digest): payload not compared (TestSanitizeMatches* say where)", id)
				continue
			}
		}

		p, err := BuildPayload(PayloadInput{Provider: tr[0], API: tr[1], Model: tr[2], Messages: msgs})
		if !want.OK {
			if err == nil {
				t.Errorf("%s: oracle failed (%s) but BuildPayload succeeded", id, want.Error)
			} else {
				c.bothFail++
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: BuildPayload: %v (oracle succeeded)", id, err)
			continue
		}
		got, err := p.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if j.corpus && !live {
			if sha(got) != want.Bytes {
				t.Errorf("%s: payload bytes differ from the oracle's (SHA-256; run with OC_LIVE_ORACLE_FULL=1 for the difference)", id)
				continue
			}
			c.bytesEqual++
			continue
		}
		if d := wireDifference(t, got, wantOut); d != "" {
			t.Errorf("%s: payload differs from the oracle's\n%s", id, d)
			continue
		}
		c.bytesEqual++
	}
	compared, payloadJobs := 0, 0
	for _, j := range jobs {
		if j.id[1] == "payload" {
			payloadJobs++
		}
	}
	for _, k := range order {
		c := counts[k]
		t.Logf("%-70s jobs %2d  byte-identical %2d  both fail %2d", k, c.files, c.bytesEqual, c.bothFail)
		compared += c.bytesEqual + c.bothFail
	}
	mode := "stored"
	if live {
		mode = "live"
	}
	oracletest.Compared(t, "new api families, "+mode+" payload jobs equal byte for byte or failing in both (corpus x 2 triples + rule transcripts)", compared, payloadJobs)

	// google-gemini-cli: the oracle has no body either, for the reason
	// BuildPayload gives.
	for _, a := range answers {
		if a.ID[3] == "google-gemini-cli" && a.ID[1] == "payload" && (a.OK || !strings.Contains(a.Error, "No API provider registered for api: google-gemini-cli")) {
			t.Errorf("%s: oracle answered ok=%v %q; BuildPayload's reason for google-gemini-cli assumes pi-ai has no provider", strings.Join(a.ID, "|"), a.OK, a.Error)
		}
	}
}

// contextMessages decodes an oracle `context` answer's messages (as
// cmd/replay does before the pipeline).
func contextMessages(t testing.TB, out json.RawMessage) []Message {
	t.Helper()
	var c struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatalf("context answer: %v", err)
	}
	msgs, err := DecodeMessages(c.Messages, false)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// plainNumbers re-decodes Go values as JSON with json.Number, the form
// decodeJSON gives the oracle's answers.
func plainNumbers(t testing.TB, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return decodeJSON(t, b)
}
