package repair

import (
	"fmt"
	"strings"

	"github.com/openclaw-tools/oc/pkg/transcript"
)

// FindingRule is the id of the finding that says what repair would change.
const FindingRule = "repair"

// Finding says, as one `oc inspect` finding, what applying the plan would
// change: every rule that fires with its count and first lines. It reports
// false when the plan changes nothing.
func (p *Plan) Finding() (transcript.Finding, bool) {
	if !p.NeedsAttention() {
		return transcript.Finding{}, false
	}
	ids := make([]string, 0, len(p.Counts))
	for id := range p.Counts {
		ids = append(ids, id)
	}
	SortRuleIDs(ids)
	var parts []string
	var first int64
	for _, id := range ids {
		part := fmt.Sprintf("%s ×%d", id, p.Counts[id])
		if lines := p.LineNums[id]; len(lines) > 0 {
			if first == 0 || lines[0] < first {
				first = lines[0]
			}
			part += " (line " + firstLines(lines, 3) + ")"
		}
		parts = append(parts, part)
	}
	f := transcript.Finding{Rule: FindingRule, Line: first, Severity: transcript.SevWarning}
	switch {
	case p.Skipped == SkipInvalidHeader:
		f.Severity = transcript.SevError
		f.Message = "OpenClaw's repair skips this file (invalid session header); `oc repair` would: " + strings.Join(parts, ", ")
	case len(parts) == 0:
		f.Severity = transcript.SevError
		f.Message = "OpenClaw 2026.8+'s import would archive this transcript without importing it, and `oc repair` cannot change that: " + p.Unrepairable()
	default:
		f.Message = "`oc repair` would change: " + strings.Join(parts, ", ")
		if len(BreakingRules(p.Counts)) > 0 {
			f.Severity = transcript.SevError // OpenClaw hangs or refuses the upgrade
		}
		if p.recovery != "" {
			f.Severity = transcript.SevError
			f.Message += "; still, OpenClaw 2026.8+'s import would archive it without importing it: " + p.Unrepairable()
		}
	}
	return f, true
}

// firstLines lists up to max line numbers, then "…".
func firstLines(lines []int64, max int) string {
	var b strings.Builder
	for i, l := range lines {
		if i == max {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", l)
	}
	return b.String()
}
