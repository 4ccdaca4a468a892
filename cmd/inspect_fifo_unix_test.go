//go:build unix

package cmd

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

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
