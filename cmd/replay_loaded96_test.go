package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// 2026.9.6's import rewrites some events as it reads a JSONL file
// (normalizeLoadedFileEntry; the v3 migration of a version-2 file): an
// assistant or toolResult message with string content gets one text block
// (and loses a compaction replay checkpoint), a toolResult with an object
// content gets it in an array, and a hookMessage becomes a custom message
// with customType "hook" unless it names one. `oc replay FILE --openclaw
// 2026.9.6 --stage context` shows the messages as 9.6 stores them.
// testdata/replay/loaded96 holds the crafted files and the oracle's
// `context` answers.
func TestReplay96ContextFollowsImportRewrites(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "replay", "loaded96", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, f := range files {
		b, err := os.ReadFile(strings.TrimSuffix(f, ".jsonl") + ".context.json")
		if err != nil {
			t.Fatal(err)
		}
		var want struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		code, out, stderr := runOC(t, false, nil, "replay", f, "--openclaw", "2026.9.6", "--stage", "context", "--provider", "anthropic",
			"--api", "anthropic-messages", "--model", "claude-sonnet-4-5", "--json")
		if code != 0 {
			t.Errorf("%s: exit %d: %s", f, code, stderr)
			continue
		}
		var got []json.RawMessage
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(got) != len(want.Messages) {
			t.Errorf("%s: %d messages, the oracle %d", f, len(got), len(want.Messages))
			continue
		}
		same := true
		for i := range got {
			if d := oracletest.Difference(canonicalJS(t, got[i]), canonicalJS(t, want.Messages[i])); d != "" {
				t.Errorf("%s: message %d: %s", f, i, d)
				same = false
			}
		}
		if same {
			compared++
		}
	}
	oracletest.Compared(t, "2026.9.6 context of crafted files the import rewrites", compared, 2)
}
