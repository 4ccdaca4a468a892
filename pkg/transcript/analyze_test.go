package transcript

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestToolNameAndAwarenessChecks: the byte loops that replaced two regular
// expressions accept exactly what the expressions accept (the tool name on
// its Go string, the awareness prefix on the decoded JSON text).
func TestToolNameAndAwarenessChecks(t *testing.T) {
	nameRE := regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	for _, name := range []string{"", "read", "read_file", "a-b", "Z9", "read file", "read\n", "\nread", "é", "read.x", "a/b", "-", "_", "x\x00", strings.Repeat("a", 64)} {
		if got, want := isToolName(name), nameRE.MatchString(name); got != want {
			t.Errorf("isToolName(%q) = %v, the expression says %v", name, got, want)
		}
	}
	awareRE := regexp.MustCompile(`^System: \[`)
	for _, text := range []string{"System: [x", "System: [", "System: ", "system: [", " System: [", "System: [\u00e9", "\u00e9System: [", "", "S", "System:\u00a0["} {
		for _, raw := range []string{mustJSON(t, text), strings.Replace(mustJSON(t, text), "S", `\u0053`, 1), strings.Replace(mustJSON(t, text), "[", `\u005b`, 1)} {
			s, _ := str([]byte(raw))
			if got, want := strHasPrefix([]byte(raw), awarenessPrefix), awareRE.MatchString(s); got != want {
				t.Errorf("strHasPrefix(%s) = %v, the expression on %q says %v", raw, got, s, want)
			}
		}
	}
	for _, raw := range []string{`12`, `null`, `{"a":1}`, `"Sys\ud83d"`, "\"System: [\xff\""} {
		s, _ := str([]byte(raw))
		if got, want := strHasPrefix([]byte(raw), awarenessPrefix), awareRE.MatchString(s); got != want {
			t.Errorf("strHasPrefix(%s) = %v, the expression on %q says %v", raw, got, s, want)
		}
	}
}

func mustJSON(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
