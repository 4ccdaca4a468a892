package cireport

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sample is a report over three files in base: one with two findings (an
// error and a warning on lines 4 and 9), one clean, one that could not be
// read, one busy; plus a file outside base.
func sample(base string) *Report {
	return &Report{
		Tool: "oc", Version: "test", Command: "oc repair --check", BaseDir: base,
		Rules: []Rule{
			{ID: "parent-cycle", Short: "parentId links form a cycle", Help: "OpenClaw 2026.5.6 hangs; oc repair cuts the link."},
			{ID: "unused-rule", Short: "never fires"},
			{ID: "malformed-line", Short: "a line that does not parse", Help: "dropped; kept in the quarantine file"},
		},
		Files: []File{
			{Path: filepath.Join(base, "agents", "main", "sessions", "a b.jsonl"), Failure: "needs repair"},
			{Path: filepath.Join(base, "agents", "main", "sessions", "clean.jsonl")},
			{Path: filepath.Join(base, "agents", "main", "sessions", "unreadable.jsonl"), Outcome: Errored, Reason: "permission denied"},
			{Path: filepath.Join(base, "agents", "main", "sessions", "busy.jsonl"), Outcome: Skipped, Reason: "busy: locked by pid 42"},
			{Path: "/elsewhere/x:y.jsonl"},
		},
		Results: []Result{
			{RuleID: "parent-cycle", Level: LevelError, Message: "line 4 closes a cycle", Path: filepath.Join(base, "agents", "main", "sessions", "a b.jsonl"), Line: 4},
			{RuleID: "malformed-line", Level: LevelWarning, Message: "100% cut\r\noff", Path: filepath.Join(base, "agents", "main", "sessions", "a b.jsonl"), Line: 9},
			{RuleID: "no-rule-entry", Level: LevelInfo, Message: "a note", Path: "/elsewhere/x:y.jsonl"},
		},
		Summary: "5 files checked: 1 needs repair",
	}
}

// The SARIF log validates against the SARIF 2.1.0 schema (OASIS, vendored
// in testdata) and says what GitHub code scanning reads: the driver, one
// rule per rule id used (with its help text), relative URIs and lines.
func TestSARIFValidatesAndLocates(t *testing.T) {
	base := t.TempDir()
	var b bytes.Buffer
	if err := WriteSARIF(&b, sample(base)); err != nil {
		t.Fatal(err)
	}
	validateSARIF(t, b.Bytes())
	var doc struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Name  string
					Rules []struct {
						ID   string
						Help struct{ Text string }
					}
				}
			}
			Invocations []struct{ ExecutionSuccessful bool }
			Results     []struct {
				RuleID    string
				RuleIndex int
				Level     string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           *struct{ StartLine int64 }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	run := doc.Runs[0]
	if run.Tool.Driver.Name != "oc" {
		t.Errorf("driver %q", run.Tool.Driver.Name)
	}
	var ids []string
	for _, r := range run.Tool.Driver.Rules {
		ids = append(ids, r.ID)
	}
	if got := strings.Join(ids, ","); got != "parent-cycle,malformed-line,no-rule-entry" {
		t.Errorf("rules %s: want the three used, in the registry's order", got)
	}
	if run.Tool.Driver.Rules[0].Help.Text == "" {
		t.Error("a rule without its help text")
	}
	if run.Invocations[0].ExecutionSuccessful {
		t.Error("a file could not be read: executionSuccessful must be false")
	}
	want := []struct {
		uri   string
		line  int64
		level string
	}{{"agents/main/sessions/a%20b.jsonl", 4, "error"}, {"agents/main/sessions/a%20b.jsonl", 9, "warning"}, {"file:///elsewhere/x:y.jsonl", 0, "note"}}
	for i, w := range want {
		res := run.Results[i]
		loc := res.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URI != w.uri || res.Level != w.level {
			t.Errorf("result %d: %s %s, want %s %s", i, loc.ArtifactLocation.URI, res.Level, w.uri, w.level)
		}
		if (loc.Region == nil) != (w.line == 0) || loc.Region != nil && loc.Region.StartLine != w.line {
			t.Errorf("result %d: region %+v, want line %d", i, loc.Region, w.line)
		}
		if run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %d: ruleIndex %d names %s", i, res.RuleIndex, run.Tool.Driver.Rules[res.RuleIndex].ID)
		}
	}
}

