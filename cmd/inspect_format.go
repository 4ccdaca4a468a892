package cmd

import (
	"fmt"

	"github.com/openclaw-tools/oc/internal/cireport"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// inspectCI collects inspect's findings for the CI formats and --fail-on:
// one testcase per transcript or agent database, one result per finding
// (a SQLite session's findings name the session in their message), one
// rule per finding id. It is the adapter of `oc inspect` to
// internal/cireport, as repairCIReport is of `oc repair --check`.
type inspectCI struct {
	r    *cireport.Report
	seen map[string]bool
	sevs map[string]int
}

func newInspectCI(failOn cireport.Level) *inspectCI {
	return &inspectCI{r: &cireport.Report{Command: "oc inspect", FailLevel: failOn}, seen: map[string]bool{}, sevs: map[string]int{}}
}

func (c *inspectCI) file(path string, outcome cireport.Outcome, reason string) {
	if c.seen["file:"+path] {
		return
	}
	c.seen["file:"+path] = true
	c.r.Files = append(c.r.Files, cireport.File{Path: path, Outcome: outcome, Reason: reason})
}

func (c *inspectCI) add(path, session string, f transcript.Finding) {
	c.file(path, "", "")
	if !c.seen["rule:"+f.Rule] {
		c.seen["rule:"+f.Rule] = true
		c.r.Rules = append(c.r.Rules, cireport.Rule{ID: f.Rule, Short: f.Rule, Help: "see docs/inspect.md (" + f.Rule + "): " + f.Message})
	}
	msg := f.Message
	if session != "" {
		// a SQLite session: its lines are events of a database, not lines
		// a viewer can show
		msg = session + ": " + msg
		f.Line = 0
	}
	c.sevs[f.Severity]++
	c.r.Results = append(c.r.Results, cireport.Result{RuleID: f.Rule, Level: cireport.Level(f.Severity), Message: msg, Path: path, Line: f.Line})
}

func (c *inspectCI) errored(path, why string) {
	c.file(path, cireport.Errored, why)
	if !c.seen["rule:unreadable"] {
		c.seen["rule:unreadable"] = true
		c.r.Rules = append(c.r.Rules, cireport.Rule{ID: "unreadable", Short: "the file could not be read", Help: "oc could not read the file (see the message); the run exits 3"})
	}
	c.sevs[transcript.SevError]++
	c.r.Results = append(c.r.Results, cireport.Result{RuleID: "unreadable", Level: cireport.LevelError, Message: why, Path: path})
}

// fails reports whether a finding reached the --fail-on level.
func (c *inspectCI) fails() bool {
	for _, res := range c.r.Results {
		if res.RuleID != "unreadable" && cireport.Fails(string(res.Level), c.r.FailLevel) {
			return true
		}
	}
	return false
}

func (c *inspectCI) report() *cireport.Report {
	c.r.Summary = fmt.Sprintf("oc inspect: %s, %s, %s, %d info", plural(len(c.r.Files), "file"), plural(c.sevs[transcript.SevError], "error"), plural(c.sevs[transcript.SevWarning], "warning"), c.sevs[transcript.SevInfo])
	return c.r
}

// inspectCIFromJSONL is the report of JSONL transcripts.
func inspectCIFromJSONL(rep *transcript.Report, failOn cireport.Level) *inspectCI {
	c := newInspectCI(failOn)
	for _, s := range rep.Transcripts {
		c.file(s.Path, "", "")
		for _, f := range s.Findings {
			c.add(s.Path, "", f)
		}
	}
	for _, e := range rep.Errors {
		c.errored(e.Path, e.Error)
	}
	return c
}

// inspectCIFromSQLite is the report of a SQLite-era state dir.
func inspectCIFromSQLite(rep *store.SQLiteReport, failOn cireport.Level) *inspectCI {
	c := newInspectCI(failOn)
	for _, d := range rep.Databases {
		c.file(d.Path, "", "")
	}
	for _, s := range rep.Sessions {
		if s.Summary == nil {
			continue
		}
		for _, f := range s.Findings {
			c.add(s.Path, s.Key, f)
		}
	}
	for _, f := range rep.Findings {
		c.add(f.Path, "", f.Finding)
	}
	for _, e := range rep.Errors {
		c.errored(e.Path, e.Error)
	}
	return c
}

// inspectCIFromSession is the report of one SQLite session.
func inspectCIFromSession(rep *store.SessionReport, failOn cireport.Level) *inspectCI {
	c := newInspectCI(failOn)
	c.file(rep.Path, "", "")
	for _, f := range rep.Findings {
		c.add(rep.Path, rep.Key, f)
	}
	return c
}
