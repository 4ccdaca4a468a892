package doctor

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/openclaw-tools/oc/internal/parallel"
	"github.com/openclaw-tools/oc/internal/shellquote"
	"github.com/openclaw-tools/oc/pkg/repair"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// The transcript checks reuse pkg/repair (what `oc repair --check` would
// change) and pkg/transcript (what `oc inspect` reports as ownership
// problems). They only report; `oc repair` and `oc inspect` act and explain.

func liveTranscripts(stateDir string) []transcript.File {
	files, err := transcript.Discover([]string{stateDir}, false)
	if err != nil {
		return nil // no transcripts (Discover calls a folder without any an error)
	}
	return files
}

// specialFile says what a transcript path is when it is not a regular file
// ("a FIFO"…), "" for a regular file. Such a file is never opened: reading a
// FIFO blocks until someone writes to it.
func specialFile(path string) string {
	st, err := os.Stat(path)
	if err != nil || st.Mode().IsRegular() {
		return ""
	}
	return fileKind(st.Mode())
}

// RepairCheck reports each live transcript that `oc repair --check` (the
// default rule set) would change or flag.
func RepairCheck(stateDir string) ([]Finding, error) {
	files := liveTranscripts(stateDir)
	per := make([]*Finding, len(files))
	parallel.Each(len(files), 0, func(i int) {
		f := files[i]
		if kind := specialFile(f.Path); kind != "" {
			per[i] = &Finding{ID: "transcript-not-a-file", Severity: SevWarning, Path: f.Path, Section: SectionTranscripts,
				Message: "named like a transcript but is " + kind + ": not opened", Fix: "remove it by hand if nothing uses it"}
			return
		}
		p, err := repair.PlanFile(f.Path, repair.Options{})
		if err != nil {
			per[i] = &Finding{ID: "transcript-unreadable", Severity: SevError, Path: f.Path, Section: SectionTranscripts,
				Message: err.Error(), Fix: "oc inspect " + shellquote.Quote(f.Path)}
			return
		}
		if !p.NeedsAttention() {
			return
		}
		msg := "repair would change it: " + countsText(p.Counts)
		if p.Skipped != "" {
			msg = "damaged (" + p.Skipped + "): " + countsText(p.Counts)
		}
		sev := SevWarning
		if b := repair.BreakingRules(p.Counts); len(b) > 0 {
			// a session that hangs, an upgrade refused for every session
			sev = SevError
			msg += "; " + strings.Join(b, ", ") + " breaks OpenClaw (a session that hangs, or the upgrade to 2026.8+ refused for the whole state dir)"
		}
		per[i] = &Finding{ID: "transcript-needs-repair", Severity: sev, Path: f.Path, Section: SectionTranscripts,
			Message: msg, Fix: "oc repair " + shellquote.Quote(f.Path)}
	})
	return compact(per), nil
}

// compact keeps the findings that were made, in order.
func compact(per []*Finding) []Finding {
	var out []Finding
	for _, f := range per {
		if f != nil {
			out = append(out, *f)
		}
	}
	return out
}

// OwnershipCheck reports transcripts with ownership problems (a message shown
// twice, delivery-mirror or System: copies, adjacent assistant turns).
func OwnershipCheck(stateDir string) ([]Finding, error) {
	files := liveTranscripts(stateDir)
	per := make([]*Finding, len(files))
	parallel.Each(len(files), 0, func(i int) {
		f := files[i]
		if specialFile(f.Path) != "" {
			return // RepairCheck reports it
		}
		s, err := transcript.AnalyzeFile(f, nil)
		if err != nil {
			return // RepairCheck reports unreadable files
		}
		counts := map[string]int{}
		sev := SevInfo
		for _, fd := range s.Findings {
			if !transcript.IsOwnershipRule(fd.Rule) {
				continue
			}
			counts[fd.Rule]++
			if fd.Severity == transcript.SevWarning || fd.Severity == transcript.SevError {
				sev = SevWarning
			}
		}
		if len(counts) == 0 {
			return
		}
		per[i] = &Finding{ID: "transcript-ownership", Severity: sev, Path: f.Path, Section: SectionTranscripts,
			Message: "ownership problems: " + countsText(counts), Fix: "oc inspect " + shellquote.Quote(f.Path)}
	})
	return compact(per), nil
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
