package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// storedRule96Answer is one stored 9.6 oracle answer of a rule transcript
// (testdata/replay/rules96-answers.jsonl), by its id parts.
func storedRule96Answer(t *testing.T, id ...string) json.RawMessage {
	t.Helper()
	f, err := os.Open("../../testdata/replay/rules96-answers.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	want := strings.Join(id, "|")
	for sc.Scan() {
		var a oracletest.Answer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		if strings.Join(a.ID, "|") == want && a.OK {
			return a.Out
		}
	}
	t.Fatalf("no stored answer %s", want)
	return nil
}

// oc's side of the 9.6 comparison reads the branch's model snapshots, as
// 9.6's sanitize does through the session manager: the last snapshot
// (ollama) is not the route, so the switch is dated "now" and the injected
// turn's reasoning item {"id":"rs_1","type":"reasoning"} is stale on the
// Responses APIs (dropStaleOpenAIReasoning). Without the snapshots oc kept
// the block (fz-0013 of the seed-1 run).
func TestOcReplay96DropsReasoningBeforeASwitchDatedNow(t *testing.T) {
	const file = "injected-reasoning.jsonl"
	path := filepath.Join("../../testdata/replay/rules96", file)
	rows, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := imported96From(path, rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.snapshots) != 1 {
		t.Fatalf("%d model snapshots on the branch, want 1", len(s.snapshots))
	}
	compared := 0
	for _, r := range []route{
		{"openai", "openai-responses", "gpt-5"},
		{"openai", "openai-chatgpt-responses", "gpt-5.5"},
		{"anthropic", "anthropic-messages", "claude-sonnet-4-5"},
		{"google", "google-generative-ai", "gemini-2.5-pro"},
	} {
		limited, _, err := ocReplay96(s, nil, r)
		if err != nil {
			t.Fatalf("%s: %v", r.api, err)
		}
		var want struct {
			Limited json.RawMessage `json:"limited"`
		}
		if err := json.Unmarshal(storedRule96Answer(t, file, "sanitize", r.provider, r.api, r.model), &want); err != nil {
			t.Fatal(err)
		}
		if d := oracletest.Difference96(limited, want.Limited); d != "" {
			t.Errorf("%s: limited differs from the 9.6 oracle: %s", r.api, d)
		}
		compared++
	}
	oracletest.Compared(t, "routes of the injected-reasoning transcript", compared, 4)
}

// A session the import kept no event of (its first chunk was not valid
// UTF-8) is an empty session in 9.6: an empty context, and sanitize and
// payload still answer. The expected values are the 9.6 oracle's answers on
// such a session (a crafted two-line transcript with a 0xff byte, imported
// by the oracle's `import`; context, sanitize and payload by `batch`).
func TestOcReplay96EmptySession(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := imported96From(path, nil)
	if err != nil {
		t.Fatalf("empty exported session: %v", err)
	}
	if d := context96Difference(s, nil, oracletest.Result{OK: true,
		Out: json.RawMessage(`{"messages":[],"thinkingLevel":"off","model":null}`)}); d != "" {
		t.Errorf("context: %s", d)
	}
	for _, c := range []struct {
		r       route
		payload string
	}{
		{route{"google", "google-generative-ai", "gemini-2.5-pro"},
			`{"model":"gemini-2.5-pro","contents":[{"role":"user","parts":[{"text":" "}]}],"config":{}}`},
		{route{"anthropic", "anthropic-messages", "claude-sonnet-4-5"},
			`{"model":"claude-sonnet-4-5","messages":[],"max_tokens":8192,"stream":true}`},
	} {
		limited, payload, err := ocReplay96(s, nil, c.r)
		if err != nil {
			t.Fatalf("%s: %v", c.r.api, err)
		}
		if d := oracletest.Difference96(limited, []byte(`[]`)); d != "" {
			t.Errorf("%s: limited: %s", c.r.api, d)
		}
		if d := oracletest.Difference96(payload, []byte(c.payload)); d != "" {
			t.Errorf("%s: payload: %s", c.r.api, d)
		}
	}
}

// oc's side builds the context by 2026.9.6's rules, as `oc replay
// --openclaw 2026.9.6` does: an entry whose parent names no entry is
// re-attached to the preceding leaf, so the branch goes on past it. The
// expected roles and texts are the 9.6 oracle's `context` answer on this
// transcript (2026.5.6's rules stop at the entry: only "second"). This
// harness read the export with 5.6's rules until seed 17's fz-0002 showed it.
func TestOcReplay96ReattachesAMissingParent(t *testing.T) {
	rows := `{"type":"session","version":3,"id":"f0000000-0000-4000-8000-00000000aaaa","timestamp":"2026-05-12T06:10:20.699Z","cwd":"/w"}
{"type":"message","id":"u1","parentId":null,"timestamp":"2026-05-12T06:10:21.000Z","message":{"role":"user","content":[{"type":"text","text":"first"}],"timestamp":1}}
{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-05-12T06:10:22.000Z","message":{"role":"assistant","content":[{"type":"text","text":"one"}],"stopReason":"stop","api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","timestamp":2}}
{"type":"thinking_level_change","id":"t1","parentId":"gone","timestamp":"2026-05-12T06:10:23.000Z","thinkingLevel":"off"}
{"type":"message","id":"u2","parentId":"t1","timestamp":"2026-05-12T06:10:24.000Z","message":{"role":"user","content":[{"type":"text","text":"second"}],"timestamp":3}}
`
	s, err := imported96From("missing-parent.jsonl", []byte(rows))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range s.ctx.Messages {
		var msg struct {
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if err := json.Unmarshal(m, &msg); err != nil || len(msg.Content) != 1 {
			t.Fatalf("message %s: %v", m, err)
		}
		got = append(got, msg.Role+": "+msg.Content[0].Text)
	}
	want := []string{"user: first", "assistant: one", "user: second"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("context %q, want the oracle's %q", got, want)
	}
}
