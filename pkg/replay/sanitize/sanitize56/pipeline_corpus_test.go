package sanitize56

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/replay/internal/replaytest"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// contextMessages decodes an oracle `context` answer's messages.
func contextMessages(t testing.TB, out json.RawMessage) []sanitize.Message {
	t.Helper()
	var c struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatalf("context answer: %v", err)
	}
	msgs, err := jsvalue.DecodeMessages(c.Messages, false)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

type sanitizeAnswer struct {
	Sanitized []json.RawMessage `json:"sanitized"`
	Validated []json.RawMessage `json:"validated"`
	Limited   []json.RawMessage `json:"limited"`
}

// TestSanitizeMatchesStoredOracleAnswers runs the pipeline on every corpus
// transcript's context (the oracle's own context answer, so only the
// pipeline is tested) for the ten triples and compares all three stages
// with the oracle's sanitize answer.
func TestSanitizeMatchesStoredOracleAnswers(t *testing.T) {
	answers := oracletest.StoredAnswers(t)
	files := oracletest.Transcripts(t)
	total, matched := 0, 0
	for _, f := range files {
		name := filepath.Base(f)
		ctx, ok := answers[name+"|context"]
		if !ok || !ctx.OK {
			t.Errorf("%s: no stored context answer (ok=%v %s)", name, ctx.OK, ctx.Error)
			continue
		}
		msgs := contextMessages(t, ctx.Out)
		for _, tr := range replaytest.OracleTriples() {
			key := strings.Join([]string{name, "sanitize", tr[0], tr[1], tr[2]}, "|")
			ans, ok := answers[key]
			if !ok || !ans.OK {
				t.Errorf("%s: no stored sanitize answer (ok=%v %s)", key, ans.OK, ans.Error)
				continue
			}
			total++
			var want sanitizeAnswer
			if err := json.Unmarshal(ans.Out, &want); err != nil {
				t.Fatal(err)
			}
			res, err := Pipeline().Run(msgs, sanitize.Options{Provider: tr[0], API: tr[1], Model: tr[2], Now: replaytest.FixedNow})
			if err != nil {
				t.Errorf("%s %v: %v", name, tr, err)
				continue
			}
			diffs := []string{}
			for _, st := range []struct {
				name string
				got  []sanitize.Message
				want []json.RawMessage
			}{{"sanitized", res.Sanitized, want.Sanitized}, {"validated", res.Validated, want.Validated}, {"limited", res.Limited, want.Limited}} {
				if d := replaytest.CompareStage(t, st.got, replaytest.PlainRaw(t, st.want)); d != "" {
					diffs = append(diffs, st.name+d)
				}
			}
			if len(diffs) > 0 {
				t.Errorf("%s %v:\n  %s", name, tr, strings.Join(diffs, "\n  "))
				continue
			}
			matched++
		}
	}
	t.Logf("sanitize parity: %d of %d (file, triple) pairs equal in all three stages", matched, total)
	oracletest.Compared(t, "stored sanitize answers equal in all three stages (corpus transcripts x triples)", matched, len(files)*len(replaytest.OracleTriples()))
}
