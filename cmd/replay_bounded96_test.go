package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// `oc replay FILE --openclaw 2026.9.6 --context-tokens N` reads the session
// as 9.6's embedded runner does with a budget of N tokens (N*8 bytes of
// stored rows, newest first). The crafted files and the oracle's `payload`
// answers on them with ORACLE_CONTEXT_TOKENS=200 are in
// pkg/store/context96/testdata/bounded (anthropic/anthropic-messages/
// claude-sonnet-4-5, TZ UTC). Read unbounded, every file sends more.
func TestReplayContextTokensFollows96BoundedRead(t *testing.T) {
	dir := filepath.Join("..", "pkg", "store", "context96", "testdata", "bounded")
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, f := range files {
		want, err := os.ReadFile(strings.TrimSuffix(f, ".jsonl") + ".payload.json")
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"replay", f, "--openclaw", "2026.9.6", "--provider", "anthropic", "--api", "anthropic-messages",
			"--model", "claude-sonnet-4-5", "--stage", "payload", "--tz", "UTC", "--json"}
		start := time.Now()
		code, out, stderr := runOC(t, false, nil, append(args, "--context-tokens", "200")...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", f, code, stderr)
			continue
		}
		got := maskRunTimes(t, []byte(out), start.Add(-time.Minute), time.Now().Add(time.Minute))
		if d := oracletest.Difference96(got, canonicalJS(t, want)); d != "" {
			t.Errorf("%s: differs from 2026.9.6 with ORACLE_CONTEXT_TOKENS=200: %s", f, d)
			continue
		}
		// The default budget (128000 tokens) reads these small files whole.
		code, full, stderr := runOC(t, false, nil, args...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", f, code, stderr)
			continue
		}
		if len(full) <= len(out) {
			t.Errorf("%s: the default budget sends %d bytes, --context-tokens 200 %d: the file does not exercise the bound", f, len(full), len(out))
			continue
		}
		compared++
	}
	oracletest.Compared(t, "2026.9.6 payloads of crafted sessions read with --context-tokens 200 equal the oracle's", compared, 5)
}

func TestReplayContextTokensRejectsNonPositive(t *testing.T) {
	for _, n := range []string{"0", "-5"} {
		code, _, stderr := runOC(t, false, nil, "replay", filepath.Join("..", "pkg", "store", "context96", "testdata", "bounded", "plain-cut.jsonl"),
			"--openclaw", "2026.9.6", "--provider", "anthropic", "--context-tokens", n)
		if code != 2 || !strings.Contains(stderr, "--context-tokens") {
			t.Errorf("--context-tokens %s: exit %d, stderr %q; want a usage error naming the flag", n, code, stderr)
		}
	}
}

// `--openclaw 2026.5.6,2026.9.6` gives each release its own reading of the
// session: the 2026.9.6 column is what `--openclaw 2026.9.6` alone sends
// (here its bounded read), the 2026.5.6 column what 2026.5.6 sends (the
// whole branch), counted as messages on the wire. Both with one provider
// and with --provider all (its first row is anthropic).
func TestReplayComparisonReadsEachReleasesContext(t *testing.T) {
	f := filepath.Join("..", "pkg", "store", "context96", "testdata", "bounded", "plain-cut.jsonl")
	sent := func(rel string) int {
		code, out, stderr := runOC(t, false, nil, "replay", f, "--openclaw", rel, "--provider", "anthropic", "--api", "anthropic-messages",
			"--model", "claude-sonnet-4-5", "--stage", "payload", "--tz", "UTC", "--context-tokens", "200", "--json")
		if code != 0 {
			t.Fatalf("--openclaw %s: exit %d: %s", rel, code, stderr)
		}
		var body struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal([]byte(out), &body); err != nil {
			t.Fatal(err)
		}
		return len(body.Messages)
	}
	old, cur := sent("2026.5.6"), sent("2026.9.6")
	if old <= cur {
		t.Fatalf("2026.5.6 sends %d messages, 2026.9.6 %d: the file does not exercise the bounded read", old, cur)
	}
	code, out, stderr := runOC(t, false, nil, "replay", f, "--openclaw", "2026.5.6,2026.9.6", "--provider", "anthropic", "--api", "anthropic-messages",
		"--model", "claude-sonnet-4-5", "--tz", "UTC", "--context-tokens", "200", "--json")
	if code != 0 {
		t.Fatalf("comparison: exit %d: %s", code, stderr)
	}
	var cmp struct {
		Releases []struct {
			OpenClaw string `json:"openclaw"`
			Wire     struct {
				Count int `json:"count"`
			} `json:"wire"`
		} `json:"releases"`
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil {
		t.Fatal(err)
	}
	if len(cmp.Releases) != 2 || cmp.Releases[0].Wire.Count != old || cmp.Releases[1].Wire.Count != cur {
		t.Errorf("comparison sends %+v, want 2026.5.6 %d and 2026.9.6 %d", cmp.Releases, old, cur)
	}
	code, out, stderr = runOC(t, false, nil, "replay", f, "--openclaw", "2026.5.6,2026.9.6", "--provider", "all", "--context-tokens", "200", "--json")
	if code != 0 {
		t.Fatalf("comparison of all: exit %d: %s", code, stderr)
	}
	var all struct {
		Releases []struct {
			OpenClaw string `json:"openclaw"`
			Rows     []struct {
				Family string `json:"family"`
				Wire   struct {
					Count int `json:"count"`
				} `json:"wire"`
			} `json:"rows"`
		} `json:"releases"`
	}
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatal(err)
	}
	if len(all.Releases) != 2 || len(all.Releases[0].Rows) == 0 || all.Releases[0].Rows[0].Wire.Count != old || all.Releases[1].Rows[0].Wire.Count != cur {
		t.Errorf("comparison of all, first row: %+v, want 2026.5.6 %d and 2026.9.6 %d", all.Releases, old, cur)
	}
}
