package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/cli"
)

const exampleState = "../testdata/example-state"

func TestInspectStateDirGolden(t *testing.T) {
	code, out, errOut := runOC(t, false, nil, "inspect", "--state-dir", exampleState)
	assert.Equal(t, cli.ExitOK, code, errOut)
	golden(t, "inspect-state.txt", []byte(out))
}

func TestInspectStateDirJSONGolden(t *testing.T) {
	code, out, errOut := runOC(t, false, nil, "inspect", exampleState, "--json")
	require.Equal(t, cli.ExitOK, code, errOut)
	var doc struct {
		Transcripts []map[string]any `json:"sessions"`
		Totals      map[string]any   `json:"totals"`
		Index       map[string]any   `json:"index"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc), "stdout must be one JSON document")
	assert.Len(t, doc.Transcripts, 4)
	assert.Len(t, doc.Index["missingFiles"], 1)
	assert.Len(t, doc.Index["orphanFiles"], 1)
	golden(t, "inspect-state.json", []byte(out))
}

func TestInspectOneTranscriptWithTreeGolden(t *testing.T) {
	file := filepath.Join(exampleState, "agents/main/sessions/0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01.jsonl")
	code, out, errOut := runOC(t, false, nil, "inspect", file, "--tree")
	require.Equal(t, cli.ExitOK, code, errOut)
	golden(t, "inspect-one-tree.txt", []byte(out))
	// The abandoned branch (the aborted reply) is drawn beside the active one.
	assert.Contains(t, out, "◀ active leaf")
	assert.Contains(t, out, "├─ ")
}

func TestInspectDamagedTranscriptFindings(t *testing.T) {
	file := filepath.Join(exampleState, "agents/main/sessions/0197d2b9-0c4a-7d11-8e22-33f4a5b6c7d8.jsonl")
	code, out, errOut := runOC(t, false, nil, "inspect", file, "--json")
	require.Equal(t, cli.ExitOK, code, errOut)
	var s struct {
		MalformedLines []int64 `json:"malformedLines"`
		Findings       []struct {
			Rule string `json:"rule"`
			Line int64  `json:"line"`
		} `json:"findings"`
		ActiveBranch struct {
			Messages int `json:"messages"`
		} `json:"activeBranch"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &s))
	assert.Equal(t, []int64{6}, s.MalformedLines)
	rules := map[string]int64{}
	for _, f := range s.Findings {
		rules[f.Rule] = f.Line
	}
	assert.Equal(t, int64(6), rules["malformed-line"])
	assert.Equal(t, int64(4), rules["empty-assistant-error"])
	assert.Equal(t, int64(5), rules["blank-user"])
	assert.Equal(t, int64(7), rules["missing-parent"])
	assert.Equal(t, int64(4), rules["repair"], "what oc repair would change is a finding too")
	// The lost line cuts the last message off from its history.
	assert.Equal(t, 1, s.ActiveBranch.Messages)
}

func TestInspectStyledOnTerminalPlainWhenPiped(t *testing.T) {
	file := filepath.Join(exampleState, "agents/main/sessions/0197d2b9-0c4a-7d11-8e22-33f4a5b6c7d8.jsonl")
	_, styled, _ := runOC(t, true, nil, "inspect", file)
	assert.Contains(t, styled, "\x1b[", "a terminal gets ANSI styles")
	_, piped, _ := runOC(t, false, nil, "inspect", file)
	assert.NotContains(t, piped, "\x1b[", "piped output is plain")
	_, noColor, _ := runOC(t, true, map[string]string{"NO_COLOR": "1"}, "inspect", file)
	assert.NotContains(t, noColor, "\x1b[", "NO_COLOR turns styles off on a terminal")
	_, flagNoColor, _ := runOC(t, true, nil, "inspect", file, "--no-color")
	assert.NotContains(t, flagNoColor, "\x1b[")
	assert.Equal(t, piped, noColor, "the plain text is the same either way")
}

func TestInspectStdin(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(exampleState, "agents/ops/sessions/0197d5ff-0000-7111-8222-333344445555.jsonl"))
	require.NoError(t, err)
	ios, out, errOut := cli.Test(false)
	ios.In = bytes.NewReader(data)
	code := Run(t.Context(), []string{"inspect", "-", "--json"}, ios, func(string) string { return "" })
	require.Equal(t, cli.ExitOK, code, errOut.String())
	assert.Contains(t, out.String(), `"entries": 3`)
}

