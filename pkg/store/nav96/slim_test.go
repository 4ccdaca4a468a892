package nav96

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func analyzeWith(rows [][]byte, parse func([]byte) *Record) *Result {
	recs := make([]*Record, len(rows))
	for i, l := range rows {
		recs[i] = parse(l)
	}
	return AnalyzeRecords(recs)
}

// ParseSlim's records (tool call ids instead of the assistant content)
// give the rules' answers Parse's give: on a reset that keeps tool results
// answering calls before it, and on every transcript of the real corpus
// read as rows.
func TestParseSlimAnswersAsParse(t *testing.T) {
	reset := `{"type":"session","version":3,"id":"s"}
{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":"a"}}
{"type":"message","id":"a1","parentId":"u1","message":{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"toolCall","id":"t1","name":"read","arguments":{"p":"/x"}},{"type":"toolUse","id":"t2"},{"type":"toolCall","id":""}]}}
{"type":"message","id":"r1","parentId":"a1","message":{"role":"toolResult","toolCallId":"t1","content":[{"type":"text","text":"ok"}]}}
{"type":"message","id":"r2","parentId":"r1","message":{"role":"toolResult","toolCallId":"t9","content":[{"type":"text","text":"orphan"}]}}
{"type":"message","id":"r3","parentId":"r2","message":{"role":"toolResult","toolUseId":"t2","content":[{"type":"text","text":"ok2"}]}}
{"type":"reset","id":"x1","parentId":"r3","reason":"new","firstKeptEntryId":"u1"}
{"type":"message","id":"u2","parentId":"x1","message":{"role":"user","content":"b"}}`
	cases := map[string][][]byte{"reset": bytes.Split([]byte(reset), []byte("\n"))}
	dir := filepath.Join("..", "..", "..", "..", "shared", "corpus", "real")
	if d := os.Getenv("OC_SHARED_DIR"); d != "" {
		dir = filepath.Join(d, "corpus", "real")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*__sessions__*.jsonl"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cases[filepath.Base(f)] = bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	}
	withCalls := 0
	for name, rows := range cases {
		for _, l := range rows {
			if r := Parse(l); r.content != nil && len(r.toolCalls()) > 0 {
				withCalls++
				if s := ParseSlim(l); s.content != nil || !reflect.DeepEqual(s.toolCalls(), r.toolCalls()) {
					t.Errorf("%s: ParseSlim's tool calls %q, Parse's %q", name, s.toolCalls(), r.toolCalls())
				}
			}
		}
		want, got := analyzeWith(rows, Parse), analyzeWith(rows, ParseSlim)
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s: ParseSlim's answer %+v, Parse's %+v", name, got, want)
		}
	}
	if withCalls == 0 || !strings.Contains(reset, "toolUse") {
		t.Errorf("no row with tool calls was compared")
	}
	t.Logf("%d transcripts, %d rows with tool calls", len(cases), withCalls)
}
