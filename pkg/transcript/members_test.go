package transcript

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// AnalyzeBytesEach gives the summary Analyze gives for the same bytes read
// as a stream, and hands out the members of every parsed line once.
func TestAnalyzeBytesEachMatchesAnalyze(t *testing.T) {
	inputs := map[string][]byte{
		"crlf-bom-tail": []byte("\xef\xbb\xbf{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\r\n\n{\"type\":\"message\",\"id\":\"u\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\" \"}}\r\nnot json\n[1]\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":\"u\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"x\"}]}}"),
		"escapes":       []byte("{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"u\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"t\\u0065xt\",\"text\":\"\\u0020\\n\"}]}}\n{\"type\":\"message\",\"id\":\"v\",\"parentId\":\"u\",\"message\":{\"role\":\"user\",\"content\":\"System: [x]\"}}\n{\"type\":\"message\",\"id\":\"w\",\"parentId\":\"v\",\"message\":{\"role\":\"user\",\"content\":\"\\u0053ystem: [x]\"}}\n"),
	}
	dir := oracletest.CorpusDir(t)
	entries, err := os.ReadDir(dir)
	if err != nil {
		oracletest.Unavailable(t, fmt.Sprintf("corpus: %v", err))
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".lock") || strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		inputs[e.Name()] = data
	}
	// want: every input (the two synthetic ones and every corpus file the
	// filter above keeps); one agrees when both readings give the same error,
	// or no error, the same summary and a callback per parsed line.
	agreed := 0
	for name, data := range inputs {
		want, werr := Analyze(bytes.NewReader(data))
		calls := 0
		got, gerr := AnalyzeBytesEach(data, func(m *LineMembers) {
			calls++
			if m.Line < 1 {
				t.Errorf("%s: line %d", name, m.Line)
			}
		})
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%s: errors differ: %v vs %v", name, gerr, werr)
			continue
		}
		if werr != nil {
			if werr.Error() != gerr.Error() {
				t.Errorf("%s: errors differ: %v vs %v", name, gerr, werr)
				continue
			}
			agreed++
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: summaries differ:\n got  %+v\n want %+v", name, got, want)
			continue
		}
		if calls != want.Entries {
			t.Errorf("%s: %d member callbacks for %d parsed lines", name, calls, want.Entries)
			continue
		}
		agreed++
	}
	oracletest.Checked(t, "AnalyzeBytesEach agrees with Analyze (two synthetic transcripts and every real-corpus transcript)", agreed, len(inputs))
}

// Blank user text is found with and without escapes, in a string content and
// in a text block (the rule reads the text without copying it when it can).
func TestBlankUserTextWithEscapes(t *testing.T) {
	head := `{"type":"session","version":3,"id":"s"}` + "\n"
	for content, blank := range map[string]bool{
		`" "`: true, `"\u0020\n"`: true, `"\u0041"`: false, `" x "`: false, `"\t\\"`: false,
		`[{"type":"text","text":" "}]`: true, `[{"type":"t\u0065xt","text":"\n"}]`: true, `[{"type":"text","text":"\u00a0ok"}]`: false,
		`[]`: true, `[{"type":"text"}]`: true,
	} {
		data := []byte(head + `{"type":"message","id":"u","parentId":null,"message":{"role":"user","content":` + content + `}}` + "\n")
		sum, err := AnalyzeBytesEach(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range sum.Findings {
			found = found || f.Rule == "blank-user"
		}
		if found != blank {
			t.Errorf("content %s: blank-user %v, want %v", content, found, blank)
		}
	}
}

// knownName answers for exactly the names it lists, with the same string,
// and leaves every other text (a case, a space, a prefix away) to the
// interner; intern and interner.str give what str decodes either way.
func TestKnownName(t *testing.T) {
	known := []string{TypeMessage, RoleUser, RoleAssistant, RoleToolResult, TypeCustomMessage, TypeCustom,
		TypeCompaction, TypeModelChange, TypeThinkingLevelChange, TypeSession, "text", "thinking",
		"redacted_thinking", "toolCall", "toolUse", "functionCall", "image", "stop", "length", "error",
		"aborted", "anthropic-messages", "openai-completions", "openai-responses", "openai-codex-responses",
		"azure-openai-responses", "bedrock-converse-stream", "google-generative-ai", "google-gemini-cli",
		"google-vertex"}
	in := interner{}
	for _, name := range known {
		s, ok := knownName([]byte(name))
		if !ok || s != name {
			t.Fatalf("knownName(%q) = %q, %v", name, s, ok)
		}
		for _, other := range []string{strings.ToUpper(name), name + " ", " " + name, name[1:], name + "s", ""} {
			if s, ok := knownName([]byte(other)); ok || s != "" {
				t.Fatalf("knownName(%q) = %q, %v: not a listed name", other, s, ok)
			}
		}
		for _, lit := range []string{`"` + name + `"`, ` "` + name + `" `, `"` + name[:1] + `\u00` + fmt.Sprintf("%02x", name[1]) + name[2:] + `"`, `"` + strings.ToUpper(name) + `"`} {
			want, wantOK := str([]byte(lit))
			if got := intern([]byte(lit)); got != want {
				t.Fatalf("intern(%s) = %q, want %q", lit, got, want)
			}
			if got, ok := in.str([]byte(lit)); got != want || ok != wantOK {
				t.Fatalf("interner.str(%s) = %q, %v; want %q, %v", lit, got, ok, want, wantOK)
			}
		}
	}
}
