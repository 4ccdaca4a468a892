package repair

import "github.com/openclaw-tools/oc/pkg/jsonl"

// Unrepairable says why `oc repair` cannot fix what `oc repair --check`
// flags in this file ("" when the file is fine or repair fixes it): the file
// is compressed, or the rule set leaves it alone (no line is an entry, or
// 2026.5.6's "invalid session header"). `--check` reports the reason and
// `repair` exits 3 on such a file, so that the two always agree.
func (p *Plan) Unrepairable() string {
	if !p.NeedsAttention() {
		return ""
	}
	if p.compression != jsonl.Plain {
		return p.compression.String() + "-compressed: oc repairs only plain files (decompress it, repair, compress again)"
	}
	switch p.Skipped {
	case "":
		if p.recovery != "" {
			return "not in sessions.json and " + p.recovery
		}
	case SkipEmpty:
		// OpenClaw's word for a file in which no entry parses; here there are
		// lines (rules fired), so the file is not empty: say what it is.
		return "no line is a JSON entry: not an OpenClaw transcript"
	default:
		return p.Skipped
	}
	return ""
}
