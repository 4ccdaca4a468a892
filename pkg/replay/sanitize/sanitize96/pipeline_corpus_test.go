package sanitize96

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/internal/replaytest"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
	"github.com/openclaw-tools/oc/pkg/store/nav96"
	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
)

// answer96 is one line of a 2026.9.6 stored-answer file.
type answer96 struct {
	ID  json.RawMessage `json:"id"`
	OK  bool            `json:"ok"`
	Out json.RawMessage `json:"out"`
}

// sanitize96Answer is the oracle's `sanitize` output, the stage lists kept
// as the bytes JSON.stringify wrote.
type sanitize96Answer struct {
	Sanitized []json.RawMessage `json:"sanitized"`
	Validated []json.RawMessage `json:"validated"`
	Limited   []json.RawMessage `json:"limited"`
}

// branchSnapshots reads the model-snapshot custom entries on a session's
// active branch from a 2026.9.6 agent database (what the oracle's session
// manager hands readModelSnapshotState through getBranch()).
func branchSnapshots(t testing.TB, db *sqlitestore.DB, key string) []sanitize.ModelSnapshot {
	t.Helper()
	sessions, err := db.Sessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		if s.Key != key {
			continue
		}
		var rows [][]byte
		if _, err := db.Events(t.Context(), s.SessionID, nil, func(ev sqlitestore.Event) error {
			rows = append(rows, ev.JSON)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		res := nav96.Analyze(rows)
		branch := make([][]byte, 0, len(res.Active))
		for _, i := range res.Active {
			branch = append(branch, rows[i])
		}
		snaps, err := ModelSnapshotsOnBranch(branch)
		if err != nil {
			t.Fatal(err)
		}
		return snaps
	}
	t.Fatalf("no session %s", key)
	return nil
}

// stageBytes96 encodes each message of a stage as JSON.stringify does,
// with the oracle's timestamp on messages the pipeline made up.
func stageBytes96(t testing.TB, got []sanitize.Message, want []json.RawMessage) [][]byte {
	t.Helper()
	out := make([][]byte, len(got))
	sentinel := []byte(`"timestamp":` + jsvalue.JSONNumber(float64(replaytest.SyntheticTime96)).String())
	for i, m := range got {
		b, err := jsvalue.AppendJS(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, sentinel) && i < len(want) {
			var w struct {
				Timestamp json.RawMessage `json:"timestamp"`
			}
			if json.Unmarshal(want[i], &w) == nil && w.Timestamp != nil {
				b = bytes.ReplaceAll(b, sentinel, append([]byte(`"timestamp":`), w.Timestamp...))
			}
		}
		out[i] = b
	}
	return out
}

// diffStage96 compares a stage with the oracle's, byte for byte per
// message; "" when equal.
func diffStage96(t testing.TB, got []sanitize.Message, want []json.RawMessage) string {
	t.Helper()
	g := stageBytes96(t, got, want)
	for i := 0; i < len(g) && i < len(want); i++ {
		if !bytes.Equal(g[i], want[i]) {
			d := oracletest.Difference(g[i], want[i])
			if d == "" {
				d = "same JSON value, different bytes (key order or number spelling): " + replaytest.Short(string(g[i]))
			}
			return "message " + strconv.Itoa(i) + ": " + d
		}
	}
	if len(g) != len(want) {
		return "got " + strconv.Itoa(len(g)) + " messages, want " + strconv.Itoa(len(want))
	}
	return ""
}

// jsStringified re-encodes JSON messages as JSON.stringify writes them.
func jsStringified(t testing.TB, raw []json.RawMessage) []json.RawMessage {
	t.Helper()
	msgs, err := jsvalue.DecodeMessages(append([]json.RawMessage(nil), raw...), false)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		b, err := jsvalue.AppendJS(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// run96 runs the 2026.9.6 pipeline on a context and compares the three
// stages with the oracle's answer; it returns the stages that differ.
func run96(t testing.TB, ctx []json.RawMessage, tr []string, snaps []sanitize.ModelSnapshot, want sanitize96Answer) (equal [3]bool, diffs []string) {
	t.Helper()
	raw := append([]json.RawMessage(nil), ctx...)
	msgs, err := jsvalue.DecodeMessages(raw, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Pipeline().Run(msgs, sanitize.Options{Release: policy.Release96, Provider: tr[0], API: tr[1], Model: tr[2],
		ModelSnapshots: snaps, Now: replaytest.FixedNow96})
	if err != nil {
		return equal, []string{"error: " + err.Error()}
	}
	for i, st := range []struct {
		name string
		got  []sanitize.Message
		want []json.RawMessage
	}{{"sanitized", res.Sanitized, want.Sanitized}, {"validated", res.Validated, want.Validated}, {"limited", res.Limited, want.Limited}} {
		if d := diffStage96(t, st.got, st.want); d != "" {
			diffs = append(diffs, st.name+": "+d)
			continue
		}
		equal[i] = true
	}
	return equal, diffs
}

// TestSanitize96MatchesStoredCorpusAnswers runs the 2026.9.6 pipeline on
// the context of every corpus session as 2026.9.6 imported it, for the nine
// triples of providers.txt, and compares the three stages byte for byte
// with the 9.6 oracle's stored `sanitize` answers.
func TestSanitize96MatchesStoredCorpusAnswers(t *testing.T) {
	dir := filepath.Join(oracletest.SharedDir(t), "corpus", "oracle-2026.9.6")
	contexts := map[string][]json.RawMessage{}
	type job struct {
		key  string
		tr   []string
		want sanitize96Answer
	}
	var jobs []job
	replaytest.ReadJSONLines(t, filepath.Join(dir, "expected.jsonl"), func(line []byte) {
		var a answer96
		var id []string
		if json.Unmarshal(line, &a) != nil || json.Unmarshal(a.ID, &id) != nil || len(id) < 2 {
			t.Fatalf("bad line %.80s", line)
		}
		switch {
		case id[1] == "context" && a.OK:
			var c struct {
				Messages []json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal(a.Out, &c); err != nil {
				t.Fatal(err)
			}
			contexts[id[0]] = c.Messages
		case id[1] == "sanitize" && len(id) == 5:
			if !a.OK {
				t.Errorf("%v: stored answer is an error", id)
				return
			}
			var w sanitize96Answer
			if err := json.Unmarshal(a.Out, &w); err != nil {
				t.Fatal(err)
			}
			jobs = append(jobs, job{id[0], id[2:], w})
		}
	})
	state, _ := oracletest.Corpus96State(t)
	db, err := sqlitestore.Open(t.Context(), filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite"), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	snaps := map[string][]sanitize.ModelSnapshot{}
	var counts [3]int
	all := 0
	for _, j := range jobs {
		ctx, ok := contexts[j.key]
		if !ok {
			t.Errorf("%s: no stored context", j.key)
			continue
		}
		if _, ok := snaps[j.key]; !ok {
			snaps[j.key] = branchSnapshots(t, db, j.key)
		}
		eq, diffs := run96(t, ctx, j.tr, snaps[j.key], j.want)
		for i := range eq {
			if eq[i] {
				counts[i]++
			}
		}
		if len(diffs) > 0 {
			t.Errorf("%s %v:\n  %s", j.key, j.tr, strings.Join(diffs, "\n  "))
			continue
		}
		all++
	}
	t.Logf("2026.9.6 sanitize parity (corpus): sanitized %d, validated %d, limited %d, all three %d, of %d", counts[0], counts[1], counts[2], all, len(jobs))
	oracletest.Compared(t, "2026.9.6 stored sanitize answers equal in all three stages (corpus sessions x triples)", all, 117)
}

// TestSanitize96MatchesFixtureGoldens does the same on the 2026.9.6
// oracle's fixtures (databases 9.6 wrote itself): every `sanitize` row of
// their golden.jsonl, from the same file's `context` row of that session.
func TestSanitize96MatchesFixtureGoldens(t *testing.T) {
	total, all, want := 0, 0, 0
	var counts [3]int
	for _, fx := range oracletest.Fixtures96() {
		state := oracletest.Fixture96State(t, fx)
		contexts := map[string][]json.RawMessage{}
		type row struct {
			id   string
			args []string
			want sanitize96Answer
		}
		var rows []row
		path := filepath.Join(oracletest.SharedDir(t), "oracle-2026.9.6", "fixtures", fx, "golden.jsonl")
		replaytest.ReadJSONLines(t, path, func(line []byte) {
			var g struct {
				ID   string          `json:"id"`
				Mode string          `json:"mode"`
				Args []string        `json:"args"`
				OK   bool            `json:"ok"`
				Out  json.RawMessage `json:"out"`
			}
			if err := json.Unmarshal(line, &g); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			switch g.Mode {
			case "context":
				if !g.OK {
					return
				}
				var c struct {
					Messages []json.RawMessage `json:"messages"`
				}
				if err := json.Unmarshal(g.Out, &c); err != nil {
					t.Fatal(err)
				}
				contexts[strings.TrimSuffix(g.ID, "|context")] = c.Messages
			case "sanitize":
				want++
				if !g.OK || len(g.Args) != 5 {
					t.Errorf("%s: sanitize row without an answer", g.ID)
					return
				}
				var w sanitize96Answer
				if err := json.Unmarshal(g.Out, &w); err != nil {
					t.Fatal(err)
				}
				// golden.jsonl was written by Python (", " separators, \u
				// escapes): re-encode the oracle's messages as JSON.stringify
				// writes them, keeping their key order.
				for _, stage := range []*[]json.RawMessage{&w.Sanitized, &w.Validated, &w.Limited} {
					*stage = jsStringified(t, *stage)
				}
				rows = append(rows, row{g.ID, g.Args, w})
			}
		})
		dbs := map[string]*sqlitestore.DB{}
		for _, r := range rows {
			session := strings.SplitN(r.id, "|", 2)[0]
			ctx, ok := contexts[session]
			if !ok {
				t.Errorf("%s: no context row for %s", r.id, session)
				continue
			}
			dbPath := filepath.Join(state, strings.TrimPrefix(r.args[0], "db/"))
			db := dbs[dbPath]
			if db == nil {
				var err error
				if db, err = sqlitestore.Open(t.Context(), dbPath, sqlitestore.Options{}); err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				dbs[dbPath] = db
			}
			total++
			eq, diffs := run96(t, ctx, r.args[2:], branchSnapshots(t, db, r.args[1]), r.want)
			for i := range eq {
				if eq[i] {
					counts[i]++
				}
			}
			if len(diffs) > 0 {
				t.Errorf("%s:\n  %s", r.id, strings.Join(diffs, "\n  "))
				continue
			}
			all++
		}
	}
	t.Logf("2026.9.6 sanitize parity (fixtures): sanitized %d, validated %d, limited %d, all three %d, of %d", counts[0], counts[1], counts[2], all, total)
	// want: every `sanitize` row of the goldens (a row without an answer or
	// without its session's context row fails above and is not counted).
	oracletest.Compared(t, "2026.9.6 fixture sanitize answers equal in all three stages (every sanitize row of the goldens)", all, want)
}
