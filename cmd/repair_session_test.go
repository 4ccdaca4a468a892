package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/cli"
)

// oc repair takes a SESSION as every command does. A SQLite session is
// OpenClaw's: one line says what to run instead, exit 3, nothing written. A
// JSONL session awaiting import (mid-upgrade) is repaired in place.
func TestRepairResolvesSessionKeys(t *testing.T) {
	state, _ := sqliteState(t)
	sessions := filepath.Join(state, "agents", "main", "sessions")
	pendingID := "0197e111-2222-7333-8444-555566667777"
	pending := filepath.Join(sessions, pendingID+".jsonl")
	content := `{"type":"session","version":3,"id":"` + pendingID + `","timestamp":"2026-05-17T06:40:00.000Z","cwd":"/"}` + "\n" +
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-05-17T06:40:01.000Z","message":{"role":"user","content":"hi","timestamp":1779000001000}}` + "\n" +
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-05-17T06:40:02.000Z","message":{"role":"assist` + "\n" +
		`{"type":"message","id":"u2","parentId":"u1","timestamp":"2026-05-17T06:40:03.000Z","message":{"role":"user","content":"again","timestamp":1779000003000}}` + "\n"
	if err := os.WriteFile(pending, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	index := `{"agent:main:pending": {"sessionId": "` + pendingID + `", "updatedAt": 1779000003000, "sessionFile": "` + pendingID + `.jsonl"}}` + "\n"
	if err := os.WriteFile(filepath.Join(sessions, "sessions.json"), []byte(index), 0o600); err != nil {
		t.Fatal(err)
	}

	before := hashFiles(t, state)
	for _, args := range [][]string{{"repair", mainKey}, {"repair", "--check", mainKey}, {"repair", "--dry-run", "0197d2a4"}} {
		code, out, stderr := runOC(t, false, nil, append(args, "--state-dir", state)...)
		if code != cli.ExitIncomplete || out != "" {
			t.Errorf("%v: exit %d, stdout %q", args, code, out)
		}
		oneLineError(t, stderr)
		for _, want := range []string{"is a SQLite session", "oc export " + mainKey, "openclaw doctor --fix"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v: stderr %q lacks %q", args, stderr, want)
			}
		}
	}
	sameHashes(t, "SQLite state dir after repair of a SQLite session", before, hashFiles(t, state))

	code, out, stderr := runOC(t, false, nil, "repair", "--check", "agent:main:pending", "--state-dir", state)
	if code != cli.ExitFindings || !strings.Contains(out, pending) {
		t.Errorf("repair --check of a session awaiting import: exit %d (%s):\n%s", code, stderr, out)
	}
	code, _, stderr = runOC(t, false, nil, "repair", "agent:main:pending", "--state-dir", state)
	got, _ := os.ReadFile(pending)
	if code != 0 || strings.Contains(string(got), `"role":"assist`+"\n") || !strings.Contains(string(got), `"again"`) {
		t.Errorf("repair of a session awaiting import: exit %d (%s):\n%s", code, stderr, got)
	}
	code, _, stderr = runOC(t, false, nil, "repair", "no-such-session", "--state-dir", state)
	if code != cli.ExitIncomplete || !strings.Contains(stderr, "no such session") {
		t.Errorf("an unknown session: exit %d, %q", code, stderr)
	}
}
