package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/oracletest"
)

// The reports of issue 31: one report of an install, whichever store holds
// it. Each test here failed on main before the install's SQLite part was
// folded into the reports.

// doctorDoc is the part of `oc doctor --json` these tests read.
type doctorDoc struct {
	Era      string          `json:"era"`
	SQLite   json.RawMessage `json:"sqlite"`
	Findings []struct {
		ID, Severity, Path, Message, Fix, Section, Session, Store string
		Fixed                                                     bool
	} `json:"findings"`
	Remaining int `json:"remaining"`
	Checks    []struct {
		Section, Status, Detail string
	} `json:"checks"`
	Cron struct {
		Store string `json:"store"`
		Jobs  []struct {
			ID             string   `json:"id"`
			Store          string   `json:"store"`
			Classification *string  `json:"classification"`
			Key            string   `json:"key"`
			Command        []string `json:"command"`
		} `json:"jobs"`
	} `json:"cron"`
}

func runDoctorJSON(t *testing.T, args ...string) (int, doctorDoc) {
	t.Helper()
	code, out, stderr := runOC(t, false, doctorEnv(t), append([]string{"doctor", "--json"}, args...)...)
	var doc doctorDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s (stderr %s)", err, out, stderr)
	}
	return code, doc
}

func (d doctorDoc) check(section string) string {
	for _, c := range d.Checks {
		if c.Section == section {
			return c.Detail
		}
	}
	return ""
}

// midUpgradeState is the 2026.9.6 example install with the JSONL example's
// main transcripts still in agents/main/sessions (no sessions.json): the
// state of an install whose import has not run for them.
func midUpgradeState(t *testing.T) string {
	t.Helper()
	state := oracletest.Fixture96State(t, "example-state")
	dir := filepath.Join(state, "agents", "main", "sessions")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	src := filepath.Join("..", "testdata", "example-state", "agents", "main", "sessions")
	for _, name := range []string{"0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01.jsonl", "0197d2b9-0c4a-7d11-8e22-33f4a5b6c7d8.jsonl"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o600))
	}
	return state
}

