package transcript

import (
	"fmt"
	"sort"
	"strings"
)

// severityRank orders severities, most serious first.
func severityRank(sev string) int {
	switch sev {
	case SevError:
		return 0
	case SevWarning:
		return 1
	}
	return 2
}

// SortBySeverity returns the findings errors first, then warnings, then
// info, each in its original order.
func SortBySeverity(fs []Finding) []Finding {
	out := append([]Finding(nil), fs...)
	sort.SliceStable(out, func(i, j int) bool { return severityRank(out[i].Severity) < severityRank(out[j].Severity) })
	return out
}

// FindingGroup is every finding of one rule and severity.
type FindingGroup struct {
	Rule, Severity string
	Count          int
	// First is the first finding; Lines the first lines (at most the
	// number asked), nil when no finding has a line.
	First Finding
	Lines []int64
	more  bool
}

// Where is "lines 12, 40, …" (or "line 12"; "" without lines).
func (g FindingGroup) Where() string {
	if len(g.Lines) == 0 {
		return "no line"
	}
	parts := make([]string, len(g.Lines))
	for i, l := range g.Lines {
		parts[i] = fmt.Sprint(l)
	}
	text := strings.Join(parts, ", ")
	if g.more {
		text += ", …"
	}
	if len(g.Lines) == 1 && !g.more {
		return "line " + text
	}
	return "lines " + text
}

// GroupFindings groups findings by rule and severity, errors first, then
// warnings, then info, each in the order its first finding came; each
// group keeps its first lines lines.
func GroupFindings(fs []Finding, lines int) []FindingGroup {
	var out []FindingGroup
	at := map[string]int{}
	for _, f := range SortBySeverity(fs) {
		k := f.Severity + "\x00" + f.Rule
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, FindingGroup{Rule: f.Rule, Severity: f.Severity, First: f})
		}
		g := &out[i]
		g.Count++
		if f.Line > 0 {
			if len(g.Lines) < lines {
				g.Lines = append(g.Lines, f.Line)
			} else {
				g.more = true
			}
		}
	}
	return out
}
