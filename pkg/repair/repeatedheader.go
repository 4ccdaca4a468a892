package repair

import (
	"strconv"

	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// The repeated-header rule. OpenClaw 2026.9.6's import stores a
// transcript's header under the session's id and refuses any later event
// whose (trimmed) id a stored event already has (appendTranscriptEvent of
// session-accessor.sqlite-transcript-store-*.mjs); its count check then
// finds one event fewer than promised (sqlite_transcript_count_mismatch)
// and `openclaw doctor --fix` refuses the migration of the whole state dir.
// A session header written again inside the transcript (a header line
// repeated verbatim, as a writer that re-opened the file wrote it) is such
// an event: it is quarantined. An entry of another type with the header's
// id is renamed by the repeated-id rule (the header's id counts as taken).

// repeatedHeader drops e when it is a session header with the id of the
// transcript's header (the first entry), and reports whether it did.
func (pl *planner) repeatedHeader(ln jsonl.Line, ed *edit, e *Entry) bool {
	if !e.IsHeader() || pl.first == nil || !pl.first.IsHeader() { // e first: the cheap test
		return false
	}
	f, first := e.prepare(true), pl.first.prepare(true)
	if !f.idTrimOK || !first.idTrimOK || f.idTrim != first.idTrim {
		return false
	}
	if ed == nil {
		ed = pl.replaceEdit(ln)
	}
	id, _ := e.IDString()
	ed.add(RuleRepeatedHeader, 1, "session header "+strconv.Quote(id)+" written again (first on line "+strconv.FormatInt(pl.firstLineNo, 10)+"): OpenClaw 2026.9.6's import would refuse the migration of the whole state dir")
	return true
}

// noteHeaderID counts the header's (trimmed) id as taken for the
// repeated-id rule: 2026.9.6 stores the header under it.
func (pl *planner) noteHeaderID(e *Entry) {
	f := e.prepare(true)
	if !f.idTrimOK {
		return
	}
	// a digest no entry's bytes have: any entry with the id is another entry
	pl.ids[f.idTrim] = idUse{raw: f.idRaw, sum: hashBytes(jsonl.TrimSpace(e.B)) ^ 1}
}
