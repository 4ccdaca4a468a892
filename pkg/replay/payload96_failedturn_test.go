package replay

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/replay/wire"
)

// A failed assistant turn (stopReason "error" or "aborted") at 2026.9.6's
// wire: with text it is replayed as @openclaw/ai's failed-turn marker, with
// only blank text it is left out (resolveFailedAssistantReplay); 2026.5.6
// left both out. Expected: the 9.6 oracle's answers on
// testdata/payload96-failed-turn/failed-turn.jsonl (crafted; fuzz-found).
func TestPayload96FailedTurnMarker(t *testing.T) {
	f, err := os.Open("testdata/payload96-failed-turn/oracle-answers.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	answers := map[string]json.RawMessage{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r struct {
			ID  string          `json:"id"`
			OK  bool            `json:"ok"`
			Out json.RawMessage `json:"out"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || !r.OK {
			t.Fatalf("bad stored answer %q: %v", sc.Text(), err)
		}
		answers[r.ID] = r.Out
	}
	var san struct {
		Limited json.RawMessage `json:"limited"`
	}
	if err := json.Unmarshal(answers["s"], &san); err != nil || len(san.Limited) == 0 {
		t.Fatalf("stored sanitize answer: %v", err)
	}
	cases := []payload96Case{{name: "failed-turn", provider: "openai", api: "openai-completions", mdl: "gpt-4o-mini",
		limited: answers["s"], want: answers["p"], wantOK: true}}
	equal, _ := runPayload96Cases(t, cases)
	oracletest.Compared(t, "2026.9.6 failed-turn payload equal byte for byte", equal, len(cases))
	if !json.Valid(answers["p"]) || !containsMarker(answers["p"]) {
		t.Fatal("the stored answer does not hold the marker: the test would compare nothing new")
	}
}

func containsMarker(b []byte) bool {
	var body struct {
		Messages []struct {
			Content any `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(b, &body) != nil {
		return false
	}
	for _, m := range body.Messages {
		if m.Content == wire.FailedAssistantReplayText {
			return true
		}
	}
	return false
}
