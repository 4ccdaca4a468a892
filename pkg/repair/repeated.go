package repair

import (
	"strconv"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// idUse is the latest entry with one (trimmed) id: its id as written and a
// digest of its bytes.
type idUse struct {
	raw, sum uint64
}

// repeatedID is the repeated-id rule. OpenClaw 2026.9.6's import
// (openclaw@2026.9.6 dist/: SqliteSessionImportStage.repairLegacyTranscript
// of doctor-session-sqlite-verification-*.mjs drops only a byte-identical
// repeat of the latest entry with the id; appendTranscriptEvent of
// session-accessor.sqlite-transcript-store-*.mjs refuses an event whose
// trimmed id the session already holds; validateLegacySessionRecord of
// doctor-session-sqlite-*.mjs then finds fewer events than promised,
// sqlite_transcript_count_mismatch, and doctor --fix refuses the migration
// of the whole state dir; pkg/upgrade predicts it) cannot take two
// different entries with one id. The later entry gets a new id; entries
// written after it that name the id (parentId, firstKeptEntryId) were
// appended when it was the latest entry with that id, so they name the new
// one. An exact repeat of the latest entry is left alone (the import drops
// it without harm) and ends the redirection.
//
// e is the entry as read, out its bytes after the earlier rules (changed
// says whether they differ).
func (pl *planner) repeatedID(ln jsonl.Line, e *Entry, out []byte, changed bool, hits []hit) ([]byte, bool, []hit) {
	pl.newID = nil
	cur := func() *Entry {
		if changed {
			return ParseEntry(out)
		}
		return e
	}
	// references to a renamed entry, first (the entry's own id may be new too)
	f := e.prepare(true)
	if len(pl.renamed) > 0 { // else nothing was renamed: nothing to redirect
		if h, ok := hashStrValue(e.ParentID); ok {
			if to, ok := pl.renamed[h]; ok {
				out, changed = cur().withParent(to), true
				hits = append(hits, hit{RuleRepeatedID, 1, "parentId " + string(e.ParentID) + " names the repeated entry renamed " + string(to)})
			}
		}
		if h, ok := hashStrValue(e.FirstKept); ok {
			if to, ok := pl.renamed[h]; ok {
				out, changed = cur().withFirstKept(to), true
				hits = append(hits, hit{RuleRepeatedID, 1, "firstKeptEntryId " + string(e.FirstKept) + " names the repeated entry renamed " + string(to)})
			}
		}
	}
	if !f.idOK || !f.idTrimOK {
		return out, changed, hits
	}
	// the bytes as they will be written (an exact repeat of an entry whose
	// parentId was re-pointed is re-pointed too, and stays an exact repeat)
	key := e.prepare(true).idTrim
	var sum uint64
	if changed || len(out) != len(e.B) || len(out) > 0 && &out[0] != &e.B[0] {
		sum = hashBytes(jsonl.TrimSpace(out))
	} else {
		sum = e.f.lineSum(e) // hashed in parallel, for the bytes as read
	}
	use := idUse{raw: e.f.idRaw, sum: sum}
	prev, seen := pl.ids[key]
	switch {
	case !seen:
		pl.ids[key] = use
		return out, changed, hits
	case prev == use:
		delete(pl.renamed, use.raw) // the writer went back to the entry itself
		return out, changed, hits
	}
	// a different entry with the id: give it a new one no entry has so far
	id, _ := e.IDString()
	base := id + "-oc" + strconv.FormatInt(ln.Num, 10)
	fresh := base
	for n := 2; ; n++ {
		_, taken := pl.ids[hashStr(fresh)]
		taken2 := pl.seenHas(hashStr(fresh))
		if !taken && !taken2 {
			break
		}
		fresh = base + "-" + strconv.Itoa(n)
	}
	raw := jsjson.AppendString(nil, fresh)
	out, changed = cur().withID(raw), true
	hits = append(hits, hit{RuleRepeatedID, 1, "id " + string(e.ID) + " repeats an earlier entry's with different content; renamed " + string(raw)})
	pl.ids[hashStr(fresh)] = idUse{raw: hashStr(fresh), sum: hashBytes(jsonl.TrimSpace(out))}
	pl.markSeen(hashStr(fresh))
	pl.renamed[use.raw] = raw
	pl.newID = raw
	return out, changed, hits
}
