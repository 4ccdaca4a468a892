package replay

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/oracletest"
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
	msgs, keys, err := DecodeMessagesKeyed(ctx.Messages, false)
	if err != nil {
		return nil, nil, err
	}
	res, err := Sanitize(msgs, Options{Provider: provider, API: api, Model: model, KeyOrder: keys,
		Now: func() int64 { return syntheticTime }})
	if err != nil {
		return nil, nil, err
	}
	if limited, err = AppendMessages(nil, res.Limited, res.KeyOrder); err != nil {
		return nil, nil, err
	}
	p, err := BuildPayload(PayloadInput{Provider: provider, API: api, Model: model, Messages: res.Limited, KeyOrder: res.KeyOrder})
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
	compared := 0
	for _, a := range loadReproAnswers(t) {
		if len(a.ID) != 5 || (a.ID[1] != "sanitize" && a.ID[1] != "payload") {
			continue
		}
		name := strings.Join(a.ID, " ")
		path := reproPath(t, a.ID[0])
		limited, payload, err := ocReplay(path, a.ID[2], a.ID[3], a.ID[4])
		compared++
		got := payload
		want := a.Out
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
			want = s.Limited
			if limited != nil {
				err = nil // the pipeline ran; a payload error is the payload's
			}
		}
		if !a.OK {
			if err == nil {
				t.Errorf("%s: OpenClaw fails (%s); oc gave an answer", name, firstLine(a.Error))
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if d := jsDifference(t, got, want); d != "" {
			t.Errorf("%s: oc differs from OpenClaw: %s\n oc:       %.600s\n OpenClaw: %.600s", name, d, got, want)
		}
	}
	if compared < 30 {
		t.Fatalf("only %d comparisons with stored oracle answers", compared)
	}
	t.Logf("%d comparisons with OpenClaw 2026.5.6's stored answers", compared)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// jsDifference parses both texts as JSON.parse does and returns the first
// difference ("" when equal).
func jsDifference(t *testing.T, got, want []byte) string {
	t.Helper()
	g, err := jsjson.Parse(got)
	if err != nil {
		return fmt.Sprintf("oc wrote invalid JSON: %v", err)
	}
	w, err := jsjson.Parse(want)
	if err != nil {
		t.Fatalf("stored answer: %v", err)
	}
	return jsDiff(g, w, "$", "")
}

func jsDiff(g, w any, path, key string) string {
	switch x := w.(type) {
	case *jsjson.Object:
		y, ok := g.(*jsjson.Object)
		if !ok {
			return fmt.Sprintf("%s: %T vs object", path, g)
		}
		gk, wk := y.Keys(), x.Keys()
		if strings.Join(gk, "\x00") != strings.Join(wk, "\x00") {
			return fmt.Sprintf("%s: keys %q vs %q", path, gk, wk)
		}
		for _, k := range wk {
			gv, _ := y.Get(k)
			wv, _ := x.Get(k)
			if d := jsDiff(gv, wv, path+"."+k, k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := g.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %s vs %d items", path, describeJS(g), len(x))
		}
		for i := range x {
			if d := jsDiff(y[i], x[i], fmt.Sprintf("%s[%d]", path, i), ""); d != "" {
				return d
			}
		}
		return ""
	case float64:
		if y, ok := g.(float64); ok && key == "timestamp" && y == syntheticTime {
			return "" // Date.now() of a synthetic message
		}
	case string:
		if y, ok := g.(string); ok && y != x && (key == "data" || key == "url") && sameImage(y, x) {
			return ""
		}
	}
	gb, _ := jsjson.Marshal(g)
	wb, _ := jsjson.Marshal(w)
	if !bytes.Equal(gb, wb) {
		return fmt.Sprintf("%s: %.200s vs %.200s", path, gb, wb)
	}
	return ""
}

func describeJS(v any) string {
	if a, ok := v.([]any); ok {
		return fmt.Sprintf("%d items", len(a))
	}
	return fmt.Sprintf("%T", v)
}

// sameImage: two base64 payloads (or data: URLs) of images of the same
// decoded type and size (re-encoded bytes may differ).
func sameImage(a, b string) bool {
	ca, fa, ok1 := imageConfig(a)
	cb, fb, ok2 := imageConfig(b)
	return ok1 && ok2 && fa == fb && ca.Width == cb.Width && ca.Height == cb.Height
}

func imageConfig(s string) (image.Config, string, bool) {
	if strings.HasPrefix(s, "data:") {
		_, s, _ = strings.Cut(s, ",")
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return image.Config{}, "", false
	}
	c, f, err := image.DecodeConfig(bytes.NewReader(raw))
	return c, f, err == nil
}

// TestExplainSaysEmptyToolCallIDIsRejected: R7. OpenClaw's own request for a
// tool call id "|fc_only" on an OpenAI-compatible route has an empty
// tool_call id (TestFuzzReproducersMatchOracle checks oc sends exactly
// that); --explain must say the provider will reject it.
func TestExplainSaysEmptyToolCallIDIsRejected(t *testing.T) {
	msgs, _, err := DecodeMessagesKeyed([]json.RawMessage{
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
	problems := CheckAcceptance("openai-completions", res.Limited, res.Policy)
	if len(problems) == 0 || !strings.Contains(strings.Join(problems, "\n"), "empty tool_call id") {
		t.Errorf("problems = %q, want the empty tool_call id named", problems)
	}
}
