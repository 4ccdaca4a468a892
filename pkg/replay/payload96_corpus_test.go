package replay

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/internal/replaytest"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// payload96Case is one stored 2026.9.6 `payload` answer and the `sanitize`
// answer whose out.limited is its input.
type payload96Case struct {
	name               string
	provider, api, mdl string
	limited            json.RawMessage // the sanitize answer's out
	want               json.RawMessage // the payload answer's out
	wantOK             bool
	wantErr            string
}

// corpusPayload96Cases pairs the payload and sanitize rows of
// ../shared/corpus/oracle-2026.9.6/expected.jsonl (ids [key, mode, provider,
// api, model]).
func corpusPayload96Cases(t testing.TB) []payload96Case {
	t.Helper()
	path := filepath.Join(oracletest.SharedDir(t), "corpus", "oracle-2026.9.6", "expected.jsonl")
	type row struct {
		ID    []string        `json:"id"`
		OK    bool            `json:"ok"`
		Out   json.RawMessage `json:"out"`
		Error string          `json:"error"`
	}
	san := map[string]row{}
	var pay []row
	replaytest.ReadJSONLines(t, path, func(line []byte) {
		var r row
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(r.ID) != 5 {
			return
		}
		switch r.ID[1] {
		case "sanitize":
			san[strings.Join([]string{r.ID[0], r.ID[2], r.ID[3], r.ID[4]}, "|")] = r
		case "payload":
			pay = append(pay, r)
		}
	})
	var out []payload96Case
	for _, p := range pay {
		s, ok := san[strings.Join([]string{p.ID[0], p.ID[2], p.ID[3], p.ID[4]}, "|")]
		if !ok || !s.OK {
			t.Errorf("%v: no sanitize answer to take the input from", p.ID)
			continue
		}
		out = append(out, payload96Case{name: strings.Join(p.ID, "/"), provider: p.ID[2], api: p.ID[3], mdl: p.ID[4],
			limited: s.Out, want: p.Out, wantOK: p.OK, wantErr: p.Error})
	}
	return out
}

// fixturePayload96Cases pairs the payload and sanitize rows of the 9.6
// oracle's fixtures' golden.jsonl (ids "<fixture>/<agent>/<key>|mode|p|a|m").
func fixturePayload96Cases(t testing.TB) []payload96Case {
	t.Helper()
	type row struct {
		ID    string          `json:"id"`
		Mode  string          `json:"mode"`
		OK    bool            `json:"ok"`
		Out   json.RawMessage `json:"out"`
		Error string          `json:"error"`
	}
	var out []payload96Case
	for _, fx := range oracletest.Fixtures96() {
		path := filepath.Join(oracletest.SharedDir(t), "oracle-2026.9.6", "fixtures", fx, "golden.jsonl")
		san := map[string]row{}
		var pay []row
		replaytest.ReadJSONLines(t, path, func(line []byte) {
			var r row
			if err := json.Unmarshal(line, &r); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			switch r.Mode {
			case "sanitize":
				san[strings.Replace(r.ID, "|sanitize|", "|", 1)] = r
			case "payload":
				pay = append(pay, r)
			}
		})
		for _, p := range pay {
			parts := strings.Split(p.ID, "|")
			s, ok := san[strings.Replace(p.ID, "|payload|", "|", 1)]
			if len(parts) != 5 || !ok || !s.OK {
				t.Errorf("%s: no sanitize answer to take the input from", p.ID)
				continue
			}
			out = append(out, payload96Case{name: p.ID, provider: parts[2], api: parts[3], mdl: parts[4],
				limited: s.Out, want: reencodeJS(t, p.Out), wantOK: p.OK, wantErr: p.Error})
		}
	}
	return out
}

// runPayload96Cases renders every case with Release96 and compares it with
// the oracle's body byte for byte (wireDifference); it returns the number of
// equal bodies per API.
func runPayload96Cases(t *testing.T, cases []payload96Case) (equal int, perAPI map[string][2]int) {
	t.Helper()
	perAPI = map[string][2]int{}
	for _, c := range cases {
		n := perAPI[c.api]
		n[1]++
		msgs := limitedMessages(t, c.limited)
		p, err := BuildPayload(PayloadInput{Release: policy.Release96, Provider: c.provider, API: c.api, Model: c.mdl,
			Messages: msgs})
		if !c.wantOK {
			if err == nil {
				t.Errorf("%s: oracle failed (%s) but BuildPayload succeeded", c.name, c.wantErr)
			} else {
				equal++
				n[0]++
			}
			perAPI[c.api] = n
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			perAPI[c.api] = n
			continue
		}
		got, err := p.AppendJSON(nil)
		if err != nil {
			t.Errorf("%s: encode: %v", c.name, err)
			perAPI[c.api] = n
			continue
		}
		if d := wireDifference(t, got, c.want); d != "" {
			t.Errorf("%s: payload differs from the 2026.9.6 oracle's\n%s", c.name, d)
			perAPI[c.api] = n
			continue
		}
		equal++
		n[0]++
		perAPI[c.api] = n
	}
	apis := make([]string, 0, len(perAPI))
	for a := range perAPI {
		apis = append(apis, a)
	}
	sort.Strings(apis)
	for _, a := range apis {
		t.Logf("%-28s equal %3d of %d", a, perAPI[a][0], perAPI[a][1])
	}
	return equal, perAPI
}

// TestPayload96MatchesStoredCorpusAnswers: every `payload` answer of the 9.6
// oracle on the imported real corpus, rendered from its `sanitize` answer's
// limited list, byte for byte.
func TestPayload96MatchesStoredCorpusAnswers(t *testing.T) {
	cases := corpusPayload96Cases(t)
	if len(cases) < 117 {
		t.Errorf("only %d stored 2026.9.6 payload answers, want at least 117", len(cases))
	}
	equal, _ := runPayload96Cases(t, cases)
	oracletest.Compared(t, "2026.9.6 stored corpus payload answers equal byte for byte", equal, len(cases))
}

// TestPayload96MatchesFixtureAnswers: the payload rows of the 9.6 oracle's
// fixtures (example-state, corpus).
func TestPayload96MatchesFixtureAnswers(t *testing.T) {
	cases := fixturePayload96Cases(t)
	if len(cases) < 9 {
		t.Errorf("only %d 2026.9.6 fixture payload answers, want at least 9", len(cases))
	}
	equal, _ := runPayload96Cases(t, cases)
	oracletest.Compared(t, "2026.9.6 fixture payload answers equal byte for byte", equal, len(cases))
}

// reencodeJS writes a JSON value the way JSON.stringify does, keeping its key
// order: the fixtures' golden.jsonl was written by Python (", " and ": "
// separators, non-ASCII escaped), the corpus answers by the oracle itself.
func reencodeJS(t testing.TB, raw json.RawMessage) json.RawMessage {
	t.Helper()
	if len(raw) == 0 {
		return raw
	}
	v, err := jsvalue.Parse(string(raw))
	if err != nil {
		t.Fatalf("golden value: %v", err)
	}
	b, err := jsvalue.AppendJS(nil, v)
	if err != nil {
		t.Fatalf("golden value: %v", err)
	}
	return b
}
