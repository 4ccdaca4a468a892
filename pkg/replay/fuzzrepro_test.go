package replay

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/replay/internal/replaytest"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// The reproducers of the fidelity issue (../shared/corpus/fuzz-repro, one
// transcript per way oc once differed from OpenClaw on generated input) and
// a few of our own (testdata/replay/fuzz-repro/extra: a `message` entry
// without `message`, ollama turns), each compared with OpenClaw 2026.5.6's
// answers stored in testdata/replay/fuzz-repro/answers.jsonl (made with
// ../shared/oracle/oracle batch; TestFuzzReproLive asks the oracle again).

const fuzzReproAnswers = "../../testdata/replay/fuzz-repro/answers.jsonl"

type reproAnswer struct {
	ID    []string        `json:"id"`
	OK    bool            `json:"ok"`
	Out   json.RawMessage `json:"out"`
	Error string          `json:"error"`
}

func loadReproAnswers(t *testing.T) []reproAnswer {
	t.Helper()
	f, err := os.Open(fuzzReproAnswers)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []reproAnswer
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var a reproAnswer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("%s: %v", fuzzReproAnswers, err)
		}
		out = append(out, a)
	}
	return out
}

// reproPath finds a reproducer: ours in testdata, the in ../shared.
func reproPath(t *testing.T, name string) string {
	t.Helper()
	own := filepath.Join("../../testdata/replay/fuzz-repro/extra", name)
	if _, err := os.Stat(own); err == nil {
		return own
	}
	return filepath.Join(oracletest.SharedDir(t), "corpus", "fuzz-repro", name)
}

// ocReplay runs oc's replay on a transcript file: the context, the
// pipeline, and (payload) the wire body, each as JSON.stringify text.
func ocReplay(path, provider, api, model string) (limited, payload []byte, err error) {
	ctx, err := transcript.LoadContext(path, nil)
	if err != nil {
		return nil, nil, err
	}
	if err := ContextError(ctx); err != nil {
		return nil, nil, err
	}
	msgs, err := DecodeMessages(ctx.Messages, false)
	if err != nil {
		return nil, nil, err
	}
	res, err := Sanitize(msgs, Options{Provider: provider, API: api, Model: model,
		Now: func() int64 { return replaytest.SyntheticTime }})
	if err != nil {
		return nil, nil, err
	}
	if limited, err = AppendMessages(nil, res.Limited); err != nil {
		return nil, nil, err
	}
	p, err := BuildPayload(PayloadInput{Provider: provider, API: api, Model: model, Messages: res.Limited})
	if err != nil {
		return limited, nil, err
	}
	payload, err = p.AppendJSON(nil)
	return limited, payload, err
}

