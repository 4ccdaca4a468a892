package cmd

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// adviceCommand finds the oc command an output advises after prefix (up to
// the closing parenthesis, or the end of the line).
func adviceCommand(t *testing.T, out, prefix string) string {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(prefix) + `[^)\n]*`).FindString(out)
	if m == "" {
		t.Fatalf("no %q advice in:\n%s", prefix, out)
	}
	return m
}

// shellWords splits a command the way sh does (the advice quotes what it
// must), so that a test runs exactly what a user would paste.
func shellWords(t *testing.T, command string) []string {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	out, err := exec.Command(sh, "-c", `for w in `+command+`; do printf '%s\0' "$w"; done`).Output()
	if err != nil {
		t.Fatalf("sh on %q: %v", command, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// The commands inspect advises for a SQLite install run as printed: the
// replay of one session (by key, or archived generation, with the state dir
// it was read from), and the Next lines of the state dir's table, from
// another working directory and without OPENCLAW_STATE_DIR.
func TestInspectAdviceRunsAsPrinted(t *testing.T) {
	dir := oracletest.ArchiveFixtureDir(t)
	state := oracletest.ColdState96(t, dir, "state")
	t.Setenv("OPENCLAW_STATE_DIR", "")
	home := t.TempDir()
	env := map[string]string{"HOME": home, "OPENCLAW_STATE_DIR": ""}

	for _, target := range []string{"agent:main:main", "0197d400-aaaa-7bbb-8ccc-ddddeeeeffff@aac908ae82854b5ca414443d9199b152"} {
		code, out, stderr := runOC(t, false, env, "inspect", "--state-dir", state, target)
		if code != 0 {
			t.Fatalf("inspect %s: exit %d: %s", target, code, stderr)
		}
		advice := adviceCommand(t, out, "details: oc replay ")
		words := shellWords(t, strings.TrimPrefix(advice, "details: oc "))
		words = append(words[:len(words)-3], "--provider", "anthropic", "--explain") // for --provider P --explain
		if words[1] != target {
			t.Errorf("replay advice %q does not name %s", advice, target)
		}
		if code, _, stderr := runOC(t, false, env, words...); code != 0 {
			t.Errorf("%s: the advised %q exits %d: %s", target, words, code, stderr)
		}
	}

	code, out, stderr := runOC(t, false, env, "inspect", agentDB(state, "main"))
	if code != 0 {
		t.Fatalf("inspect DB: exit %d: %s", code, stderr)
	}
	next := adviceCommand(t, out, "oc export KEY")
	words := shellWords(t, strings.TrimPrefix(strings.TrimSuffix(next, " writes it as JSONL."), "oc "))
	words[1] = "agent:main:main"
	if code, got, stderr := runOC(t, false, env, words...); code != 0 || !strings.Contains(got, `"type":"session"`) {
		t.Errorf("the advised %q exits %d: %s", words, code, stderr)
	}

	// An export of the database itself names the same command.
	code, _, stderr = runOC(t, false, env, "export", agentDB(state, "main"))
	if code != 3 || !strings.Contains(stderr, "oc export KEY --state-dir "+state) {
		t.Errorf("export DB: exit %d, want 3 and the state dir in: %s", code, stderr)
	}
}

// agentDB is the agent database of agent in a state dir.
func agentDB(state, agent string) string {
	return filepath.Join(state, "agents", agent, "agent", "openclaw-agent.sqlite")
}
