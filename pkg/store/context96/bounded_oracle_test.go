package context96_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store/context96"
)

// boundedTokens is the budget the answers in testdata/bounded were taken
// with (ORACLE_CONTEXT_TOKENS=200: maxBytes 1600, maxEvents 10000).
const boundedTokens = 200

// boundedAnswer is the oracle's `context` answer on a crafted file.
type boundedAnswer struct {
	Messages      []json.RawMessage `json:"messages"`
	ThinkingLevel json.RawMessage   `json:"thinkingLevel"`
	Model         json.RawMessage   `json:"model"`
}

// Crafted sessions read with a small budget (testdata/bounded/*.jsonl; the
// oracle's `context` answer on each, after its in-process import, with
// ORACLE_CONTEXT_TOKENS=200, is *.context.json): a plain chat cut in the
// middle (spaced lines: the cost is of the stored, re-serialized row; an
// excluded message in the suffix costs nothing), a cut inside a tool frame
// (the toolResult is kept without its toolCall), a compaction injected
// before a newer suffix, a compaction inside the suffix whose first kept
// entry lies before the cut, and a newest entry over the limit alone (only
// the boundary is read; the model goes with the cut-off assistant turns).
func TestBuildBoundedMatchesOracleOnCraftedSessions(t *testing.T) {
	compared := compareBounded(t, "bounded", boundedTokens, true)
	oracletest.Compared(t, "2026.9.6 bounded context of crafted sessions equals the oracle's", compared, 5)
}

// compareBounded compares BuildBounded with tokens with the oracle's
// answers on testdata/dir/*.jsonl (*.context.json) and returns how many
// are equal; cut: each file must hold more than the bounded read keeps.
func compareBounded(t *testing.T, dir string, tokens int, cut bool) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		answer, err := os.ReadFile(strings.TrimSuffix(f, ".jsonl") + ".context.json")
		if err != nil {
			t.Fatal(err)
		}
		var want boundedAnswer
		if err := json.Unmarshal(answer, &want); err != nil {
			t.Fatal(err)
		}
		rows := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
		all, err := context96.Build(rows)
		if err != nil {
			t.Fatal(err)
		}
		if cut && len(all.Context.Messages) <= len(want.Messages) {
			t.Errorf("%s: %d messages unbounded, the oracle's bounded read has %d: the file does not exercise the bound", f, len(all.Context.Messages), len(want.Messages))
		}
		s, err := context96.BuildBounded(rows, context96.LimitsFor(tokens))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		got := s.Context.Messages
		if len(got) != len(want.Messages) {
			t.Errorf("%s: %d context messages, oracle 2026.9.6 has %d", f, len(got), len(want.Messages))
			continue
		}
		ok := true
		for i := range got {
			if g, w := stringify(t, got[i]), stringify(t, want.Messages[i]); !bytes.Equal(g, w) {
				t.Errorf("%s: message %d differs\n oc:     %.400s\n oracle: %.400s", f, i, g, w)
				ok = false
			}
		}
		if g, w := stringify(t, s.Context.ThinkingLevel), stringify(t, want.ThinkingLevel); !bytes.Equal(g, w) {
			t.Errorf("%s: thinking level %s, oracle %s", f, g, w)
			ok = false
		}
		model := []byte("null")
		if s.Context.Model != nil {
			model = []byte(`{"provider":` + string(s.Context.Model.Provider) + `,"modelId":` + string(s.Context.Model.ModelID) + `}`)
		}
		if g, w := stringify(t, model), stringify(t, want.Model); !bytes.Equal(g, w) {
			t.Errorf("%s: model %s, oracle %s", f, g, w)
			ok = false
		}
		if ok {
			compared++
		}
	}
	return compared
}
