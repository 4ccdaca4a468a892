package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/cli"
)

const (
	showcase = "../testdata/show/showcase.jsonl"
	planted  = "../testdata/grep-planted/state"
)

func TestShowGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"show-text.txt", []string{"show", showcase}},
		{"show-all.txt", []string{"show", showcase, "--all"}},
		{"show-branch-full.txt", []string{"show", showcase, "--branch", "e009", "--full", "--thinking"}},
		{"show-markdown.md", []string{"show", showcase, "--format", "markdown"}},
		{"show-html.html", []string{"show", showcase, "--format", "html", "--grep", "disk"}},
		{"show-json.json", []string{"show", showcase, "--json"}},
		{"show-from-to.txt", []string{"show", showcase, "--from", "e006", "--to", "9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runOC(t, false, nil, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, tc.name, []byte(out))
		})
	}
}

func TestShowJSONIsOneDocument(t *testing.T) {
	_, out, _ := runOC(t, false, nil, "show", showcase, "--format", "json", "--all")
	var doc struct {
		Session  map[string]any   `json:"session"`
		Messages []map[string]any `json:"messages"`
		Count    int              `json:"count"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Count != 12 || len(doc.Messages) != 12 || doc.Session["rules"] != "2026.5.6" {
		t.Errorf("count %d, %d messages, session %v", doc.Count, len(doc.Messages), doc.Session)
	}
}

func TestShowExitCodes(t *testing.T) {
	state := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"show"}, cli.ExitUsage},
		{[]string{"show", showcase, "--format", "pdf"}, cli.ExitUsage},
		{[]string{"show", showcase, "--all", "--branch", "e009"}, cli.ExitUsage},
		{[]string{"show", showcase, "--branch", "nope"}, cli.ExitUsage},
		{[]string{"show", "--state-dir", state, "no-such-session"}, cli.ExitIncomplete},
		{[]string{"show", filepath.Join(state, "missing.jsonl")}, cli.ExitIncomplete},
		{[]string{"show", "--state-dir", "../testdata/grep-planted/state", "0197d2a4"}, cli.ExitUsage}, // ambiguous prefix
	} {
		code, _, errOut := runOC(t, false, nil, tc.args...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d (%s)", tc.args, code, tc.code, errOut)
		}
		if code != 0 {
			oneLineErrorOrUsage(t, errOut)
		}
	}
}

// oneLineErrorOrUsage: one "oc: " line, and for usage errors the hint.
func oneLineErrorOrUsage(t *testing.T, stderr string) {
	t.Helper()
	if !strings.HasPrefix(stderr, "oc: ") || strings.Count(stderr, "\n") > 2 {
		t.Errorf("stderr %q", stderr)
	}
}

// TestShowPager: on a terminal the output goes through $PAGER with LESS=FRX
// unless LESS is set; --no-pager and a pipe print directly.
func TestShowPager(t *testing.T) {
	mark := `while IFS= read -r l; do printf 'P:%s\n' "$l"; done; printf 'LESS=%s\n' "$LESS"`
	code, out, errOut := runOC(t, true, map[string]string{"PAGER": mark, "NO_COLOR": "1"}, "show", showcase)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "P:Session ") || !strings.Contains(out, "\nLESS=FRX\n") {
		t.Errorf("not paged through $PAGER with LESS=FRX:\n%s", out[:min(len(out), 300)])
	}
	_, out, _ = runOC(t, true, map[string]string{"PAGER": mark, "LESS": "X", "NO_COLOR": "1"}, "show", showcase)
	if !strings.Contains(out, "\nLESS=X\n") {
		t.Errorf("LESS overridden")
	}
	for _, tc := range []struct {
		tty  bool
		args []string
	}{{true, []string{"show", showcase, "--no-pager"}}, {false, []string{"show", showcase}}} {
		_, out, _ := runOC(t, tc.tty, map[string]string{"PAGER": mark, "NO_COLOR": "1"}, tc.args...)
		if strings.Contains(out, "P:") || !strings.HasPrefix(out, "Session ") {
			t.Errorf("%v (tty %v): paged", tc.args, tc.tty)
		}
	}
}

func TestGrepGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"grep-context.txt", []string{"grep", "-C", "1", "ZEBRAFISH", "--state-dir", planted}, 0},
		{"grep-files.txt", []string{"grep", "-l", "-i", "zebrafish", "--archived", "--state-dir", planted}, 0},
		{"grep-json.json", []string{"grep", "--json", "--tool", "read", "swims", planted}, 0},
		{"grep-none.txt", []string{"grep", "no such words anywhere", "--state-dir", planted}, cli.ExitFindings},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runOC(t, false, nil, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, errOut)
			}
			golden(t, tc.name, []byte(out))
		})
	}
}

func TestGrepExitCodes(t *testing.T) {
	code, _, errOut := runOC(t, false, nil, "grep", "-E", "(unclosed", "--state-dir", planted)
	if code != cli.ExitUsage {
		t.Errorf("bad regexp: exit %d (%s)", code, errOut)
	}
	dir := t.TempDir()
	sessions := filepath.Join(dir, "agents", "main", "sessions")
	if err := os.MkdirAll(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	good := `{"type":"session","version":3,"id":"a"}` + "\n" + `{"type":"message","id":"m","parentId":null,"message":{"role":"user","content":"needle"}}` + "\n"
	if err := os.WriteFile(filepath.Join(sessions, "a.jsonl"), []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sessions, "b.jsonl"), []byte(good), 0o000); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 { // root reads anything
		code, out, errOut := runOC(t, false, nil, "grep", "needle", "--state-dir", dir)
		if code != cli.ExitIncomplete || !strings.Contains(out, "needle") || !strings.Contains(errOut, "b.jsonl") {
			t.Errorf("an unreadable session: exit %d, out %q, err %q", code, out, errOut)
		}
	}
}

func TestReadingCommandsInHelp(t *testing.T) {
	_, out, _ := runOC(t, false, nil, "help")
	for _, c := range []string{"show", "grep", "browse"} {
		if !strings.Contains(out, "\n  "+c+" ") {
			t.Errorf("oc help does not list %s", c)
		}
	}
	_, out, _ = runOC(t, false, nil, "help", "exit-codes")
	if !strings.Contains(out, "oc grep") {
		t.Errorf("exit-codes does not say what oc grep exits with")
	}
	code, _, _ := runOC(t, false, nil, "browse")
	if code != cli.ExitUsage {
		t.Errorf("browse without a terminal: exit %d", code)
	}
}
