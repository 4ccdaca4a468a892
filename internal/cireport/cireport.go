// Package cireport writes the findings of a check in the formats CI
// systems read: SARIF 2.1.0 (GitHub code scanning and other SARIF viewers
// show each finding on its line), JUnit XML (the test reports of GitLab,
// Jenkins and CircleCI: one testcase per file checked) and GitHub Actions
// workflow commands (annotations on the run).
//
// It knows nothing of oc's commands. A command adapts its own report to a
// Report (the rules that fired with their help text, the files it checked,
// one Result per finding) and calls Write with the format the user chose;
// the text and JSON formats stay the command's own. See docs/ci-gates.md
// and the adapter of `oc repair --check` (cmd/repair_format.go).
package cireport

import (
	"fmt"
	"io"
	"strings"
)

// Format is an output format of a check command (--format).
type Format string

const (
	Text   Format = "text"   // the command's human report
	JSON   Format = "json"   // the command's --json document
	SARIF  Format = "sarif"  // SARIF 2.1.0 (WriteSARIF)
	JUnit  Format = "junit"  // JUnit XML (WriteJUnit)
	GitHub Format = "github" // GitHub Actions workflow commands (WriteGitHub)
)

// Formats lists every format, in the order help shows them.
func Formats() []Format { return []Format{Text, JSON, SARIF, JUnit, GitHub} }

// ParseFormat accepts a format's name (any case).
func ParseFormat(s string) (Format, error) {
	f := Format(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range Formats() {
		if f == known {
			return f, nil
		}
	}
	names := make([]string, 0, len(Formats()))
	for _, known := range Formats() {
		names = append(names, string(known))
	}
	return "", fmt.Errorf("unknown format %q (want %s)", s, strings.Join(names, ", "))
}

// Machine reports whether the package writes f (the command writes text
// and JSON itself).
func (f Format) Machine() bool { return f == SARIF || f == JUnit || f == GitHub }

// Level is how serious a result is.
type Level string

const (
	LevelError   Level = "error"
	LevelWarning Level = "warning"
	LevelInfo    Level = "info"
)

// LevelNever is the --fail-on level no result reaches: the gate never
// fails on findings (it still fails when a check could not complete).
const LevelNever Level = "never"

// FailOnLevels are the values of --fail-on, most to least strict.
func FailOnLevels() []Level { return []Level{LevelError, LevelWarning, LevelInfo, LevelNever} }

// ParseFailOn reads a --fail-on value (any case).
func ParseFailOn(s string) (Level, error) {
	l := Level(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range FailOnLevels() {
		if l == known {
			return l, nil
		}
	}
	return "", fmt.Errorf("unknown level %q (want error, warning, info or never)", s)
}

// Fails reports whether a finding of severity sev ("error", "warning",
// "info") fails a gate at level failOn.
func Fails(sev string, failOn Level) bool {
	if failOn == LevelNever || failOn == "" {
		return false
	}
	return Level(sev).AtLeast(failOn)
}

// rank orders levels: info < warning < error < never (an unknown level
// counts as info).
func (l Level) rank() int {
	switch l {
	case LevelNever:
		return 3
	case LevelError:
		return 2
	case LevelWarning:
		return 1
	}
	return 0
}

// AtLeast reports whether l is as serious as min or more.
func (l Level) AtLeast(min Level) bool { return l.rank() >= min.rank() }

// Rule describes one kind of finding.
type Rule struct {
	ID    string
	Short string // one line: what the finding is
	Help  string // what it means and what to do (may be several sentences)
}

// Result is one finding: which rule, how serious, what, and where. Path is
// the file as the command named it (made relative to Report.BaseDir by the
// writers); Line is 1-based, 0 when the finding is about the whole file.
// Text that came from a file must be in Message only as the command would
// print it (quoted ids); the writers escape what their format needs.
type Result struct {
	RuleID  string
	Level   Level
	Message string
	Path    string
	Line    int64
}

// Outcome is how the check of one file ended, beyond its results.
type Outcome string

const (
	// Checked: the file was read; it fails when it has a result at the
	// fail level or a Failure.
	Checked Outcome = ""
	// Errored: the file could not be checked (unreadable, malformed beyond
	// what the check reads); JUnit <error>.
	Errored Outcome = "error"
	// Skipped: the file was not checked (a live lock: busy; not a
	// transcript); JUnit <skipped>.
	Skipped Outcome = "skipped"
)

// File is one file the command checked: a JUnit testcase.
type File struct {
	Path    string
	Outcome Outcome
	// Failure, when set, fails the file's testcase whatever its results
	// (a file that needs repair); Reason says why an Errored or Skipped
	// file was not checked.
	Failure string
	Reason  string
}

// Report is what a command hands the writers.
type Report struct {
	// Tool is the driver name ("oc"); Version its version.
	Tool, Version string
	// Command names the check, as a user would type it ("oc repair
	// --check"): the JUnit suite name and the SARIF automation id.
	Command string
	// BaseDir is the folder result paths are made relative to (the working
	// directory); a path outside it stays absolute. "" leaves paths as given.
	BaseDir string
	// FailLevel is the level from which a result fails its file's testcase
	// (the command's --fail-on); "" is LevelError.
	FailLevel Level
	Rules     []Rule
	Files     []File
	Results   []Result
	// Summary is one line of totals (the GitHub writer prints it last, as
	// a plain log line).
	Summary string
}

func (r *Report) failLevel() Level {
	if r.FailLevel == "" {
		return LevelError
	}
	return r.FailLevel
}

// Write writes r in format f (SARIF, JUnit or GitHub).
func Write(w io.Writer, f Format, r *Report) error {
	switch f {
	case SARIF:
		return WriteSARIF(w, r)
	case JUnit:
		return WriteJUnit(w, r)
	case GitHub:
		return WriteGitHub(w, r)
	}
	return fmt.Errorf("cireport: %q is written by the command itself", f)
}
