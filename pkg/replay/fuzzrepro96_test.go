package replay

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/internal/replaytest"
	"github.com/openclaw-tools/oc/pkg/store/context96"
	"github.com/openclaw-tools/oc/pkg/upgrade"
)

// The reproducers of the 2026.9.6 fidelity issue
// (../shared/corpus/fuzz-repro-2026.9.6, read in place: one transcript per
// way oc once differed from 9.6 on generated input) against 9.6's answers
// stored in testdata/replay/fuzz-repro96/answers.jsonl (its README says how
// they were made: 9.6's own import, then context, sanitize and payload on
// every route). oc reads each file as `oc replay FILE --openclaw 2026.9.6`
// does: the rows 9.6's import stores (upgrade.ImportedRows), 9.6's bounded
// context, its sanitize pipeline and its wire body.

const fuzzRepro96Answers = "../../testdata/replay/fuzz-repro96/answers.jsonl"

// fuzzRepro96Explained are the stage answers oc does not reproduce, each
// with the reason (docs/replay.md lists them): they are counted apart and
// must still differ, so that a fix shows up here.
var fuzzRepro96Explained = map[string]string{}

type repro96Answer struct {
	ID    string          `json:"id"`
	OK    bool            `json:"ok"`
	Out   json.RawMessage `json:"out"`
	Error string          `json:"error"`
}

func loadRepro96Answers(t *testing.T) []repro96Answer {
	t.Helper()
	var out []repro96Answer
	replaytest.ReadJSONLines(t, fuzzRepro96Answers, func(line []byte) {
		var a repro96Answer
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatalf("%s: %v", fuzzRepro96Answers, err)
		}
		out = append(out, a)
	})
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// repro96Session is one reproducer as oc's 9.6 replay reads it.
type repro96Session struct {
	ctxMessages []json.RawMessage
	snapshots   []ModelSnapshot
	version     int
	err         error
}

func loadRepro96(t *testing.T, name string) *repro96Session {
	t.Helper()
	path := filepath.Join(oracletest.SharedDir(t), "corpus", "fuzz-repro-2026.9.6", name)
	if _, err := os.Stat(path); err != nil {
		oracletest.Unavailable(t, err.Error())
	}
	rows, _, err := upgrade.ImportedRows(path)
	if err != nil {
		return &repro96Session{err: err}
	}
	built, err := context96.BuildBounded(rows, context96.LimitsFor(context96.DefaultContextTokens))
	if err != nil {
		return &repro96Session{err: err}
	}
	snaps, err := ModelSnapshotsOnBranch(built.Branch)
	if err != nil {
		return &repro96Session{err: err}
	}
	return &repro96Session{ctxMessages: built.Context.Messages, snapshots: snaps, version: built.Version}
}

// repro96FarFuture is the Date.now() oc's sanitize runs at (2100-01-01):
// later than every message, as the oracle's was; the messages it makes up
// then take SyntheticTime, which the comparison matches with any time.
const repro96FarFuture = 4102444800000

// stages returns oc's limited list and wire body for one route (nil where
// oc fails, with the error).
func (s *repro96Session) stages(provider, api, model string) (limited, payload []byte, err error) {
	if s.err != nil {
		return nil, nil, s.err
	}
	msgs, err := DecodeMessages(s.ctxMessages, false)
	if err != nil {
		return nil, nil, err
	}
	res, err := Sanitize(msgs, Options{Release: policy.Release96, Provider: provider, API: api, Model: model,
		Now: func() int64 { return repro96FarFuture }, ModelSnapshots: s.snapshots})
	if err != nil {
		return nil, nil, err
	}
	for _, m := range res.Limited {
		if ts, ok := m.Get("timestamp").(json.Number); ok && ts.String() == strconv.FormatInt(repro96FarFuture, 10) {
			m.Set("timestamp", json.Number(strconv.Itoa(oracletest.SyntheticTime)))
		}
	}
	if limited, err = AppendMessages(nil, res.Limited); err != nil {
		return nil, nil, err
	}
	p, err := BuildPayload(PayloadInput{Release: policy.Release96, Location: time.UTC,
		Now: func() int64 { return oracletest.SyntheticTime }, SessionVersion: s.version,
		Provider: provider, API: api, Model: model, Messages: res.Limited})
	if err != nil {
		return limited, nil, err
	}
	payload, err = p.AppendJSON(nil)
	return limited, payload, err
}

// compareRepro96 compares one answer with oc's reading of the reproducer
// ("" when equal or failing in both).
func compareRepro96(t *testing.T, s *repro96Session, a repro96Answer) string {
	t.Helper()
	f := strings.Split(a.ID, "|")
	switch {
	case len(f) == 2 && f[1] == "context":
		return repro96ContextDifference(s, a)
	case len(f) == 5:
		limited, payload, err := s.stages(f[2], f[3], f[4])
		return repro96StageDifference(f[1], limited, payload, err, a)
	}
	t.Fatalf("%s: unexpected answer id", a.ID)
	return ""
}

