package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/oracletest"
)

// `oc replay FILE.jsonl --openclaw 2026.9.6` replays a JSONL transcript as
// 2026.9.6 does: it imports the file first (its `context` mode on a JSONL
// file) and reads the rows it stored. The stored answers are the oracle's on
// the database it imported from the same corpus files; they equal its JSONL
// answers except where `openclaw doctor --fix` later rewrote legacy
// inbound-context labels in message entries (noteSessionTranscriptLabelHealth;
// the oracle's JSONL mode runs only the import: checked on corpus-00), so
// those sessions are left out and named.
func TestReplayJSONLFollows96Import(t *testing.T) {
	shared := oracletest.SharedDir(t)
	dir := filepath.Join(shared, "corpus", "oracle-2026.9.6")
	var sessions map[string]string
	b, err := os.ReadFile(filepath.Join(dir, "sessions.json"))
	if err != nil {
		oracletest.Unavailable(t, err.Error())
	}
	if err := json.Unmarshal(b, &sessions); err != nil {
		t.Fatal(err)
	}
	relabelled := map[string]bool{}
	for key, name := range sessions {
		src, err := os.ReadFile(filepath.Join(shared, "corpus", "real", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(src, []byte("\n")) {
			if bytes.Contains(l, []byte(`"type":"message"`)) && bytes.Contains(l, []byte("(untrusted metadata):")) {
				relabelled[key] = true
				break
			}
		}
	}
	f, err := os.Open(filepath.Join(dir, "expected.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 256<<20)
	compared, want := 0, 0
	for sc.Scan() {
		var r struct {
			ID  []string        `json:"id"`
			OK  bool            `json:"ok"`
			Out json.RawMessage `json:"out"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.ID) != 5 || (r.ID[1] != "sanitize" && r.ID[1] != "payload") || !r.OK || relabelled[r.ID[0]] {
			continue
		}
		want++
		key, provider, api, model := r.ID[0], r.ID[2], r.ID[3], r.ID[4]
		stage, expect := "payload", r.Out
		if r.ID[1] == "sanitize" {
			stage = "sanitized"
			var s struct {
				Limited json.RawMessage `json:"limited"`
			}
			if err := json.Unmarshal(r.Out, &s); err != nil {
				t.Fatal(err)
			}
			expect = s.Limited
		}
		file := filepath.Join(shared, "corpus", "real", sessions[key])
		start := time.Now()
		code, out, stderr := runOC(t, false, nil, "replay", file, "--openclaw", "2026.9.6", "--provider", provider, "--api", api,
			"--model", model, "--stage", stage, "--tz", "UTC", "--json")
		if code != 0 {
			t.Errorf("%s %s %s/%s: exit %d: %s", key, stage, provider, api, code, stderr)
			continue
		}
		// A turn OpenClaw makes up ("(session bootstrap)") is stamped with
		// the clock of the run: oc's stamp of this run matches any.
		for m := start.Add(-time.Minute); !m.After(time.Now().Add(time.Minute)); m = m.Add(time.Minute) {
			out = strings.ReplaceAll(out, "["+m.UTC().Format("Mon 2006-01-02 15:04")+" UTC] ", oracletest.SyntheticStamp96)
		}
		out = string(maskRunTimes(t, []byte(out), start.Add(-time.Minute), time.Now().Add(time.Minute)))
		if d := oracletest.Difference96([]byte(out), canonicalJS(t, expect)); d != "" {
			t.Errorf("%s %s %s/%s: differs from 2026.9.6: %s", key, stage, provider, api, d)
			continue
		}
		compared++
	}
	if want < 150 {
		t.Errorf("only %d stored answers outside the relabelled sessions %v", want, relabelled)
	}
	t.Logf("left out (labels rewritten by doctor --fix after the import): %v", relabelled)
	oracletest.Compared(t, "2026.9.6 replay of corpus JSONL files equal to the oracle", compared, want)
}

func canonicalJS(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	v, err := jsjson.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	b, err := jsjson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// maskRunTimes gives every "timestamp" number within [from, to] (a time
// the run took from the clock, for a message it made up) the value
// oracletest.SyntheticTime, which matches any time.
func maskRunTimes(t *testing.T, doc []byte, from, to time.Time) []byte {
	t.Helper()
	v, err := jsjson.Parse(doc)
	if err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case *jsjson.Object:
			for i, m := range x.Members {
				if f, ok := m.Value.(float64); ok && m.Key == "timestamp" && f >= float64(from.UnixMilli()) && f <= float64(to.UnixMilli()) {
					x.Members[i].Value = float64(oracletest.SyntheticTime)
					continue
				}
				walk(m.Value)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	b, err := jsjson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
