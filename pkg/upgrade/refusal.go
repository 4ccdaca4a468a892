package upgrade

import (
	"crypto/sha256"
	"fmt"
	"strings"
)

// IDConflict is an entry whose id repeats an earlier entry's with different
// content.
//
// What 2026.9.6's `openclaw doctor --fix` does with it (openclaw@2026.9.6
// dist/):
//   - SqliteSessionImportStage.repairLegacyTranscript
//     (doctor-session-sqlite-verification-*.mjs) drops a row whose entry
//     repeats the latest earlier entry with its id byte for byte (after
//     JSON.stringify); a repeat with different content stays, and the row
//     count it returns is the `recovery.events` the import promises.
//   - appendTranscriptEvent (session-accessor.sqlite-transcript-store-*.mjs)
//     refuses an event whose id (readTranscriptEventIdentity: `id.trim()`) the
//     session already has: the second entry is not stored.
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
type IDConflict struct {
	ID string `json:"id"`
	// Line repeats the id first given at FirstLine (1-based lines).
	Line      int64 `json:"line"`
	FirstLine int64 `json:"firstLine"`
	// Rows is how many rows 9.6 promises (recovery.events), Stored how many
	// it stores: the two numbers of its count-mismatch message.
	Rows   int `json:"rows"`
	Stored int `json:"stored"`
}

// lineSum is the digest the repeat check compares: of the trimmed line
// while the scan runs, then, for an id that repeats with other bytes, of
// JSON.stringify(JSON.parse(line)), which is what 9.6 compares
// (predictor.canonicalRepeats; TestRespelledRepeatIsExact).
func lineSum(text []byte) [16]byte {
	s := sha256.Sum256(text)
	var out [16]byte
	copy(out[:], s[:16])
	return out
}

// findConflict applies the rules above to the events of a file read to its
// end, after the v1 id migration decided which ids survive (keys "s:").
func findConflict(events []event, header, version int) *IDConflict {
	type seen struct {
		line int64
		sum  [16]byte
	}
	latest := map[string]seen{}   // by id as written: repairLegacyTranscript's lookup
	trimmed := map[string]int64{} // by trimmed id: appendTranscriptEvent's identity
	var first *IDConflict
	rows, dropped := 0, 0
	for i, ev := range events {
		rows++
		if i == header || ev.session || !strings.HasPrefix(ev.key, "s:") || version < 2 && ev.legacy {
			continue
		}
		id := ev.key[2:]
		if prev, ok := latest[id]; ok && prev.sum == ev.sum {
			rows-- // an exact repeat: dropped before the import, harmless
			latest[id] = seen{ev.line, ev.sum}
			continue
		}
		latest[id] = seen{ev.line, ev.sum}
		t := strings.TrimSpace(id)
		if t == "" {
			continue
		}
		if at, ok := trimmed[t]; ok {
			dropped++
			if first == nil {
				first = &IDConflict{ID: id, Line: ev.line, FirstLine: at}
			}
			continue
		}
		trimmed[t] = ev.line
	}
	if first == nil {
		return nil
	}
	first.Rows, first.Stored = rows, rows-dropped
	return first
}

// RefusalText is doctor's upgrade-refused finding for s.
func RefusalText(s Session) string {
	c := s.Result.Conflict
	return fmt.Sprintf("the upgrade to OpenClaw 2026.8+ would be refused for the whole state dir: line %d of %s repeats the id %q of line %d with different content, so 2026.9.6's `openclaw doctor --fix` stores %d of its %d events, fails with sqlite_transcript_count_mismatch and imports and archives nothing, for every session",
		c.Line, printable(s.SessionKey, 80), printable(c.ID, 40), c.FirstLine, c.Stored, c.Rows)
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
