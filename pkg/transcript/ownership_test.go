package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The ownership rules on the active branch: a message repeated word for word,
// a delivery-mirror copy of the reply, a repeated System: awareness line and
// two assistant turns in a row, each on the line where it happens.
func TestOwnershipFindings(t *testing.T) {
	lines := []string{
		`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}`,
		`{"type":"message","id":"1","parentId":null,"message":{"role":"user","content":"hello"}}`,
		`{"type":"message","id":"2","parentId":"1","message":{"role":"user","content":"hello"}}`,
		`{"type":"message","id":"3","parentId":"2","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"provider":"anthropic","model":"m"}}`,
		`{"type":"message","id":"4","parentId":"3","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"provider":"openclaw","model":"delivery-mirror"}}`,
		`{"type":"message","id":"5","parentId":"4","message":{"role":"user","content":[{"type":"text","text":"System: [x] ping"}]}}`,
		`{"type":"message","id":"6","parentId":"5","message":{"role":"user","content":[{"type":"text","text":"System: [x] ping"}]}}`,
		`{"type":"message","id":"7","parentId":"6","message":{"role":"assistant","content":[{"type":"text","text":"one"}],"provider":"anthropic","model":"m"}}`,
		`{"type":"message","id":"8","parentId":"7","message":{"role":"assistant","content":[{"type":"text","text":"two"}],"provider":"anthropic","model":"m"}}`,
		`{"type":"message","id":"9","parentId":"1","message":{"role":"user","content":"off the active branch"}}`,
		`{"type":"message","id":"10","parentId":"8","message":{"role":"user","content":"end"}}`,
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := AnalyzeFile(File{Path: path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range s.Findings {
		if IsOwnershipRule(f.Rule) {
			got = append(got, f.Rule+"@"+itoa(int(f.Line)))
		}
	}
	want := []string{"duplicate-message@3", "delivery-mirror-copy@5", "duplicate-message@7", "system-awareness-copy@7", "adjacent-assistant-turns@9"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("ownership findings %v, want %v", got, want)
	}
}
