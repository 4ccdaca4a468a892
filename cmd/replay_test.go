package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func ruleTranscript(name string) string {
	return filepath.Join("..", "testdata", "replay", "rules", name)
}

func TestReplayExplainGolden(t *testing.T) {
	code, out, errOut := runOC(t, false, nil, "replay", ruleTranscript("pairing.jsonl"), "--provider", "anthropic", "--explain")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "replay-explain.txt", []byte(out))
}

func TestReplayAllGolden(t *testing.T) {
	code, out, errOut := runOC(t, false, nil, "replay", ruleTranscript("tool-ids.jsonl"), "--provider", "all")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "replay-all.txt", []byte(out))
}

// TestReplayJSONIsOneValue: with --json stdout holds exactly one JSON value
// of the documented shape for every stage and mode.
func TestReplayJSONIsOneValue(t *testing.T) {
	file := ruleTranscript("tool-ids.jsonl")
	cases := []struct {
		args  []string
		check func(v any) bool
	}{
		{[]string{"--stage", "context"}, func(v any) bool { _, ok := v.([]any); return ok }},
		{[]string{"--stage", "sanitized"}, func(v any) bool { _, ok := v.([]any); return ok }},
		{[]string{"--stage", "payload"}, func(v any) bool { m, ok := v.(map[string]any); return ok && m["messages"] != nil }},
		{[]string{"--explain"}, func(v any) bool {
			m, ok := v.(map[string]any)
			return ok && m["policy"] != nil && m["stages"] != nil && m["changes"] != nil
		}},
		{[]string{"--diff"}, func(v any) bool { _, ok := v.([]any); return ok }},
	}
	for _, c := range cases {
		args := append([]string{"replay", file, "--provider", "mistral", "--json"}, c.args...)
		code, out, errOut := runOC(t, false, nil, args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, errOut)
			continue
		}
		dec := json.NewDecoder(strings.NewReader(out))
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Errorf("%v: %v", c.args, err)
			continue
		}
		if dec.More() {
			t.Errorf("%v: more than one JSON value on stdout", c.args)
		}
		if !c.check(v) {
			t.Errorf("%v: unexpected shape: %.200s", c.args, out)
		}
	}
}

func TestReplayExplainPolicyIsTheTables(t *testing.T) {
	code, out, _ := runOC(t, false, nil, "replay", ruleTranscript("tool-ids.jsonl"), "--provider", "mistral", "--explain", "--json")
	if code != 0 {
		t.Fatal(code)
	}
	var doc struct {
		Policy map[string]any `json:"policy"`
	}
	_ = json.Unmarshal([]byte(out), &doc)
	if doc.Policy["toolCallIdMode"] != "strict9" {
		t.Errorf("mistral policy: %v", doc.Policy)
	}
}

func TestReplayErrors(t *testing.T) {
	code, _, errOut := runOC(t, false, nil, "replay", "/nonexistent/x.jsonl", "--provider", "anthropic")
	if code != 3 {
		t.Errorf("missing file: exit %d", code)
	}
	oneLineError(t, errOut)
	code, _, errOut = runOC(t, false, nil, "replay", ruleTranscript("pairing.jsonl"), "--provider", "anthropic", "--stage", "wire")
	if code != 2 {
		t.Errorf("bad stage: exit %d", code)
	}
	if !strings.HasPrefix(errOut, `oc: --stage "wire"`) {
		t.Errorf("bad stage: stderr %q does not name the flag first", errOut)
	}
	code, _, _ = runOC(t, false, nil, "replay", ruleTranscript("pairing.jsonl"), "--provider", "no-such-provider")
	if code != 2 {
		t.Errorf("unknown provider without --api/--model: exit %d", code)
	}
}

func TestReplayColorOnTerminalOnly(t *testing.T) {
	_, tty, _ := runOC(t, true, nil, "replay", ruleTranscript("blank-user.jsonl"), "--provider", "anthropic", "--stage", "sanitized")
	_, piped, _ := runOC(t, false, nil, "replay", ruleTranscript("blank-user.jsonl"), "--provider", "anthropic", "--stage", "sanitized")
	if !strings.Contains(tty, "\x1b[") || strings.Contains(piped, "\x1b[") {
		t.Errorf("colour: tty=%v piped=%v", strings.Contains(tty, "\x1b["), strings.Contains(piped, "\x1b["))
	}
}

// TestIndentJSONMatchesStd: the streaming indenter writes what json.Indent
// writes, and fails where it fails.
func TestIndentJSONMatchesStd(t *testing.T) {
	docs := []string{
		`{}`, `[]`, `{ }`, `[ ]`, `0`, `"s"`, `null`, `{"a":[],"b":{},"c":[ ],"d":{ }}`,
		`{"a" : [1, 2 ,{"b":"x\"y\\\\","c":[[]]}], "e":"{[,:]}" ,"f":true}`,
		`[{"k":"\u2028<>&"},-1.5e+3,false,null,[{},[{}]]]`,
		"{\"s\":\"bad \xff\"}", `{"a":1,}`, `[1 2]`, `{"a"`, ``,
	}
	for _, d := range docs {
		var want bytes.Buffer
		werr := json.Indent(&want, []byte(d), "", "  ")
		var got bytes.Buffer
		w := bufio.NewWriter(&got)
		gerr := indentJSON(w, []byte(d))
		w.Flush()
		if (gerr != nil) != (werr != nil) {
			t.Errorf("%q: error %v, json.Indent %v", d, gerr, werr)
			continue
		}
		if werr == nil && got.String() != want.String() {
			t.Errorf("%q:\n got  %q\n want %q", d, got.String(), want.String())
		}
	}
}
