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

// Crafted sessions whose newest boundary keeps from an id no entry has
// (testdata/opaque/*.jsonl; *.context.json is the oracle's `context` answer
// on each, after its in-process import, default budget): when that id is
// the lost parent of an entry the bounded read hands the session manager,
// 9.6 keeps from the entry before it (an opaque parent, resolved by
// resolveOpaqueSessionFirstKeptEntryId), with one boundary or two; when it
// is no one's parent, nothing before the boundary is kept. The shapes of
// the 2026.9.6 campaign of 5 December (seed 3508, fz-0102 and fz-0146).
func TestBuildBoundedResolvesOpaqueFirstKept(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "opaque", "*.jsonl"))
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
		s, err := context96.BuildBounded(rows, context96.LimitsFor(context96.DefaultContextTokens))
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
		if ok {
			compared++
		}
	}
	oracletest.Compared(t, "2026.9.6 context of boundaries keeping from a lost parent equals the oracle's", compared, 3)
}
