//go:build unix

package cmd

import (
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
