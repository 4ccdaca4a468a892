package repair

import (
	"strconv"

	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/store/nav96"
)

// The repeated-row rule. OpenClaw 2026.9.6's import stores a row
// byte-identical to one it already stored only once
// (SqliteSessionImportStage.iterateUnseenEvents) but counts it, unless it
// is an indexed entry (or leaf control) that repairLegacyTranscript drops
// first as a repeat of the latest entry with its id; the count check then
// fails (sqlite_transcript_count_mismatch) and `openclaw doctor --fix`
// refuses the migration of the whole state dir. So a line that repeats an
// earlier one byte for byte and is not such an entry (a record of a type
// OpenClaw does not index, an object without an id, a JSON array) is a
// copy that can only do harm: it is quarantined. An exact repeat of an
// indexed entry is left alone (the import drops it itself).
//
// A line with a string id repeats an earlier line byte for byte only if its
// id repeats too, and an indexed entry's repeat is left alone: so the plan
// keeps the digests of the lines without a string id only (few), and asks
// for a pass with every line's (Options.rows) when it meets a repeated id
// on a line that is not an indexed entry (rare).

// repeatedRow drops e when it repeats an earlier line byte for byte and
// 9.6's import would count it without storing it, and reports whether it
// did.
func (pl *planner) repeatedRow(ln jsonl.Line, ed *edit, e *Entry) bool {
	if pl.set != RuleSetAll || e.IsHeader() {
		return false
	}
	f := e.prepare(true)
	if f.idOK && f.idTrimOK && !pl.opts.rows {
		if _, repeated := pl.ids[f.idTrim]; repeated {
			if rec := nav96.Parse(jsonl.TrimSpace(e.B)); !rec.Indexed() && !rec.LeafControl() {
				pl.needRows = true
			}
		}
		return false
	}
	sum := hashBytes(jsonl.TrimSpace(e.B))
	first, seen := pl.rows[sum]
	if !seen {
		if pl.rows == nil {
			pl.rows = map[uint64]int64{}
		}
		pl.rows[sum] = ln.Num
		return false
	}
	if f.idOK {
		if rec := nav96.Parse(jsonl.TrimSpace(e.B)); rec.Indexed() || rec.LeafControl() {
			return false // 9.6 drops this repeat itself
		}
	}
	if ed == nil {
		ed = pl.replaceEdit(ln)
	}
	ed.add(RuleRepeatedRow, 1, "repeats line "+strconv.FormatInt(first, 10)+" byte for byte: OpenClaw 2026.9.6's import would store it once, count it twice and refuse the migration of the whole state dir")
	return true
}