// TestFuzzReproducersMatchOracle: for every stored sanitize and payload
// answer, oc's `limited` list and wire body equal OpenClaw's as JSON text
// read by JSON.parse (member order, lone surrogates and number values
// included); only synthetic Date.now() timestamps and re-encoded images
// (same decoded type and size) may differ. Where OpenClaw fails, oc fails.
func TestFuzzReproducersMatchOracle(t *testing.T) {
	compared, want := 0, 0
	for _, a := range loadReproAnswers(t) {
		if len(a.ID) != 5 || (a.ID[1] != "sanitize" && a.ID[1] != "payload") {
			continue
		}
		want++ // every stored sanitize and payload answer
		name := strings.Join(a.ID, " ")
		path := reproPath(t, a.ID[0])
		limited, payload, err := ocReplay(path, a.ID[2], a.ID[3], a.ID[4])
		got, wantOut := payload, a.Out
		if a.ID[1] == "sanitize" {
			got = limited
			var s struct {
				Limited json.RawMessage `json:"limited"`
			}
			if a.OK {
				if err := json.Unmarshal(a.Out, &s); err != nil {
					t.Fatal(err)
				}
			}
			wantOut = s.Limited
			if limited != nil {
				err = nil // the pipeline ran; a payload error is the payload's
			}
		}
		if !a.OK {
			if err == nil {
				t.Errorf("%s: OpenClaw fails (%s); oc gave an answer", name, firstLine(a.Error))
				continue
			}
			compared++ // both fail
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if d := jsDifference(t, got, wantOut); d != "" {
			t.Errorf("%s: oc differs from OpenClaw: %s\n oc:       %.600s\n OpenClaw: %.600s", name, d, got, wantOut)
			continue
		}
		compared++
	}
	oracletest.Compared(t, "fuzz reproducers: stored 2026.5.6 sanitize/payload answers equal, or failing in both", compared, want)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// jsDifference is oracletest.Difference (synthetic times are replaytest.SyntheticTime).
func jsDifference(t *testing.T, got, want []byte) string {
	t.Helper()
	if replaytest.SyntheticTime != oracletest.SyntheticTime {
		t.Fatal("replaytest.SyntheticTime and oracletest.SyntheticTime differ")
	}
	return oracletest.Difference(got, want)
}

// TestFuzzReproducersContextMatchesOracle: the context (the active branch
// as model messages, which inspect counts and replay starts from) equals
// OpenClaw's buildSessionContext on every reproducer it answers for: R6's
// JavaScript white space before the header included.
func TestFuzzReproducersContextMatchesOracle(t *testing.T) {
	compared, want := 0, 0
	for _, a := range loadReproAnswers(t) {
		if len(a.ID) != 2 || a.ID[1] != "context" {
			continue
		}
		want++ // every stored context answer
		ctx, err := transcript.LoadContext(reproPath(t, a.ID[0]), nil)
		if err != nil {
			t.Errorf("%s: %v", a.ID[0], err)
			continue
		}
		var wantCtx struct {
			Messages json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(a.Out, &wantCtx); err != nil {
			t.Fatal(err)
		}
		got := []byte{'['}
		for i, m := range ctx.Messages {
			if i > 0 {
				got = append(got, ',')
			}
			got = append(got, m...)
		}
		got = append(got, ']')
		if d := oracletest.Difference(got, wantCtx.Messages); d != "" {
			t.Errorf("%s: context differs from OpenClaw's: %s", a.ID[0], d)
			continue
		}
		compared++
	}
	oracletest.Compared(t, "fuzz reproducers: stored 2026.5.6 context answers equal", compared, want)
}

// TestExplainSaysEmptyToolCallIDIsRejected: R7. OpenClaw's own request for a
// tool call id "|fc_only" on an OpenAI-compatible route has an empty
// tool_call id (TestFuzzReproducersMatchOracle checks oc sends exactly
// that); --explain must say the provider will reject it.
func TestExplainSaysEmptyToolCallIDIsRejected(t *testing.T) {
	msgs, err := DecodeMessages([]json.RawMessage{
		json.RawMessage(`{"role":"assistant","content":[{"type":"toolCall","id":"|fc_only","name":"message","arguments":{}}]}`),
		json.RawMessage(`{"role":"toolResult","toolCallId":"|fc_only","toolName":"message","content":[{"type":"text","text":"x"}]}`),
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Sanitize(msgs, Options{Provider: "openrouter", API: "openai-completions", Model: "google/gemini-2.5-pro"})
	if err != nil {
		t.Fatal(err)
	}
	problems := sanitize.CheckAcceptance("openai-completions", res.Limited, res.Policy)
	if len(problems) == 0 || !strings.Contains(strings.Join(problems, "\n"), "empty tool_call id") {
		t.Errorf("problems = %q, want the empty tool_call id named", problems)
	}
}

// TestFuzzReproducersLive asks the oracle again (OC_LIVE_ORACLE_FULL=1): every
// stored answer must still be OpenClaw's (same JSON as JSON.parse reads it,
// up to Date.now() and re-encoded image bytes), so that the stored answers
// cannot drift from the oracle they claim to be.
func TestFuzzReproducersLive(t *testing.T) {
	if os.Getenv(oracletest.FullLiveEnv) == "" {
		oracletest.NotRequested(t, "set OC_LIVE_ORACLE_FULL=1 to ask the OpenClaw 2026.5.6 oracle again for every stored reproducer answer")
	}
	stored := loadReproAnswers(t)
	var jobs []oracletest.Job
	byID := map[string]reproAnswer{}
	for _, a := range stored {
		if len(a.ID) != 5 {
			continue
		}
		id := strings.Join(a.ID, "|")
		byID[id] = a
		jobs = append(jobs, oracletest.Job{ID: id, Mode: a.ID[1], Args: append([]string{reproPath(t, a.ID[0])}, a.ID[2:]...)})
	}
	live := oracletest.Batch(t, jobs, 30*time.Minute)
	checked := 0
	for id, want := range byID {
		got, ok := live[id]
		if !ok {
			t.Errorf("%s: no live answer", id)
			continue
		}
		if got.OK != want.OK {
			t.Errorf("%s: live ok=%v (%s), stored ok=%v", id, got.OK, got.Error, want.OK)
			continue
		}
		if got.OK {
			if d := jsDiffNow(t, got.Out, want.Out); d != "" {
				t.Errorf("%s: live answer differs from the stored one: %s", id, d)
				continue
			}
		}
		checked++
	}
	oracletest.Compared(t, "fuzz reproducers: live 2026.5.6 answers equal the stored ones", checked, len(byID))
}

// jsDiffNow compares two oracle answers: equal up to Date.now() timestamps
// (both above 1.7e12) and re-encoded images.
func jsDiffNow(t *testing.T, a, b []byte) string {
	t.Helper()
	x, err := jsjson.Parse(a)
	if err != nil {
		return err.Error()
	}
	y, err := jsjson.Parse(b)
	if err != nil {
		return err.Error()
	}
	gx, _ := jsjson.Marshal(maskDateNow(x))
	gy, _ := jsjson.Marshal(maskDateNow(y))
	return oracletest.Difference(gx, gy)
}

func maskDateNow(v any) any {
	switch x := v.(type) {
	case *jsjson.Object:
		for i := range x.Members {
			if f, ok := x.Members[i].Value.(float64); ok && x.Members[i].Key == "timestamp" && f > 1.7e12 {
				x.Members[i].Value = float64(oracletest.SyntheticTime)
				continue
			}
			x.Members[i].Value = maskDateNow(x.Members[i].Value)
		}
	case []any:
		for i := range x {
			x[i] = maskDateNow(x[i])
		}
	}
	return v
}
