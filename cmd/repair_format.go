package cmd

import (
	"fmt"
	"strings"

	"github.com/openclaw-tools/oc/internal/cireport"
	"github.com/openclaw-tools/oc/pkg/repair"
)

// maxLinesPerRule is how many lines of one rule in one file get a result
// of their own in the CI formats; the count of all is in their message.
const maxLinesPerRule = 10

// Rule ids of the CI formats for what is not a repair rule.
const (
	ciRuleUnrepairable = "unrepairable"
	ciRuleCheckFailed  = "check-failed"
	ciRuleBusy         = "busy"
)

// repairCIReport adapts a repair run to the CI formats (the example
// adapter of docs/ci-gates.md): one testcase a file; in check mode (--check,
// --dry-run) every line a rule would change is an error result (the gate
// fails on it) and a file that needs repair fails its testcase; after a
// repair the lines changed are info results and only what repair could not
// fix fails. A file that could not be read is a JUnit error and an error
// result; a busy file (a live lock) is skipped with a warning result.
func repairCIReport(doc *repair.Report, opts *repairOptions, set repair.RuleSet, checking bool) *cireport.Report {
	r := &cireport.Report{Command: "oc repair", Summary: repairTotalsLine(doc, set, checking)}
	switch {
	case opts.Check:
		r.Command += " --check"
	case opts.DryRun:
		r.Command += " --dry-run"
	}
	for _, rl := range repair.Rules() {
		r.Rules = append(r.Rules, cireport.Rule{ID: rl.ID, Short: rl.ID + " (" + rl.Origin + ")", Help: rl.Reason})
	}
	r.Rules = append(r.Rules,
		cireport.Rule{ID: ciRuleUnrepairable, Short: "damage oc repair cannot fix", Help: "the file is damaged in a way no rule fixes (see the message); oc repair exits 3 on it"},
		cireport.Rule{ID: ciRuleCheckFailed, Short: "the file could not be checked", Help: "oc could not read or plan the file (see the message); the run exits 3"},
		cireport.Rule{ID: ciRuleBusy, Short: "a live process holds the file's lock", Help: "an OpenClaw gateway is writing the file: it was not read (--check) or not repaired; retry later (exit 11)"})
	level := cireport.LevelInfo
	if checking {
		level = cireport.LevelError
	}
	for _, f := range doc.Files {
		file := cireport.File{Path: f.Path}
		switch {
		case f.Busy:
			file.Outcome, file.Reason = cireport.Skipped, "busy: "+f.Error
			r.Results = append(r.Results, cireport.Result{RuleID: ciRuleBusy, Level: cireport.LevelWarning, Message: f.Error + " (retry later)", Path: f.Path})
		case f.Error != "":
			file.Outcome, file.Reason = cireport.Errored, f.Error
			r.Results = append(r.Results, cireport.Result{RuleID: ciRuleCheckFailed, Level: cireport.LevelError, Message: f.Error, Path: f.Path})
		case f.Plan == nil || (!f.Plan.NeedsAttention() && f.Skipped != ""):
			if f.Skipped != "" {
				file.Outcome, file.Reason = cireport.Skipped, f.Skipped
			}
		default:
			if f.Unrepairable != "" {
				file.Failure = "unrepairable: " + f.Unrepairable
				r.Results = append(r.Results, cireport.Result{RuleID: ciRuleUnrepairable, Level: cireport.LevelError, Message: f.Unrepairable, Path: f.Path})
			} else if checking && f.Plan.NeedsAttention() {
				file.Failure = "needs repair: " + rulesText(f.Rules)
			}
			r.Results = append(r.Results, changeResults(f, level)...)
		}
		r.Files = append(r.Files, file)
	}
	return r
}

// changeResults are a file's results: for each rule, its first
// maxLinesPerRule lines, each with the change's detail and the rule's
// count in the file.
func changeResults(f *repair.FileReport, level cireport.Level) []cireport.Result {
	var out []cireport.Result
	shown := map[string]int{}
	for _, c := range f.Plan.Changes {
		for _, rule := range c.Rules {
			if shown[rule] == maxLinesPerRule {
				continue
			}
			shown[rule]++
			msg := c.Detail
			if msg == "" {
				msg = rule
			}
			if n := len(f.Lines[rule]); n > maxLinesPerRule {
				msg += fmt.Sprintf(" (%s: %d lines in this file, the first %d listed)", rule, n, maxLinesPerRule)
			}
			out = append(out, cireport.Result{RuleID: rule, Level: level, Message: msg, Path: f.Path, Line: c.Line})
		}
	}
	return out
}

// rulesText is "rule ×n, rule ×m" in registry order.
func rulesText(counts map[string]int) string {
	ids := make([]string, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	repair.SortRuleIDs(ids)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("%s ×%d", id, counts[id])
	}
	return strings.Join(parts, ", ")
}
