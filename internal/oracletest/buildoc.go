package oracletest

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// BuildOC builds the oc binary (the real main, with its signal handling)
// into a temporary folder and returns its path; without the go tool the
// test stops through Unavailable.
func BuildOC(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		Unavailable(t, "go tool not found: cannot build oc")
	}
	bin := filepath.Join(t.TempDir(), "oc")
	_, file, _, _ := runtime.Caller(0)
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
