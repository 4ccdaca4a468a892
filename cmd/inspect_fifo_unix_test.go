//go:build unix

package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/cli"
)

// A FIFO named like a transcript is refused without being opened, and the
// error names its path once, whether it is the argument or found in a folder.
func TestInspectFIFONamesPathOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, arg := range []string{fifo, dir} {
		code, _, stderr := runOC(t, false, nil, "inspect", arg)
		if code != cli.ExitIncomplete {
			t.Errorf("inspect %s: exit %d, want %d", arg, code, cli.ExitIncomplete)
		}
		if n := strings.Count(stderr, fifo); n != 1 {
			t.Errorf("inspect %s: path named %d times in %q", arg, n, stderr)
		}
		if !strings.Contains(stderr, "not a regular file (a FIFO)") {
			t.Errorf("inspect %s: stderr %q", arg, stderr)
		}
	}
}

// A FIFO replayed by 2026.9.6 (read through the import predictor) is refused
// at once, never opened blocking: the command would hang on it.
func TestReplay96FIFOIsRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "x.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	var code int
	var stderr string
	go func() {
		code, _, stderr = runOC(t, false, nil, "replay", fifo, "--openclaw", "2026.9.6", "--provider", "anthropic")
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("oc replay hung on a FIFO")
	}
	if code != cli.ExitIncomplete || !strings.Contains(stderr, "not a regular file (a FIFO)") {
		t.Errorf("exit %d, stderr %q: want exit %d naming the FIFO", code, stderr, cli.ExitIncomplete)
	}
}

// A FIFO where a state dir has sessions.json or an agent database
// (agents/<id>/agent/openclaw-agent.sqlite) never hangs the commands that
// look sessions up by id (replay, export, inspect): each is refused or
// reported, never opened blocking.
func TestFIFOIndexAndDatabaseNeverHangLookups(t *testing.T) {
	const id = "0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01"
	for _, fifoAt := range []string{"agents/main/sessions/sessions.json", "agents/main/agent/openclaw-agent.sqlite"} {
		state := t.TempDir()
		sessions := filepath.Join(state, "agents", "main", "sessions")
		if err := os.MkdirAll(filepath.Dir(filepath.Join(state, fifoAt)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(sessions, 0o755); err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile(filepath.Join("..", "testdata", "example-state", "agents", "main", "sessions", id+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sessions, id+".jsonl"), src, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join(state, fifoAt), 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		for _, args := range [][]string{
			{"replay", id, "--state-dir", state, "--provider", "anthropic"},
			{"export", id, "--state-dir", state},
			{"inspect", "--state-dir", state},
		} {
			done := make(chan struct{})
			go func() {
				defer close(done)
				runOC(t, false, nil, args...)
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("oc %s hung on a FIFO at %s", strings.Join(args[:1], " "), fifoAt)
			}
		}
	}
}

// A FIFO named sessions.json is skipped by replay's and export's session
// lookup, and said so: one warning line on stderr naming its path, made
// terminal-safe (the state dir's name here holds an escape sequence), or
// one {"warning": ...} object with the exact path under --json.
func TestFIFOIndexSkippedWithAWarning(t *testing.T) {
	const id = "0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01"
	state := filepath.Join(t.TempDir(), "state\x1b]0;pwned\a")
	sessions := filepath.Join(state, "agents", "main", "sessions")
	if err := os.MkdirAll(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "testdata", "example-state", "agents", "main", "sessions", id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sessions, id+".jsonl"), src, 0o600); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(sessions, "sessions.json")
	if err := syscall.Mkfifo(index, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	safePath := cli.Safe(index)
	if safePath == index {
		t.Fatal("the state dir's name must need escaping")
	}
	for _, args := range [][]string{
		{"replay", id, "--state-dir", state, "--provider", "anthropic"},
		{"export", id, "--state-dir", state},
	} {
		code, _, stderr := runOC(t, false, nil, args...)
		if code != cli.ExitOK {
			t.Errorf("oc %s: exit %d: %s", args[0], code, stderr)
		}
		var warnings []string
		for _, l := range strings.Split(stderr, "\n") {
			if strings.HasPrefix(l, "oc: warning: ") {
				warnings = append(warnings, l)
			}
		}
		if len(warnings) != 1 || !strings.Contains(warnings[0], safePath+": not a regular file (a FIFO)") {
			t.Errorf("oc %s: warnings %q, want one naming %s as not a regular file", args[0], warnings, safePath)
		}
		if strings.ContainsRune(stderr, '\x1b') || strings.ContainsRune(stderr, '\a') {
			t.Errorf("oc %s: raw control characters on stderr: %q", args[0], stderr)
		}
		code, _, stderr = runOC(t, false, nil, append(args, "--json")...)
		if args[0] == "export" {
			// A transcript is JSONL: export --json is a usage error.
			if code != cli.ExitUsage {
				t.Errorf("oc export --json: exit %d: %s", code, stderr)
			}
			continue
		}
		if code != cli.ExitOK {
			t.Errorf("oc %s --json: exit %d: %s", args[0], code, stderr)
		}
		var jsonWarnings []string
		for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
			var w struct {
				Warning string `json:"warning"`
			}
			if json.Unmarshal([]byte(l), &w) == nil && w.Warning != "" {
				jsonWarnings = append(jsonWarnings, w.Warning)
			}
		}
		if len(jsonWarnings) != 1 || !strings.HasPrefix(jsonWarnings[0], index+": not a regular file (a FIFO)") {
			t.Errorf("oc %s --json: warnings %q, want one object with the exact path %q", args[0], jsonWarnings, index)
		}
	}
}
