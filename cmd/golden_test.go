package cmd

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/cli"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/golden")

// golden compares got with testdata/golden/<name>, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("..", "testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file %s: %v (run go test ./cmd -update)", path, err)
	}
	if string(want) != string(got) {
		t.Errorf("output differs from %s (run go test ./cmd -update to accept):\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// runOC runs the command tree in-process with test streams and a fixed environment.
func runOC(t *testing.T, tty bool, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ios, out, errOut := cli.Test(tty)
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		if k == "HOME" || k == "XDG_CONFIG_HOME" {
			return t.TempDir()
		}
		return ""
	}
	code = Run(context.Background(), args, ios, getenv)
	return code, out.String(), errOut.String()
}

// oneLineError checks that stderr is exactly one line starting "oc: ".
func oneLineError(t *testing.T, stderr string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "oc: ") {
		t.Errorf("want one error line starting \"oc: \", got %q", stderr)
	}
	if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
		t.Errorf("stack trace in stderr: %q", stderr)
	}
}
