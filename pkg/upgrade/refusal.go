package upgrade

import (
	"crypto/sha256"
	"fmt"
	"strings"
)

// IDConflict is an event 2026.9.6's import promises but does not store, in
// a file it reads to its end: its `openclaw doctor --fix` then refuses the
// migration of the whole state dir.
//
// What 2026.9.6 does (openclaw@2026.9.6 dist/):
//   - SqliteSessionImportStage.repairLegacyTranscript
//     (doctor-session-sqlite-verification-*.mjs) drops a row whose entry
//     (an indexed entry or a leaf control with a string id) repeats the
//     latest earlier entry with its id byte for byte (after
//     JSON.stringify); every other row stays, and the row count it returns
//     is the `recovery.events` the import promises.
//   - importSqliteSessionRowsInTransaction (doctor-session-sqlite-*.mjs)
//     appends the rows through iterateUnseenEvents, which skips a row
//     byte-identical to one already appended (any row: an entry of an
//     unknown type, one without an id, a JSON array), and
//     appendTranscriptEvent (session-accessor.sqlite-transcript-store-*.mjs)
//     refuses an event whose id (readTranscriptEventIdentity: `id.trim()`)
//     an appended event already has, the header included: it is stored
//     with the session's id.
//   - validateLegacySessionRecord (doctor-session-sqlite-*.mjs, purpose
//     "before-archive") then finds fewer SQLite events than `recovery.events`
//     and reports `sqlite_transcript_count_mismatch`; the check runs only when
//     countTranscriptEventsForPath read the file to its end (a file with a
//     line that does not parse gets `transcript_malformed` instead, so a
//     repeat inside a partially imported file passes; checked with the
//     oracle for a cut line and for NUL bytes after the repeat:
//     TestPartialRepeatIsNotRefused).
//     The same holds for a transcript not in sessions.json that the import
//     recovers as agent:main:recovered:<id> (checked with the oracle).
//   - archiveLegacyArtifacts drops the store of any target with a blocking
//     issue, and the run fails: nothing is archived, for every session of the
//     state dir, and the upgrade stops.
//
// Each kind was provoked with the 9.6 oracle (TestRefusalKinds): an id
// repeated with other content, a session header written again, an entry
// with the session's id, a byte-identical repeat of a row the import does
// not drop.
type IDConflict struct {
	// Kind is ConflictID, ConflictHeader, ConflictSessionID or
	// ConflictDuplicate.
	Kind string `json:"kind"`
	ID   string `json:"id,omitempty"`
	// Line is the event not stored; FirstLine the one it collides with
	// (1-based lines).
	Line      int64 `json:"line"`
	FirstLine int64 `json:"firstLine"`
	// Rows is how many rows 9.6 promises (recovery.events), Stored how many
	// it stores: the two numbers of its count-mismatch message.
	Rows   int `json:"rows"`
	Stored int `json:"stored"`
}

// Conflict kinds.
const (
	// ConflictID: an entry repeats an earlier entry's id with other content.
	ConflictID = "repeated-id"
	// ConflictHeader: a session header with the session's id written again.
	ConflictHeader = "repeated-header"
	// ConflictSessionID: an entry (not a header) with the session's id, the
	// id the header is stored under.
	ConflictSessionID = "session-id"
	// ConflictDuplicate: a byte-identical repeat of a row the import does
	// not drop before storing (an entry of an unknown type or without an
	// id, a line that is not an object).
	ConflictDuplicate = "duplicate-row"
)

// lineSum is the digest the repeat check compares: of the trimmed line
// while the scan runs, then, for an id that repeats, of
// JSON.stringify(JSON.parse(line)), which is what 9.6 compares
// (predictor.canonicalRepeats; TestRespelledRepeatIsExact).
func lineSum(text []byte) [16]byte {
	s := sha256.Sum256(text)
	var out [16]byte
	copy(out[:], s[:16])
	return out
}