// Bad input: one line on stderr naming the file (and line), exit 3, no panic.
func TestInspectBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return p
	}
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(i*131 + 7)
	}
	huge := bytes.Repeat([]byte("x"), 64<<20)
	emptyDir := filepath.Join(dir, "nothing-here")
	require.NoError(t, os.Mkdir(emptyDir, 0o755))
	cases := []struct {
		name, path, want string
	}{
		{"binary garbage", write("garbage.jsonl", garbage), "garbage.jsonl:1: not an OpenClaw transcript"},
		{"NUL bytes", write("nul.jsonl", make([]byte, 1000)), "nul.jsonl:1: not an OpenClaw transcript"},
		{"invalid UTF-8", write("latin1.jsonl", []byte("\xff\xfe\xfd caf\xe9\n\xc0\xc1\n")), "latin1.jsonl:1: not an OpenClaw transcript"},
		{"empty file", write("empty.jsonl", nil), "empty.jsonl: empty file"},
		{"directory with no sessions", emptyDir, "nothing-here: no OpenClaw transcripts found"},
		{"missing path", filepath.Join(dir, "missing.jsonl"), "missing.jsonl: no such file or directory"},
		{"64 MiB garbage line", write("huge.jsonl", huge), "huge.jsonl:1: not an OpenClaw transcript"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runOC(t, false, nil, "inspect", c.path)
			assert.Equal(t, cli.ExitIncomplete, code)
			assert.Empty(t, out)
			oneLineError(t, errOut)
			assert.Contains(t, errOut, c.want)
		})
	}
}

// A 64 MiB line that is a real entry is read, not refused.
func TestInspectHugeValidLine(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":3,"id":"s1","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/"}` + "\n")
	b.WriteString(`{"type":"message","id":"m1","parentId":null,"timestamp":"2026-05-01T00:00:01.000Z","message":{"role":"user","content":"`)
	b.Write(bytes.Repeat([]byte("a"), 64<<20))
	b.WriteString(`"}}` + "\n")
	p := filepath.Join(dir, "s1.jsonl")
	require.NoError(t, os.WriteFile(p, b.Bytes(), 0o644))
	code, out, errOut := runOC(t, false, nil, "inspect", p, "--json")
	require.Equal(t, cli.ExitOK, code, errOut)
	assert.Contains(t, out, `"messages": 1`)
}

// Valid JSON lines with invalid UTF-8 inside strings load in OpenClaw (as
// U+FFFD); inspect reads them and says so.
func TestInspectInvalidUTF8InsideStrings(t *testing.T) {
	dir := t.TempDir()
	data := "{\"type\":\"session\",\"version\":3,\"id\":\"s1\",\"timestamp\":\"2026-05-01T00:00:00.000Z\",\"cwd\":\"/\"}\n" +
		"{\"type\":\"message\",\"id\":\"m1\",\"parentId\":null,\"timestamp\":\"2026-05-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"caf\xe9\"}}\n"
	p := filepath.Join(dir, "s1.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	code, out, errOut := runOC(t, false, nil, "inspect", p)
	require.Equal(t, cli.ExitOK, code, errOut)
	assert.Contains(t, out, "invalid-utf8")
	assert.True(t, strings.Contains(out, "1 message in context"), out)
}

// One named transcript also says which providers' replay would rewrite it.
func TestInspectReplayFindings(t *testing.T) {
	file := filepath.Join(exampleState, "agents/ops/sessions/0197d400-aaaa-7bbb-8ccc-ddddeeeeffff.jsonl")
	code, out, errOut := runOC(t, false, nil, "inspect", file, "--json")
	require.Equal(t, cli.ExitOK, code, errOut)
	var s struct {
		Findings []struct {
			Rule    string `json:"rule"`
			Message string `json:"message"`
		} `json:"findings"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &s))
	var msg string
	for _, f := range s.Findings {
		if f.Rule == "replay-fixes" {
			msg = f.Message
		}
	}
	// The call without a result gets a synthetic one; the Responses-style id
	// "call_8xK2|fc_0a1b2c3d" is rewritten for OpenAI.
	assert.Contains(t, msg, "2 ids rewritten, 1 synthetic result: openai, openai-codex")
	// A folder gets them only with --replay (it replays every transcript 14 times).
	_, out, _ = runOC(t, false, nil, "inspect", exampleState, "--json")
	assert.NotContains(t, out, "replay-fixes")
	_, out, _ = runOC(t, false, nil, "inspect", exampleState, "--json", "--replay")
	assert.Contains(t, out, "replay-fixes")
}
