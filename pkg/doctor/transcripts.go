package doctor

import (
	"fmt"
	"sort"
	"strings"

	"github.com/openclaw-tools/oc/pkg/repair"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// The transcript checks reuse pkg/repair (what `oc repair --check` would
// change) and pkg/transcript (what `oc inspect` reports as ownership
// problems). They only report; `oc repair` and `oc inspect` act and explain.

// ownershipRules are the transcript-ownership findings of pkg/transcript.
var ownershipRules = map[string]bool{
	"duplicate-message":        true,
	"delivery-mirror-copy":     true,
	"system-awareness-copy":    true,
	"adjacent-assistant-turns": true,
}

func liveTranscripts(stateDir string) []transcript.File {
	files, err := transcript.Discover([]string{stateDir}, false)
	if err != nil {
		return nil // no transcripts (Discover calls a folder without any an error)
	}
	return files
}

// RepairCheck reports each live transcript that `oc repair --check` (the
// default rule set) would change or flag.
func RepairCheck(stateDir string) ([]Finding, error) {
	var out []Finding
	for _, f := range liveTranscripts(stateDir) {
		p, err := repair.PlanFile(f.Path, repair.Options{})
		if err != nil {
			out = append(out, Finding{ID: "transcript-unreadable", Severity: SevError, Path: f.Path, Section: SectionTranscripts,
				Message: err.Error(), Fix: "oc inspect " + ShellQuote(f.Path)})
			continue
		}
		if !p.NeedsAttention() {
			continue
		}
		msg := "repair would change it: " + countsText(p.Counts)
		if p.Skipped != "" {
			msg = "damaged (" + p.Skipped + "): " + countsText(p.Counts)
		}
		out = append(out, Finding{ID: "transcript-needs-repair", Severity: SevWarning, Path: f.Path, Section: SectionTranscripts,
			Message: msg, Fix: "oc repair " + ShellQuote(f.Path)})
	}
	return out, nil
}

// OwnershipCheck reports transcripts with ownership problems (a message shown
// twice, delivery-mirror or System: copies, adjacent assistant turns).
func OwnershipCheck(stateDir string) ([]Finding, error) {
	var out []Finding
	for _, f := range liveTranscripts(stateDir) {
		s, err := transcript.AnalyzeFile(f, nil)
		if err != nil {
			continue // RepairCheck reports unreadable files
		}
		counts := map[string]int{}
		sev := SevInfo
		for _, fd := range s.Findings {
			if !ownershipRules[fd.Rule] {
				continue
			}
			counts[fd.Rule]++
			if fd.Severity == transcript.SevWarning || fd.Severity == transcript.SevError {
				sev = SevWarning
			}
		}
		if len(counts) == 0 {
			continue
		}
		out = append(out, Finding{ID: "transcript-ownership", Severity: sev, Path: f.Path, Section: SectionTranscripts,
			Message: "ownership problems: " + countsText(counts), Fix: "oc inspect " + ShellQuote(f.Path)})
	}
	return out, nil
}

func countsText(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, m[k])
	}
	if len(parts) == 0 {
		return "no rule counts"
	}
	return strings.Join(parts, ", ")
}

// ShellQuote quotes s for a POSIX shell when it needs it, for the commands
// doctor suggests.
func ShellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