// validateSARIF fails t when doc is not a valid SARIF 2.1.0 log.
func validateSARIF(t *testing.T, doc []byte) {
	t.Helper()
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(filepath.Join("testdata", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("not valid SARIF 2.1.0: %v", err)
	}
}

// The validation can fail: a result without a message, a region with line
// 0 and an unknown level are rejected.
func TestSARIFSchemaRejects(t *testing.T) {
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(filepath.Join("testdata", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"oc"}},"results":[{"ruleId":"x"}]}]}`,
		`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"oc"}},"results":[{"message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a"},"region":{"startLine":0}}}]}]}]}`,
		`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"oc"}},"results":[{"message":{"text":"m"},"level":"fatal"}]}]}`,
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		if sch.Validate(inst) == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}
}

// The JUnit report parses with encoding/xml: one testcase a file, a
// failure for the file with a finding at the fail level, an error for the
// unreadable one, skipped for the busy one; the counts add up. With
// --fail-on warning the warning alone fails its file.
func TestJUnitCounts(t *testing.T) {
	base := t.TempDir()
	rep := sample(base)
	rep.Files[0].Failure = "" // failed by its error-level result alone
	var b bytes.Buffer
	if err := WriteJUnit(&b, rep); err != nil {
		t.Fatal(err)
	}
	suites := parseJUnit(t, b.Bytes())
	if suites.Tests != 5 || suites.Failures != 1 || suites.Errors != 1 || suites.Skipped != 1 {
		t.Fatalf("counts tests=%d failures=%d errors=%d skipped=%d, want 5 1 1 1", suites.Tests, suites.Failures, suites.Errors, suites.Skipped)
	}
	s := suites.Suites[0]
	if len(s.Cases) != 5 || s.Cases[0].Name != "agents/main/sessions/a b.jsonl" || s.Cases[0].Failure == nil {
		t.Fatalf("cases %+v", s.Cases)
	}
	if f := s.Cases[0].Failure; f.Type != "parent-cycle" || !strings.Contains(f.Text, "line 4: error parent-cycle") || !strings.Contains(f.Text, "line 9: warning malformed-line") {
		t.Errorf("failure %+v", f)
	}
	if s.Cases[2].Error == nil || s.Cases[3].Skipped == nil || !strings.Contains(s.Cases[3].Skipped.Message, "busy") {
		t.Errorf("error/skipped cases %+v %+v", s.Cases[2], s.Cases[3])
	}
	if s.Cases[4].Failure != nil || s.Cases[4].Name != "/elsewhere/x:y.jsonl" {
		t.Errorf("an info finding fails its file at the error level: %+v", s.Cases[4])
	}

	// only a warning: passes at the error level, fails at the warning level
	rep.Results = rep.Results[1:2]
	for _, c := range []struct {
		level    Level
		failures int
	}{{LevelError, 0}, {LevelWarning, 1}} {
		rep.FailLevel = c.level
		b.Reset()
		if err := WriteJUnit(&b, rep); err != nil {
			t.Fatal(err)
		}
		if got := parseJUnit(t, b.Bytes()).Failures; got != c.failures {
			t.Errorf("fail level %s: %d failures, want %d", c.level, got, c.failures)
		}
	}
}

type parsedSuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Tests int `xml:"tests,attr"`
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error   *struct{} `xml:"error"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func parseJUnit(t *testing.T, doc []byte) parsedSuites {
	t.Helper()
	var s parsedSuites
	if err := xml.Unmarshal(doc, &s); err != nil {
		t.Fatalf("JUnit report does not parse: %v\n%s", err, doc)
	}
	return s
}

// Workflow commands: one a result, escaped as @actions/core escapes them.
func TestGitHubCommandsEscaped(t *testing.T) {
	base := t.TempDir()
	rep := sample(base)
	rep.Results = append(rep.Results, Result{RuleID: "r,1:x", Level: LevelError, Message: "esc \x1b[31m red", Path: filepath.Join(base, "a,b:c.jsonl"), Line: 2})
	var b bytes.Buffer
	if err := WriteGitHub(&b, rep); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"::error file=agents/main/sessions/a b.jsonl,line=4,title=parent-cycle::line 4 closes a cycle",
		"::warning file=agents/main/sessions/a b.jsonl,line=9,title=malformed-line::100%25 cut%0D%0Aoff",
		"::notice file=/elsewhere/x%3Ay.jsonl,title=no-rule-entry::a note",
		`::error file=a%2Cb%3Ac.jsonl,line=2,title=r%2C1%3Ax::esc \x1b[31m red`,
		"5 files checked: 1 needs repair",
		"",
	}, "\n")
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range Formats() {
		got, err := ParseFormat(strings.ToUpper(string(f)))
		if err != nil || got != f {
			t.Errorf("%s: %v %v", f, got, err)
		}
	}
	if _, err := ParseFormat("xml"); err == nil || !strings.Contains(err.Error(), "sarif") {
		t.Errorf("xml: %v", err)
	}
	if Text.Machine() || JSON.Machine() || !SARIF.Machine() {
		t.Error("Machine")
	}
	if err := Write(&bytes.Buffer{}, Text, &Report{}); err == nil {
		t.Error("Write(text) must be the command's")
	}
}
