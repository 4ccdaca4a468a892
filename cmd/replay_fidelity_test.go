package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// TestReplayWhereOpenClawFails: where OpenClaw 2026.5.6 itself never sends
// anything (its context builder loops forever on a parentId cycle; its
// sanitizer throws on a message entry without "message"), oc replay says so
// in one line and exits 3 instead of showing a payload.
func TestReplayWhereOpenClawFails(t *testing.T) {
	dir := filepath.Join("..", "testdata", "replay", "fuzz-repro", "extra")
	for file, want := range map[string]string{
		"cycle-parent-ids.jsonl":              "never returns on it (the session hangs)",
		"message-entry-without-message.jsonl": "sanitizer throws a TypeError",
	} {
		for _, stage := range []string{"payload", "sanitized"} {
			code, stdout, stderr := runOC(t, false, nil, "replay", filepath.Join(dir, file), "--provider", "anthropic", "--stage", stage)
			if code != 3 || stdout != "" || !strings.Contains(stderr, want) {
				t.Errorf("%s --stage %s: exit %d, stdout %q, stderr %q; want exit 3 and %q", file, stage, code, stdout, stderr, want)
			}
			oneLineError(t, stderr)
		}
	}
}

// TestReplayOllamaSaysWhyNoWireBody: api "ollama" turns: no wire body (the
// plugin's native /api/chat body cannot be captured from OpenClaw), said on
// stderr; the sanitized stage (what OpenClaw hands the plugin, checked
// against the oracle in pkg/replay) on stdout, exit 0.
func TestReplayOllamaSaysWhyNoWireBody(t *testing.T) {
	path := filepath.Join("..", "testdata", "replay", "fuzz-repro", "extra", "ollama-turns.jsonl")
	code, stdout, stderr := runOC(t, false, nil, "replay", path, "--provider", "ollama")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "no wire body") || !strings.Contains(stderr, "/api/chat") {
		t.Errorf("stderr does not say why there is no wire body: %q", stderr)
	}
	_, sanitized, _ := runOC(t, false, nil, "replay", path, "--provider", "ollama", "--stage", "sanitized")
	if stdout != sanitized || !strings.Contains(stdout, `"role": "toolResult"`) {
		t.Errorf("stdout is not the sanitized stage:\n%s", stdout)
	}
}

// TestReplaySanitizedStagePrintsAsOpenClaw: the sanitized stage keeps
// OpenClaw's member order, its number spelling and lone surrogates
// (golden file; the values are the oracle's, see pkg/replay's reproducer
// test).
func TestReplaySanitizedStagePrintsAsOpenClaw(t *testing.T) {
	shared := filepath.Join(oracletest.SharedDir(t), "corpus", "fuzz-repro")
	var out strings.Builder
	for _, f := range []string{"x7-message-not-an-object.jsonl", "26-sanitized-anthropic-content-arguments-int-as-float-number-spelling.jsonl", "00-sanitized-anthropic-content-arguments-lone-value.jsonl"} {
		if _, err := os.Stat(filepath.Join(shared, f)); err != nil {
			oracletest.Unavailable(t, fmt.Sprintf("fuzz reproducer: %v", err))
		}
		code, stdout, stderr := runOC(t, false, nil, "replay", filepath.Join(shared, f), "--provider", "anthropic",
			"--api", "anthropic-messages", "--model", "claude-sonnet-4-5", "--stage", "sanitized")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, stderr)
		}
		fmt.Fprintf(&out, "== %s\n%s", f, stdout)
	}
	// Synthetic results carry Date.now(): the golden file holds a marker.
	golden(t, "replay-sanitized-fidelity.txt", []byte(maskNow(out.String())))
}

var nowMillis = regexp.MustCompile(`"timestamp": 1\d{12}\b`)

func maskNow(s string) string { return nowMillis.ReplaceAllString(s, `"timestamp": <now>`) }