// doctor on a 9.6 install: the check list says what the install holds,
// cron.jobs are the cron_jobs rows with their real store, the SQLite
// findings are in findings and count in remaining; no "sqlite" section.
func TestDoctorSQLiteOneReport(t *testing.T) {
	state := oracletest.Fixture96State(t, "example-state")
	code, doc := runDoctorJSON(t, "--state-dir", state)
	if code != cli.ExitFindings {
		t.Fatalf("exit %d, want 1", code)
	}
	if doc.SQLite != nil {
		t.Errorf("a separate sqlite section: %s", doc.SQLite)
	}
	db := filepath.Join(state, "state", "openclaw.sqlite")
	if doc.Cron.Store != db || len(doc.Cron.Jobs) != 4 {
		t.Errorf("cron store %q with %d jobs, want %s with 4", doc.Cron.Store, len(doc.Cron.Jobs), db)
	}
	for _, j := range doc.Cron.Jobs {
		if j.Store != db {
			t.Errorf("job %s: store %q", j.ID, j.Store)
		}
	}
	if got := doc.check("Cron"); got != "4 jobs (state/openclaw.sqlite), 2 to migrate" {
		t.Errorf("Cron check %q", got)
	}
	if got := doc.check("Sessions index"); got != "5 sessions in 2 agent databases" {
		t.Errorf("Sessions index check %q", got)
	}
	open, sawEmpty := 0, false
	for _, f := range doc.Findings {
		if !f.Fixed && (f.Severity == "warning" || f.Severity == "error") {
			open++
		}
		if f.ID == "empty-assistant-error" {
			sawEmpty = true
			if f.Session != "agent:main:slack:channel:c0aelhcgw4f" || f.Store != "sqlite" || f.Section != "Transcripts" {
				t.Errorf("empty-assistant-error: %+v", f)
			}
			// true advice for the era: oc never repairs a database
			if strings.Contains(f.Message+f.Fix, "oc repair fills") || !strings.Contains(f.Fix, "2026.9.6") {
				t.Errorf("advice for a SQLite session: %q / %q", f.Message, f.Fix)
			}
		}
	}
	if !sawEmpty || doc.Remaining != open || open < 5 {
		t.Errorf("empty-assistant-error in findings: %v; remaining %d, open findings %d (want ≥ 5)", sawEmpty, doc.Remaining, open)
	}

	code, out, _ := runOC(t, false, doctorEnv(t), "doctor", "--state-dir", state)
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"Cron · 4 jobs (state/openclaw.sqlite), 2 to migrate", "Sessions index · 5 sessions in 2 agent databases", "5 warnings"} {
		if !strings.Contains(flat, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	for _, bad := range []string{"[✓] Cron · 0 jobs", "oc repair fills in", "in the SQLite section", "2026.6.1 or later, which keeps sessions"} {
		if strings.Contains(flat, bad) {
			t.Errorf("%q in:\n%s", bad, out)
		}
	}
	if code != cli.ExitFindings {
		t.Errorf("human: exit %d", code)
	}
}

// The README's jq recipes give the same kind of answer in both eras.
func TestReadmeJQRecipesBothEras(t *testing.T) {
	states := map[string]string{
		"jsonl":  copyTreeTo(t, filepath.Join("..", "testdata", "example-state")),
		"sqlite": oracletest.Fixture96State(t, "example-state"),
	}
	jq, jqErr := exec.LookPath("jq")
	for era, state := range states {
		t.Run(era, func(t *testing.T) {
			_, doctorOut, _ := runOC(t, false, doctorEnv(t), "doctor", "--json", "--state-dir", state)
			_, inspectOut, _ := runOC(t, false, nil, "inspect", "--json", "--state-dir", state)
			elsewhere := jqRecipe(t, jq, jqErr, doctorOut, `.cron.jobs[] | select(.classification == "ELSEWHERE") | .id`)
			if strings.TrimSpace(elsewhere) != `"e5c2a3b4-7d8e-4f90-a1b2-c3d4e5f6a7b8"` {
				t.Errorf("ELSEWHERE jobs: %q", elsewhere)
			}
			findings := jqRecipe(t, jq, jqErr, inspectOut, `.totals.findings | keys | length > 0`)
			if strings.TrimSpace(findings) != "true" {
				t.Errorf(".totals.findings: %q", findings)
			}
			one := jqRecipe(t, jq, jqErr, inspectOut, `(.sessions | length) as $n | [.sessions[] | select(.era and .store)] | length == $n and $n > 0`)
			if strings.TrimSpace(one) != "true" {
				t.Errorf("sessions with era and store: %q", one)
			}
		})
	}
}

// jqRecipe runs jq's filter on doc, or (without jq) the Go equivalent of
// the three filters the test uses.
func jqRecipe(t *testing.T, jq string, jqErr error, doc, filter string) string {
	t.Helper()
	if jqErr == nil {
		cmd := exec.Command(jq, filter)
		cmd.Stdin = strings.NewReader(doc)
		var out bytes.Buffer
		cmd.Stdout = &out
		require.NoError(t, cmd.Run(), filter)
		return out.String()
	}
	var v struct {
		Cron struct {
			Jobs []struct {
				ID             string `json:"id"`
				Classification string `json:"classification"`
			} `json:"jobs"`
		} `json:"cron"`
		Totals struct {
			Findings map[string]int `json:"findings"`
		} `json:"totals"`
		Sessions []struct {
			Era   string `json:"era"`
			Store string `json:"store"`
		} `json:"sessions"`
	}
	require.NoError(t, json.Unmarshal([]byte(doc), &v))
	switch {
	case strings.HasPrefix(filter, ".cron"):
		var ids []string
		for _, j := range v.Cron.Jobs {
			if j.Classification == "ELSEWHERE" {
				ids = append(ids, `"`+j.ID+`"`)
			}
		}
		return strings.Join(ids, "\n")
	case strings.HasPrefix(filter, ".totals"):
		return map[bool]string{true: "true", false: "false"}[len(v.Totals.Findings) > 0]
	default:
		ok := len(v.Sessions) > 0
		for _, s := range v.Sessions {
			ok = ok && s.Era != "" && s.Store != ""
		}
		return map[bool]string{true: "true", false: "false"}[ok]
	}
}

// inspect --json of a state dir: one key, sessions, in both eras; SQLite
// sessions name their database.
func TestInspectStateJSONOneShape(t *testing.T) {
	for era, state := range map[string]string{
		"jsonl":  filepath.Join("..", "testdata", "example-state"),
		"sqlite": oracletest.Fixture96State(t, "example-state"),
	} {
		_, out, _ := runOC(t, false, nil, "inspect", "--json", "--state-dir", state)
		var doc map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		if _, ok := doc["transcripts"]; ok {
			t.Errorf("%s: a transcripts key", era)
		}
		var sessions []struct{ Era, Store, Database, Key string }
		require.NoError(t, json.Unmarshal(doc["sessions"], &sessions), era)
		if len(sessions) == 0 {
			t.Fatalf("%s: no sessions", era)
		}
		if sessions[0].Key != "agent:main:main" {
			t.Errorf("%s: the first session's key %q, want agent:main:main (its index's)", era, sessions[0].Key)
		}
		for _, s := range sessions {
			if s.Era != era || s.Store == "" || (era == "sqlite") != (s.Database != "") {
				t.Errorf("%s: session %+v", era, s)
			}
		}
		if string(doc["era"]) != `"`+era+`"` {
			t.Errorf("%s: era %s", era, doc["era"])
		}
	}
}

// --agent and --since apply on a SQLite install, in inspect and doctor.
func TestFiltersOnSQLiteInstall(t *testing.T) {
	state := oracletest.Fixture96State(t, "example-state")
	for _, args := range [][]string{{"--agent", "nobody"}, {"--since", "2099-01-01"}} {
		_, out, stderr := runOC(t, false, nil, append([]string{"inspect", "--json", "--state-dir", state}, args...)...)
		var doc struct {
			Sessions []json.RawMessage `json:"sessions"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &doc), stderr)
		if len(doc.Sessions) != 0 {
			t.Errorf("inspect %v: %d sessions", args, len(doc.Sessions))
		}
		_, dd := runDoctorJSON(t, append([]string{"--state-dir", state}, args...)...)
		for _, f := range dd.Findings {
			if f.Session != "" {
				t.Errorf("doctor %v: %s of %s", args, f.ID, f.Session)
			}
		}
	}
	_, doc := runDoctorJSON(t, "--state-dir", state, "--agent", "ops")
	for _, f := range doc.Findings {
		if strings.Contains(f.Message+f.Session+f.Path, "agent:main") || strings.Contains(f.Path, "/agents/main/") {
			t.Errorf("doctor --agent ops reports %s: %s", f.ID, f.Message)
		}
	}
	// every job of the example is main's (by its session key or agentId)
	for _, j := range doc.Cron.Jobs {
		t.Errorf("doctor --agent ops lists job %s (key %q)", j.ID, j.Key)
	}
}

// A mid-upgrade install: doctor and inspect name the same era; 9.6 archived
// sessions.json on purpose, so doctor does not say to restore it; the JSONL
// files awaiting import are named in human output; repair --check gates
// them.
func TestMidUpgradeInstall(t *testing.T) {
	state := midUpgradeState(t)
	_, doc := runDoctorJSON(t, "--state-dir", state)
	var ins struct {
		Era string `json:"era"`
	}
	_, out, _ := runOC(t, false, nil, "inspect", "--json", "--state-dir", state)
	require.NoError(t, json.Unmarshal([]byte(out), &ins))
	if doc.Era != "mid-upgrade" || ins.Era != doc.Era {
		t.Errorf("doctor era %q, inspect era %q; want mid-upgrade in both", doc.Era, ins.Era)
	}
	awaiting := 0
	for _, f := range doc.Findings {
		switch f.ID {
		case "sessions-index-missing":
			if strings.Contains(f.Fix, "restore sessions.json") {
				t.Errorf("advises restoring what 9.6 archived on purpose: %q", f.Fix)
			}
		case "jsonl-awaiting-import":
			awaiting++
		}
	}
	if awaiting != 2 {
		t.Errorf("%d jsonl-awaiting-import findings in doctor, want 2", awaiting)
	}
	_, inspectText, _ := runOC(t, false, nil, "inspect", "--state-dir", state)
	_, doctorText, _ := runOC(t, false, doctorEnv(t), "doctor", "--state-dir", state)
	for _, name := range []string{"0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01.jsonl", "0197d2b9-0c4a-7d11-8e22-33f4a5b6c7d8.jsonl"} {
		for what, text := range map[string]string{"inspect": inspectText, "doctor": doctorText} {
			if !strings.Contains(text, name) {
				t.Errorf("%s does not name %s:\n%s", what, name, text)
			}
		}
	}
	if !strings.Contains(doctorText, "era: mid-upgrade") || !strings.Contains(inspectText, "mid-upgrade") {
		t.Errorf("era words:\n%s\n%s", doctorText, inspectText)
	}
	if code, out, _ := runOC(t, false, nil, "repair", "--check", "--state-dir", state); code != cli.ExitFindings {
		t.Errorf("repair --check: exit %d, want 1 (a JSONL file awaiting import needs repair):\n%s", code, out)
	}
}

// A sessions.json entry without its transcript has one severity in inspect
// and doctor (it was a warning in inspect, a note in doctor).
func TestMissingTranscriptSameSeverity(t *testing.T) {
	state := filepath.Join("..", "testdata", "example-state")
	_, out, _ := runOC(t, false, nil, "inspect", "--state-dir", state)
	_, doc := runDoctorJSON(t, "--state-dir", state)
	sev := ""
	for _, f := range doc.Findings {
		if f.ID == "session-file-missing" {
			sev = f.Severity
		}
	}
	if sev == "" || !strings.Contains(out, sev+" agent:main:telegram:direct:99887766: transcript file does not exist") {
		t.Errorf("doctor says %q; inspect:\n%s", sev, out)
	}
}

var uidRE = regexp.MustCompile(`"uid": -?\d+`)

// The --json shape of doctor and inspect on a 2026.9.6 install, golden
// (docs/json.md documents it; the JSONL era's goldens are
// testdata/doctor/golden/*.check.json and testdata/golden/inspect-state.json).
func TestJSONShapeGolden96(t *testing.T) {
	dir := filepath.Join(os.TempDir(), "oc-json-golden-96")
	_ = os.RemoveAll(dir)
	require.NoError(t, os.Rename(oracletest.Fixture96State(t, "example-state"), dir))
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	env := doctorEnv(t)
	env["PATH"] = t.TempDir() // no openclaw: the same document wherever the test runs
	_, out, stderr := runOC(t, false, env, "doctor", "--json", "--state-dir", dir)
	require.NotEmpty(t, out, stderr)
	golden(t, "doctor-sqlite.json", []byte(uidRE.ReplaceAllString(normalizeState(out, dir), `"uid": 0`)))
	_, out, stderr = runOC(t, false, env, "inspect", "--json", "--state-dir", dir)
	require.NotEmpty(t, out, stderr)
	golden(t, "inspect-state-sqlite.json", []byte(uidRE.ReplaceAllString(normalizeState(out, dir), `"uid": 0`)))
}

// `oc help json` documents the shape of both eras (docs/json.md in full).
func TestHelpJSONTopic(t *testing.T) {
	code, out, _ := runOC(t, false, nil, "help", "json")
	require.Equal(t, cli.ExitOK, code)
	for _, want := range []string{"sessions[]", "cron.jobs[]", "mid-upgrade", "docs/json.md", `select(.classification == "ELSEWHERE")`} {
		assert.Contains(t, out, want)
	}
	golden(t, "help-json.txt", []byte(out))
}

// A SQLite session's findings never advise `oc repair` (it does not write
// databases), in inspect as in doctor.
func TestInspectSQLiteAdvice(t *testing.T) {
	state := oracletest.Fixture96State(t, "example-state")
	for _, args := range [][]string{{"inspect", "--state-dir", state}, {"inspect", "--state-dir", state, "agent:main:slack:channel:c0aelhcgw4f"}, {"inspect", "--json", "--state-dir", state}} {
		_, out, _ := runOC(t, false, nil, args...)
		if strings.Contains(out, "oc repair") || strings.Contains(out, "Bedrock rejects") {
			t.Errorf("%v advises oc repair on a SQLite session:\n%s", args[1:], out)
		}
	}
}

// doctor lists at most 3 findings of one id in a check, then their count;
// --all-findings lists them all.
func TestDoctorGroupsFindingsOfOneID(t *testing.T) {
	state := midUpgradeState(t)
	dir := filepath.Join(state, "agents", "main", "sessions")
	b, err := os.ReadFile(filepath.Join(dir, "0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01.jsonl"))
	require.NoError(t, err)
	for _, id := range []string{"11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222", "33333333-3333-4333-8333-333333333333"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, id+".jsonl"), b, 0o600))
	}
	_, out, _ := runOC(t, false, doctorEnv(t), "doctor", "--state-dir", state)
	flat := strings.Join(strings.Fields(out), " ")
	assert.Equal(t, 3, strings.Count(flat, "! jsonl-awaiting-import:"), out)
	assert.Contains(t, flat, "… and 2 more jsonl-awaiting-import (--all-findings lists them")
	_, out, _ = runOC(t, false, doctorEnv(t), "doctor", "--state-dir", state, "--all-findings")
	assert.Equal(t, 5, strings.Count(strings.Join(strings.Fields(out), " "), "! jsonl-awaiting-import:"), out)
}
