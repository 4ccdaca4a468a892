package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// objectKeyOrder lists the member names of every object of a JSON document
// in document order (depth first), read with encoding/json's tokenizer.
func objectKeyOrder(t *testing.T, doc []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var keys []string
	var stack []bool // per open container: is it an object

	expectKey := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return keys
		}
		if err != nil {
			t.Fatalf("tokenize: %v", err)
		}
		if expectKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
			} else {
				keys = append(keys, tok.(string))
				expectKey = false
				continue
			}
		} else if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				stack = append(stack, true)
			case '[':
				stack = append(stack, false)
			case ']', '}':
				stack = stack[:len(stack)-1]
			}
		}
		// Inside an object, a key or the closing brace comes next.
		expectKey = len(stack) > 0 && stack[len(stack)-1]
	}
}

// `oc replay --stage sanitized` prints the messages with the transcript's
// member order (JSON.stringify's), not sorted: every object the pipeline
// passes through keeps the order it had in the file.
func TestReplaySanitizedKeepsMemberOrder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "order.jsonl")
	lines := []string{
		`{"type":"session","version":3,"id":"order","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/"}`,
		`{"type":"message","id":"a","parentId":null,"timestamp":"2026-05-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"zebra first"}],"timestamp":1777593601000}}`,
		`{"type":"message","id":"b","parentId":"a","timestamp":"2026-05-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"toolu_1","name":"read","arguments":{"zeta":1,"alpha":{"y":2,"b":3}}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1777593602000}}`,
		`{"type":"message","id":"c","parentId":"b","timestamp":"2026-05-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"toolu_1","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":1777593603000}}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runOC(t, false, nil, "replay", path, "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--stage", "sanitized")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	keys := strings.Join(objectKeyOrder(t, []byte(out)), ",")
	for _, want := range []string{
		"role,content,type,text,timestamp",                             // the user turn, untouched
		"type,id,name,arguments,zeta,alpha,y,b",                        // the tool call and its arguments
		"role,toolCallId,toolName,content,type,text,isError,timestamp", // the tool result
	} {
		if !strings.Contains(keys, want) {
			t.Errorf("member order %s not in the output's %s", want, keys)
		}
	}
}

// The golden file holds "<now>" for the synthetic tool results' timestamps
// (OpenClaw's Date.now(), the only value that changes from run to run).
func TestReplaySanitizedGolden(t *testing.T) {
	before := time.Now().UnixMilli()
	code, out, errOut := runOC(t, false, nil, "replay", ruleTranscript("pairing.jsonl"), "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--stage", "sanitized")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	after := time.Now().UnixMilli()
	stamp := regexp.MustCompile(`"timestamp": (\d{13})`)
	out = stamp.ReplaceAllStringFunc(out, func(m string) string {
		ms, _ := strconv.ParseInt(m[len(m)-13:], 10, 64)
		if ms >= before && ms <= after {
			return `"timestamp": "<now>"`
		}
		return m
	})
	golden(t, "replay-sanitized.json", []byte(out))
}

// `oc replay --stage sanitized` on every rule transcript, for each of the
// rule transcripts' five common triples: the member order of every object
// equals the oracle's `limited` list (testdata/replay/rules-answers.jsonl):
// all 95 outputs (a file that differs for a known reason would be listed in
// excluded, by name and reason).
func TestReplaySanitizedKeepsOpenClawKeyOrder(t *testing.T) {
	f, err := os.Open("../testdata/replay/rules-answers.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	triples := map[string]bool{
		"anthropic|anthropic-messages|claude-sonnet-4-5": true, "openai|openai-responses|gpt-5": true,
		"google|google-generative-ai|gemini-2.5-pro": true, "mistral|mistral-conversations|mistral-large-latest": true,
		"ollama|openai-completions|gemma4:27b": true,
	}
	type job struct {
		file  string
		tr    []string
		limit json.RawMessage
	}
	var jobs []job
	dec := json.NewDecoder(f)
	for dec.More() {
		var a struct {
			ID  []string        `json:"id"`
			OK  bool            `json:"ok"`
			Out json.RawMessage `json:"out"`
		}
		if err := dec.Decode(&a); err != nil {
			t.Fatal(err)
		}
		if len(a.ID) != 5 || a.ID[1] != "sanitize" || !a.OK || !triples[strings.Join(a.ID[2:], "|")] {
			continue
		}
		var s struct {
			Limited json.RawMessage `json:"limited"`
		}
		if err := json.Unmarshal(a.Out, &s); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, job{a.ID[0], a.ID[2:], s.Limited})
	}
	rules, err := filepath.Glob("../testdata/replay/rules/*.jsonl")
	if err != nil || len(jobs) != len(rules)*len(triples) {
		t.Fatalf("%d stored answers for %d rule transcripts x %d triples (%v)", len(jobs), len(rules), len(triples), err)
	}
	// Known gaps, by name and reason (each must still differ, so that a fix
	// removes its entry).
	excluded := map[string]string{}
	compared, excludedJobs := 0, 0
	for _, j := range jobs {
		code, out, errOut := runOC(t, false, nil, "replay", ruleTranscript(j.file), "--provider", j.tr[0], "--api", j.tr[1], "--model", j.tr[2], "--stage", "sanitized")
		if code != 0 {
			t.Errorf("%s %v: exit %d: %s", j.file, j.tr, code, errOut)
			continue
		}
		got, exp := objectKeyOrder(t, []byte(out)), objectKeyOrder(t, j.limit)
		if reason, ok := excluded[j.file]; ok {
			excludedJobs++
			if slices.Equal(got, exp) {
				t.Errorf("%s %v: now in OpenClaw's member order: remove its exclusion (%s)", j.file, j.tr, reason)
			}
			continue
		}
		if !slices.Equal(got, exp) {
			i := 0
			for i < len(got) && i < len(exp) && got[i] == exp[i] {
				i++
			}
			t.Errorf("%s %v: member order differs from OpenClaw's at key %d: oc %s, oracle %s", j.file, j.tr, i,
				strings.Join(got[i:min(len(got), i+6)], ","), strings.Join(exp[i:min(len(exp), i+6)], ","))
			continue
		}
		compared++
	}
	if want := len(jobs) - excludedJobs; compared != want || want != 95 || excludedJobs != len(excluded)*len(triples) {
		t.Errorf("%d of %d (rule transcript, triple) outputs in OpenClaw's member order (%d excluded)", compared, want, excludedJobs)
	}
	t.Logf("%d of %d outputs in OpenClaw's member order; excluded: %v", compared, len(jobs), excluded)
}