// findConflict runs the import's rows through the rules above: the events
// of a file read to its end, after the v1 id migration decided which ids
// survive (keys "s:"), the header stored under sessionID.
func findConflict(events []event, header, version int, sessionID string) *IDConflict {
	type row struct {
		i        int
		identity string // trimmed id; "" for none
		sum      [16]byte
	}
	latest := map[string][16]byte{} // by id as written: repairLegacyTranscript's lookup
	rows := make([]row, 0, len(events))
	for i, ev := range events {
		r := row{i: i, sum: ev.sum}
		switch {
		case i == header:
			r.identity = strings.TrimSpace(sessionID)
			r.sum = lineSum([]byte("\x00header")) // canonicalHeader: no other row's bytes
		case !ev.record:
		case ev.session:
			r.identity = strings.TrimSpace(ev.idText)
		case version < 2 && ev.legacy:
			// the v1 migration gives it a new id of its own: a row like no other
			r.sum = lineSum(fmt.Appendf(nil, "\x00v1 %d", i))
		case strings.HasPrefix(ev.key, "s:"):
			id := ev.key[2:]
			if prev, ok := latest[id]; ok && prev == ev.sum && ev.indexed {
				continue // an exact repeat: dropped before the import, harmless
			}
			latest[id] = ev.sum
			r.identity = strings.TrimSpace(id)
		}
		rows = append(rows, r)
	}
	byJSON := map[[16]byte]int{}   // appended rows by their bytes: iterateUnseenEvents
	byIdentity := map[string]int{} // appended rows by identity: appendTranscriptEvent
	var first *IDConflict
	stored := 0
	for _, r := range rows {
		ev := events[r.i]
		at, dup := byJSON[r.sum]
		kind := ConflictDuplicate
		if !dup && r.identity != "" {
			at, dup = byIdentity[r.identity]
			kind = ConflictID
			switch {
			case !dup:
			case ev.session:
				kind = ConflictHeader
			case at == header:
				kind = ConflictSessionID
			}
		}
		if dup {
			if first == nil {
				first = &IDConflict{Kind: kind, Line: ev.line, FirstLine: events[at].line}
				if r.identity != "" {
					first.ID = r.identity
				}
			}
			continue
		}
		stored++
		byJSON[r.sum] = r.i
		if r.identity != "" {
			byIdentity[r.identity] = r.i
		}
	}
	if first == nil {
		return nil
	}
	first.Rows, first.Stored = len(rows), stored
	return first
}

// RefusalText is doctor's upgrade-refused finding for s.
func RefusalText(s Session) string {
	c := s.Result.Conflict
	what := fmt.Sprintf("line %d of %s repeats the id %q of line %d with different content", c.Line, printable(s.SessionKey, 80), printable(c.ID, 40), c.FirstLine)
	switch c.Kind {
	case ConflictHeader:
		what = fmt.Sprintf("line %d of %s is the session header again (id %q, first on line %d)", c.Line, printable(s.SessionKey, 80), printable(c.ID, 40), c.FirstLine)
	case ConflictSessionID:
		what = fmt.Sprintf("line %d of %s is an entry with the session's id %q, which the header (line %d) is stored under", c.Line, printable(s.SessionKey, 80), printable(c.ID, 40), c.FirstLine)
	case ConflictDuplicate:
		what = fmt.Sprintf("line %d of %s repeats line %d byte for byte, and the import drops only repeated indexed entries, not this one", c.Line, printable(s.SessionKey, 80), c.FirstLine)
	}
	return fmt.Sprintf("the upgrade to OpenClaw 2026.8+ would be refused for the whole state dir: %s, so 2026.9.6's `openclaw doctor --fix` stores %d of its %d events, fails with sqlite_transcript_count_mismatch and imports and archives nothing, for every session",
		what, c.Stored, c.Rows)
}

// Refusals returns the sessions over which the import would refuse the
// whole migration.
func (r *Report) Refusals() []Session {
	var out []Session
	for _, s := range r.Sessions {
		if s.Result != nil && s.Result.Conflict != nil && s.SessionKey != "" {
			out = append(out, s)
		}
	}
	return out
}
