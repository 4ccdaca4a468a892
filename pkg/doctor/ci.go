package doctor

import (
	"fmt"

	"github.com/openclaw-tools/oc/internal/cireport"
)

// Fails reports whether the findings this run left (not fixed) fail a gate
// at level failOn (--fail-on; "" is warning, doctor's default).
func (r *Report) Fails(failOn cireport.Level) bool {
	if failOn == "" {
		failOn = cireport.LevelWarning
	}
	for _, f := range r.Findings {
		if !f.Fixed && cireport.Fails(f.Severity, failOn) {
			return true
		}
	}
	return false
}

// CIReport adapts the report to the CI formats (SARIF, JUnit, GitHub): one
// rule per finding id with its fix as help, one result per finding not
// fixed, and one testcase for the install and each file or database a
// finding is about. failOn is the --fail-on level.
func (r *Report) CIReport(failOn cireport.Level) *cireport.Report {
	if failOn == "" {
		failOn = cireport.LevelWarning
	}
	c := &cireport.Report{Command: "oc doctor", FailLevel: failOn}
	seenRule := map[string]bool{}
	seenFile := map[string]bool{r.StateDir: true}
	c.Files = append(c.Files, cireport.File{Path: r.StateDir})
	var errs, warns, infos int
	for _, f := range r.Findings {
		if f.Fixed {
			continue
		}
		switch f.Severity {
		case SevError:
			errs++
		case SevWarning:
			warns++
		default:
			infos++
		}
		if !seenRule[f.ID] {
			seenRule[f.ID] = true
			help := f.Fix
			if help == "" {
				help = f.Message
			}
			c.Rules = append(c.Rules, cireport.Rule{ID: f.ID, Short: f.ID + " (" + f.Section + ")", Help: help})
		}
		path := f.Path
		if path == "" {
			path = r.StateDir
		}
		if !seenFile[path] {
			seenFile[path] = true
			c.Files = append(c.Files, cireport.File{Path: path})
		}
		msg := f.Message
		if f.Fix != "" && f.Severity != SevInfo {
			msg += " (fix: " + f.Fix + ")"
		}
		line := f.Line
		if f.Store == StoreSQLite {
			line = 0 // an event of a database, not a line a viewer can show
		}
		c.Results = append(c.Results, cireport.Result{RuleID: f.ID, Level: cireport.Level(f.Severity), Message: msg, Path: path, Line: line})
	}
	c.Summary = fmt.Sprintf("oc doctor (era %s): %d %s, %d %s, %d %s", r.Era, errs, plural(errs, "error", "errors"), warns, plural(warns, "warning", "warnings"), infos, plural(infos, "note", "notes"))
	return c
}
