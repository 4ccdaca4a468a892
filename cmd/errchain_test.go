package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A command returns the error it got, wrapped, not its flattened text:
// run() prints one line of any error, and a flattened one loses the %w
// chain callers and tests match with errors.Is and errors.As (a store's
// AmbiguousError, a context's cancellation). Flattening into a string field
// of a JSON report is fine; into a returned error it is not.
func TestCommandsKeepErrorChains(t *testing.T) {
	flattened := regexp.MustCompile(`errors\.New\((oneLine\()?[a-zA-Z.]*\.Error\(\)|(Usagef|Errorf)\("%s", (oneLine\()?[a-zA-Z.]*\.Error\(\)`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for i, line := range strings.Split(string(src), "\n") {
			if flattened.MatchString(line) {
				t.Errorf("%s:%d: an error is flattened to its text: return it (wrapped with %%w): %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
	if checked < 20 {
		t.Fatalf("read %d command files: is the test running in cmd/?", checked)
	}
}
