package cmd

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// `oc replay KEY --state-dir S` on a SQLite install follows 2026.9.6 without
// a flag: its --stage payload --json and --stage sanitized --json equal the
// 2026.9.6 oracle's stored answers for the fixture's sessions.
func TestReplaySQLiteEraMatchesOracle96(t *testing.T) {
	state := oracletest.Fixture96State(t, "example-state")
	f, err := os.Open(filepath.Join(oracletest.SharedDir(t), "oracle-2026.9.6", "fixtures", "example-state", "golden.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	compared, want := 0, 0
	for sc.Scan() {
		var g struct {
			Mode string          `json:"mode"`
			Args []string        `json:"args"`
			OK   bool            `json:"ok"`
			Out  json.RawMessage `json:"out"`
		}
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		if !g.OK || (g.Mode != "payload" && g.Mode != "sanitize") || len(g.Args) != 5 {
			continue
		}
		want++ // every stored payload and sanitize answer is compared
		key, provider, api, model := g.Args[1], g.Args[2], g.Args[3], g.Args[4]
		stage, wantOut := "payload", g.Out
		if g.Mode == "sanitize" {
			stage = "sanitized"
			var s struct {
				Limited json.RawMessage `json:"limited"`
			}
			if err := json.Unmarshal(g.Out, &s); err != nil {
				t.Fatal(err)
			}
			wantOut = s.Limited
		}
		code, out, stderr := runOC(t, false, nil, "replay", key, "--state-dir", state, "--provider", provider, "--api", api, "--model", model,
			"--stage", stage, "--tz", "UTC", "--json")
		if code != 0 {
			t.Errorf("%s %s %s: exit %d: %s", key, g.Mode, provider, code, stderr)
			continue
		}
		var got, exp any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if err := json.Unmarshal(wantOut, &exp); err != nil {
			t.Fatal(err)
		}
		maskSyntheticTimes(got)
		maskSyntheticTimes(exp)
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("%s %s %s/%s/%s differs from the 2026.9.6 oracle:\n got %.600s\nwant %.600s", key, stage, provider, api, model, out, wantOut)
			continue
		}
		compared++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	oracletest.Compared(t, "oc replay of the 2026.9.6 example-state fixture equals the oracle's stored payload/sanitize answers", compared, want)
}

// maskSyntheticTimes drops the timestamps of tool results (synthetic ones
// carry the time of the run).
func maskSyntheticTimes(v any) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			maskSyntheticTimes(e)
		}
	case map[string]any:
		if x["role"] == "toolResult" {
			delete(x, "timestamp")
		}
		for _, e := range x {
			maskSyntheticTimes(e)
		}
	}
}