// TestFuzzRepro96MatchesStoredAnswers: every reproducer's context, and its
// sanitized list and wire body on every route, equal 9.6's (or both fail),
// except the explained ones, which must still differ.
func TestFuzzRepro96MatchesStoredAnswers(t *testing.T) {
	answers := loadRepro96Answers(t)
	sessions := map[string]*repro96Session{}
	equal, explained, want := 0, 0, 0
	stillDiffer := map[string]bool{}
	for _, a := range answers {
		f := strings.Split(a.ID, "|")
		name := f[0]
		s := sessions[name]
		if s == nil {
			s = loadRepro96(t, name)
			sessions[name] = s
		}
		d := compareRepro96(t, s, a)
		if why, ok := fuzzRepro96Explained[name]; ok {
			explained++
			if d != "" {
				stillDiffer[name] = true
			}
			t.Logf("%s: explained (%s)", a.ID, why)
			continue
		}
		want++
		if d != "" {
			t.Errorf("%s: %s", a.ID, d)
			continue
		}
		equal++
	}
	for name := range fuzzRepro96Explained {
		if !stillDiffer[name] {
			t.Errorf("%s: listed as an explained difference, but every stage now equals 9.6's: take it off fuzzRepro96Explained", name)
		}
	}
	t.Logf("%d answers of explained differences not compared (%d reproducers)", explained, len(fuzzRepro96Explained))
	oracletest.Compared(t, "2026.9.6 fuzz reproducers: stored context/sanitize/payload answers equal, or failing in both", equal, want)
}

func repro96ContextDifference(s *repro96Session, a repro96Answer) string {
	switch {
	case !a.OK && s.err != nil:
		return ""
	case !a.OK:
		return "OpenClaw fails (" + firstLine(a.Error) + "), oc answers"
	case s.err != nil:
		return "oc fails (" + s.err.Error() + "), OpenClaw answers"
	}
	var want struct {
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(a.Out, &want); err != nil {
		return "oracle answer: " + err.Error()
	}
	got := []byte{'['}
	got = append(got, bytes.Join(rawBytes(s.ctxMessages), []byte{','})...)
	return oracletest.Difference96(append(got, ']'), want.Messages)
}

func rawBytes(ms []json.RawMessage) [][]byte {
	out := make([][]byte, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

func repro96StageDifference(mode string, limited, payload []byte, ocErr error, a repro96Answer) string {
	got, want := payload, a.Out
	if mode == "sanitize" {
		got = limited
		var s struct {
			Limited json.RawMessage `json:"limited"`
		}
		if a.OK {
			_ = json.Unmarshal(a.Out, &s)
		}
		want = s.Limited
	}
	switch {
	case !a.OK && (got == nil || ocErr != nil && mode == "payload"):
		return ""
	case !a.OK:
		return "OpenClaw fails (" + firstLine(a.Error) + "), oc answers"
	case got == nil:
		return "oc fails (" + ocErr.Error() + "), OpenClaw answers"
	}
	return oracletest.Difference96(got, want)
}

// TestFuzzRepro96Live asks the 2026.9.6 oracle again (OC_LIVE_ORACLE=1):
// each reproducer in its JSONL mode (imported in process, as
// `oc replay FILE --openclaw 2026.9.6` reads it), context and the routes of
// providers.txt (four; all nine with OC_LIVE_ORACLE_FULL), compared with oc
// as above.
func TestFuzzRepro96Live(t *testing.T) {
	oracletest.RequireLive(t, "2026.9.6 fuzz reproducers")
	dir := filepath.Join(oracletest.SharedDir(t), "corpus", "fuzz-repro-2026.9.6")
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		oracletest.Unavailable(t, "no reproducers in "+dir)
	}
	routesText, err := os.ReadFile(filepath.Join(oracletest.SharedDir(t), "corpus", "oracle-2026.9.6", "providers.txt"))
	if err != nil {
		oracletest.Unavailable(t, err.Error())
	}
	// Each job imports its file first (6 s or so): a live run takes the
	// routes the reproducers' causes live on, OC_LIVE_ORACLE_FULL all nine.
	short := map[string]bool{"anthropic-messages": true, "openai-completions": true, "google-generative-ai": true,
		"mistral-conversations": true}
	full := os.Getenv(oracletest.FullLiveEnv) != ""
	var routes [][]string
	for _, l := range strings.Split(string(routesText), "\n") {
		if f := strings.Fields(l); len(f) == 3 && (full || short[f[1]] && f[0] != "minimax" && f[0] != "openrouter" && f[0] != "ollama") {
			routes = append(routes, f)
		}
	}
	var jobs []oracletest.Job
	for _, f := range files {
		name := filepath.Base(f)
		jobs = append(jobs, oracletest.Job{ID: name + "|context", Mode: "context", Args: []string{f}})
		for _, r := range routes {
			for _, mode := range []string{"sanitize", "payload"} {
				jobs = append(jobs, oracletest.Job{ID: strings.Join(append([]string{name, mode}, r...), "|"), Mode: mode,
					Args: append([]string{f}, r...)})
			}
		}
	}
	res := oracletest.Batch96(t, jobs, 2*time.Hour)
	sessions := map[string]*repro96Session{}
	equal, want := 0, 0
	for _, j := range jobs {
		name := strings.SplitN(j.ID, "|", 2)[0]
		if _, ok := fuzzRepro96Explained[name]; ok {
			continue
		}
		want++
		r, ok := res[j.ID]
		if !ok {
			t.Errorf("%s: no answer", j.ID)
			continue
		}
		s := sessions[name]
		if s == nil {
			s = loadRepro96(t, name)
			sessions[name] = s
		}
		if d := compareRepro96(t, s, repro96Answer{ID: j.ID, OK: r.OK, Out: r.Out, Error: r.Error}); d != "" {
			t.Errorf("%s: %s", j.ID, d)
			continue
		}
		equal++
	}
	oracletest.Compared(t, "2026.9.6 fuzz reproducers: live context/sanitize/payload answers equal, or failing in both", equal, want)
}
