package cireport

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnit XML as GitLab, Jenkins and CircleCI read it (the de facto schema of
// Ant's and Maven Surefire's reports): <testsuites> holding one
// <testsuite>, one <testcase> a file.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes r as JUnit XML: one testcase per file checked (its name
// the file relative to r.BaseDir), with a <failure> when the file has a
// result at r.FailLevel or above or a Failure (the message says why; the
// text lists its results, one a line), an <error> when it could not be
// checked and <skipped> when it was not (busy). The counts on the suite are
// those of the testcases.
func WriteJUnit(w io.Writer, r *Report) error {
	byFile := map[string][]Result{}
	for _, res := range r.Results {
		byFile[res.Path] = append(byFile[res.Path], res)
	}
	suite := junitSuite{Name: r.Command}
	if suite.Name == "" {
		suite.Name = r.Tool
	}
	for _, f := range r.Files {
		name, _ := displayPath(r.BaseDir, f.Path)
		tc := junitCase{ClassName: suite.Name, Name: name, File: name}
		switch f.Outcome {
		case Errored:
			tc.Error = &junitProblem{Message: f.Reason, Type: "error"}
			suite.Errors++
		case Skipped:
			tc.Skipped = &junitProblem{Message: f.Reason}
			suite.Skipped++
		default:
			if p := failure(f, byFile[f.Path], r.failLevel()); p != nil {
				tc.Failure = p
				suite.Failures++
			}
		}
		suite.Cases = append(suite.Cases, tc)
		suite.Tests++
	}
	doc := junitSuites{Name: suite.Name, Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors, Skipped: suite.Skipped, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// failure is the <failure> of a checked file, or nil when it passes: the
// file's Failure or its first result at the fail level names it; the text
// lists every result of the file.
func failure(f File, results []Result, fail Level) *junitProblem {
	var first *Result
	for i := range results {
		if results[i].Level.AtLeast(fail) {
			first = &results[i]
			break
		}
	}
	if first == nil && f.Failure == "" {
		return nil
	}
	p := &junitProblem{Message: f.Failure}
	if first != nil {
		p.Type = first.RuleID
		if p.Message == "" {
			p.Message = first.RuleID + ": " + first.Message
		}
	}
	var b strings.Builder
	for _, res := range results {
		if res.Line > 0 {
			fmt.Fprintf(&b, "line %d: ", res.Line)
		}
		fmt.Fprintf(&b, "%s %s: %s\n", res.Level, res.RuleID, res.Message)
	}
	p.Text = b.String()
	return p
}
