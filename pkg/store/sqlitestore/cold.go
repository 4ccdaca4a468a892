package sqlitestore

// Transcript cold storage of OpenClaw 2026.9.6, read the way 9.6 reads it
// when it restores a transcript (dist/session-cold-storage-*.mjs,
// session-cold-storage-codec-*.mjs, session-cold-storage-worker-*.mjs; the
// "sqlite-transcript-archive-v2" worker of worker/sqlite-store.worker.mjs):
//
//   - Archival (cold-prepare, prepareSessionColdArchiveInWorker; cold-batch,
//     mutateSessionColdTranscriptInWorker) moves a whole transcript, not a
//     part of it: every transcript_events row of the session, its
//     transcript_event_identities, session_transcript_active_events and
//     session_transcript_index_state rows and its FTS rows go into one
//     envelope; then the session's transcript_events and index_state rows are
//     deleted (identities and active events follow by ON DELETE CASCADE) and
//     one session_transcript_cold_archives row records the archive. While
//     that row exists the transcript is "cold": 9.6 refuses to read it hot
//     (assertSessionTranscriptHot, TRANSCRIPT_COLD) and every reader first
//     restores it (readRestoredSessionTranscript -> restoreSessionColdTranscript).
//   - The envelope is zstd-compressed JSONL (node:zlib createZstdCompress,
//     one frame), one record a line (sessionColdRecordSchema): {"kind":
//     "header","version":1,"sessionId","generation"}, then {"kind":"event",
//     "row":{seq,event_json,created_at}} in seq order, then "identity",
//     "active", "index" and "fts" records. event_json is the event text
//     (event_zstd rows decompressed by transcriptEventJsonSql).
//   - storage 'file': agents/<id>/sessions/cold/<sha256>.jsonl.zst
//     (resolveSessionColdArchivePath: the name must match
//     ^[a-f0-9]{64}\.jsonl\.zst$, the folder is resolveSessionArtifactDirectory
//     of the database path). storage 'sqlite': the same bytes in archive_blob
//     (embedSessionColdArchivesInSnapshot puts them there in a backup
//     snapshot; the next maintenance pass writes them back out as a file).
//   - Restore (cold-restore: prepareSessionColdRestoreInWorker) verifies
//     archive_bytes and archive_sha256 of the compressed bytes
//     (readVerifiedSessionColdArchive), decompresses at most 64 MiB
//     (MAX_COLD_ARCHIVE_BYTES), parses every line, and checks the contents
//     against the row (decodeSessionColdRecords): header first and only once,
//     same session id and generation, event count, the last event's seq,
//     raw_bytes = the events' UTF-8 bytes plus one newline between each. Then
//     every event is inserted back with its seq and created_at, and the cold
//     row is deleted. The session's history is then exactly the archived
//     events: that is what oc reads, without writing anything.
//   - Who restores: an agent run restores its session (and the parent's)
//     before it opens it (builtin-openclaw-*.mjs, the run's session target;
//     get-reply-*.mjs, initSessionState), and chat history, session reads and
//     usage go through readRestoredSessionTranscript. SessionManager.openAsync
//     alone does not: on a cold transcript it throws TRANSCRIPT_COLD (checked
//     with the oracle's `context` mode). So the model's context of a cold
//     session is built from the restored, i.e. the archived, events.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
)

// MaxColdArchiveBytes is 9.6's MAX_COLD_ARCHIVE_BYTES: the most an archive
// decompresses to.
const MaxColdArchiveBytes = 64 << 20

// coldArchiveNameRE is resolveSessionColdArchivePath's check.
var coldArchiveNameRE = lazyre.New(`^[a-f0-9]{64}\.jsonl\.zst$`)

// ColdArchive is a session_transcript_cold_archives row (without the blob).
type ColdArchive struct {
	SessionID     string `json:"sessionId"`
	Generation    string `json:"generation"`
	ArchiveName   string `json:"archiveName"`
	ArchiveSHA256 string `json:"archiveSha256"`
	EventCount    int    `json:"eventCount"`
	RawBytes      int64  `json:"rawBytes"`
	ArchiveBytes  int64  `json:"archiveBytes"`
	LastSeq       int64  `json:"lastSeq"`
	ArchivedAt    int64  `json:"archivedAt"`
	Storage       string `json:"storage"` // "file" or "sqlite"
}

// EventBytes is the size of the archived events' JSON (raw_bytes counts a
// newline between events).
func (c ColdArchive) EventBytes() int64 {
	if c.EventCount <= 1 {
		return c.RawBytes
	}
	return c.RawBytes - int64(c.EventCount-1)
}

// ColdSource says that a session's rows were read from its cold archive.
type ColdSource struct {
	Archive ColdArchive `json:"archive"`
	// Path is the archive file (storage 'file'); for storage 'sqlite' it
	// names the row: "<db>#session_transcript_cold_archives[<id>].archive_blob".
	Path string `json:"path"`
	// Events is the number of events read from the archive (0 when it could
	// not be read).
	Events int `json:"events"`
	// Verified: size, sha256 and contents agree with the row.
	Verified bool `json:"verified"`
	// HotRows counts transcript_events rows beside the cold row (9.6 never
	// leaves any: archival deletes them in the same transaction).
	HotRows int `json:"hotRows,omitempty"`
	// SeqClashes counts hot rows whose seq an archived event also has: 9.6's
	// restore would fail on them (PRIMARY KEY (session_id, seq)).
	SeqClashes int `json:"seqClashes,omitempty"`
}

// ColdArchiveError is a cold archive that 2026.9.6 would refuse to restore.
// Its message is one line naming the file (or the database row).
type ColdArchiveError struct {
	SessionID string
	Where     string // the archive file, or the row holding the blob
	Reason    string
}

func (e *ColdArchiveError) Error() string {
	return fmt.Sprintf("%s: cold archive of session %s %s", e.Where, e.SessionID, e.Reason)
}

// ColdArchiveDir is the folder of a database's 'file' archives:
// resolveSessionArtifactDirectory(dbPath)/cold (agents/<id>/sessions/cold
// for agents/<id>/agent/openclaw-agent.sqlite, else beside the database).
func ColdArchiveDir(dbPath string) string { return filepath.Join(ArtifactDir(dbPath), "cold") }

const coldColumns = "session_id, generation, archive_name, archive_sha256, event_count, raw_bytes, archive_bytes, last_seq, archived_at, storage"

func scanCold(sc interface{ Scan(...any) error }, c *ColdArchive) error {
	return sc.Scan(&c.SessionID, &c.Generation, &c.ArchiveName, &c.ArchiveSHA256, &c.EventCount, &c.RawBytes, &c.ArchiveBytes, &c.LastSeq, &c.ArchivedAt, &c.Storage)
}

// ColdArchives lists the cold archives (transcripts moved out of
// transcript_events), in session id order.
func (d *DB) ColdArchives(ctx context.Context) ([]ColdArchive, error) {
	if !d.HasTable("session_transcript_cold_archives") {
		return nil, nil
	}
	return readAll(ctx, d, "SELECT "+coldColumns+" FROM session_transcript_cold_archives ORDER BY session_id", scanCold)
}

// readAll reads every row query gives, in one read transaction, each made
// a T by scan.
func readAll[T any](ctx context.Context, d *DB, query string, scan func(interface{ Scan(...any) error }, *T) error) ([]T, error) {
	var out []T
	err := d.ReadTx(ctx, func(tx *sql.Tx) error {
		out = nil
		rows, err := tx.QueryContext(ctx, query)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var v T
			if err := scan(rows, &v); err != nil {
				return err
			}
			out = append(out, v)
		}
		return rows.Err()
	})
	return out, err
}

// coldIndex reads every cold row (without blobs), by session id.
func (d *DB) coldIndex(ctx context.Context, tx *sql.Tx) (map[string]ColdArchive, error) {
	out := map[string]ColdArchive{}
	if !d.HasTable("session_transcript_cold_archives") {
		return out, nil
	}
	rows, err := tx.QueryContext(ctx, "SELECT "+coldColumns+" FROM session_transcript_cold_archives")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c ColdArchive
		if err := scanCold(rows, &c); err != nil {
			return nil, err
		}
		out[c.SessionID] = c
	}
	return out, rows.Err()
}

// coldRow reads a session's cold row and, for storage 'sqlite', its blob
// (readSessionColdTranscript). found is false when the transcript is hot.
func (d *DB) coldRow(ctx context.Context, tx *sql.Tx, src *source, sessionID string) (c ColdArchive, blob []byte, found bool, err error) {
	if !d.HasTable("session_transcript_cold_archives") {
		return c, nil, false, nil
	}
	err = scanCold(queryRow(ctx, tx, src, coldRowQuery, sessionID), &c)
	if errors.Is(err, sql.ErrNoRows) {
		return c, nil, false, nil
	}
	if err != nil {
		return c, nil, false, err
	}
	if c.Storage == "sqlite" {
		// archive_blob may hold a value of another type in a damaged row:
		// read its bytes as a blob.
		if err := tx.QueryRowContext(ctx, "SELECT CAST(archive_blob AS BLOB) FROM session_transcript_cold_archives WHERE session_id = ?", sessionID).Scan(&blob); err != nil {
			return c, nil, true, err
		}
	}
	return c, blob, true, nil
}

// coldWhere names where an archive's bytes are.
func (d *DB) coldWhere(c ColdArchive) string {
	if c.Storage == "sqlite" {
		return fmt.Sprintf("%s#session_transcript_cold_archives[%s].archive_blob", d.Path, c.SessionID)
	}
	return filepath.Join(ColdArchiveDir(d.Path), c.ArchiveName)
}

// coldTranscript is a decoded, verified archive.
type coldTranscript struct {
	events    []Event
	state     *IndexState
	activePos [][2]int64 // active_position, event_seq
}

// readColdArchive reads and verifies an archive as 9.6's restore does
// (readVerifiedSessionColdArchive, decodeSessionColdRecords). The archive
// file is only opened for reading.
func (d *DB) readColdArchive(c ColdArchive, blob []byte) (*coldTranscript, error) {
	where := d.coldWhere(c)
	fail := func(format string, args ...any) error {
		return &ColdArchiveError{SessionID: c.SessionID, Where: where, Reason: fmt.Sprintf(format, args...)}
	}
	var data []byte
	switch c.Storage {
	case "sqlite":
		if blob == nil {
			return nil, fail("has storage 'sqlite' but no archive_blob; restore the database from a backup")
		}
		data = blob
	case "file":
		if !coldArchiveNameRE().MatchString(c.ArchiveName) {
			return nil, fail("has an invalid archive name %q (2026.9.6 reads only <sha256>.jsonl.zst)", safeName(c.ArchiveName))
		}
		var err error
		data, err = readAtMost(where, c.ArchiveBytes)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the path is already named
			}
			return nil, fail("is missing or unreadable (%s): restore it from a backup; OpenClaw 2026.9.6 refuses to read this transcript until then", oneLineErr(err))
		}
	default:
		return nil, fail("has unknown storage %q", safeName(c.Storage))
	}
	if int64(len(data)) != c.ArchiveBytes {
		return nil, fail("failed verification: %d bytes, the row says archive_bytes %d (cut off or replaced); restore it from a verified backup", len(data), c.ArchiveBytes)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != c.ArchiveSHA256 {
		return nil, fail("failed verification: sha256 %s, the row says %s; restore it from a verified backup", got, safeName(c.ArchiveSHA256))
	}
	// A decoder of its own, dropped after the archive: at most
	// MaxColdArchiveBytes of output (9.6's cap), which the caller holds in
	// the run's budget.
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxMemory(MaxColdArchiveBytes))
	if err != nil {
		return nil, err
	}
	plain, err := dec.DecodeAll(data, nil)
	dec.Close()
	if err != nil {
		return nil, fail("does not decompress (zstd: %s)", oneLineErr(err))
	}
	ct, reason := decodeColdRecords(plain, c)
	if reason != "" {
		return nil, fail("does not match its row: %s", reason)
	}
	return ct, nil
}

// readAtMost reads a file opened read-only, at most limit+1 bytes (a bigger
// file fails verification anyway).
func readAtMost(path string, limit int64) ([]byte, error) {
	f, _, err := durable.OpenRegular(path) // never blocks on a FIFO named like an archive
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max(limit, 0)+1))
}

// decodeColdRecords is decodeSessionColdRecords: the decompressed text as
// Node reads it (UTF-8 with U+FFFD for invalid bytes, trimEnd, split on
// "\n"), each line JSON.parse'd and checked against sessionColdRecordSchema,
// then the contents checked against the row. reason is "" when 9.6 accepts it.
func decodeColdRecords(plain []byte, c ColdArchive) (*coldTranscript, string) {
	text := jsjson.ToWellFormed(plain)
	text = bytes.TrimRightFunc(text, jsjson.IsSpace)
	ct := &coldTranscript{state: &IndexState{}}
	sawHeader := false
	var rawBytes int64
	for i, line := range bytes.Split(text, []byte("\n")) {
		n := i + 1
		v, err := jsjson.Parse(line)
		if err != nil {
			return nil, fmt.Sprintf("record %d is not JSON (%s)", n, oneLineErr(err))
		}
		rec, ok := v.(*jsjson.Object)
		if !ok {
			return nil, fmt.Sprintf("record %d is not an object", n)
		}
		kind, _ := str(rec, "kind")
		if kind == "header" {
			if n != 1 {
				return nil, fmt.Sprintf("record %d is a second header", n)
			}
			if why := checkColdHeader(rec, c); why != "" {
				return nil, why
			}
			sawHeader = true
			continue
		}
		row, ok := objectMember(rec, "row")
		if !ok {
			return nil, fmt.Sprintf("record %d (kind %q) has no row object", n, safeName(kind))
		}
		if why := ct.addRow(n, kind, row, &rawBytes); why != "" {
			return nil, why
		}
	}
	if why := ct.checkAgainst(c, sawHeader, rawBytes); why != "" {
		return nil, why
	}
	if why := ct.order(); why != "" {
		return nil, why
	}
	return ct, ""
}

// checkColdHeader says what is wrong with the archive's header record ("" when
// it is the header of c's session and generation).
func checkColdHeader(rec *jsjson.Object, c ColdArchive) string {
	ver, okv := num(rec, "version")
	id, oki := str(rec, "sessionId")
	gen, okg := str(rec, "generation")
	if !okv || ver != 1 || !oki || !okg {
		return "the header is not {kind:\"header\",version:1,sessionId,generation}"
	}
	if id != c.SessionID {
		return fmt.Sprintf("the header names session %q", safeName(id))
	}
	if gen != c.Generation {
		return fmt.Sprintf("the header names generation %q, the row %q", safeName(gen), safeName(c.Generation))
	}
	return ""
}

// addRow checks record n's row of this kind and keeps what the restore
// needs of it (events, active positions, the index state); rawBytes adds up
// the events' byte lengths. It says what is wrong ("" when nothing is).
func (ct *coldTranscript) addRow(n int, kind string, row *jsjson.Object, rawBytes *int64) string {
	switch kind {
	case "event":
		seq, ok1 := intField(row, "seq")
		js, ok2 := str(row, "event_json")
		created, ok3 := intField(row, "created_at")
		if !ok1 || !ok2 || !ok3 {
			return fmt.Sprintf("record %d: an event row needs integer seq and created_at and a string event_json", n)
		}
		// Buffer.byteLength of the JS string: a lone surrogate counts 3
		// bytes, as its WTF-8 form does.
		*rawBytes += int64(len(js))
		// The restored row as node:sqlite binds the string: a lone
		// surrogate is stored as U+FFFD.
		ct.events = append(ct.events, Event{Seq: int64(seq), JSON: surrogatesToFFFD(js), CreatedAt: int64(created)})
	case "identity":
		if !fieldsOK(row, []fieldSpec{{"event_id", "str"}, {"seq", "int"}, {"event_type", "str?"}, {"parent_id", "str?"}, {"message_idempotency_key", "str?"}, {"created_at", "int"}}) {
			return fmt.Sprintf("record %d: malformed identity row", n)
		}
	case "active":
		if !fieldsOK(row, []fieldSpec{{"active_position", "int"}, {"event_seq", "int"}, {"message_position", "int?"}, {"context_eligible", "int?"}}) {
			return fmt.Sprintf("record %d: malformed active row", n)
		}
		pos, _ := intField(row, "active_position")
		seq, _ := intField(row, "event_seq")
		ct.activePos = append(ct.activePos, [2]int64{int64(pos), int64(seq)})
	case "index":
		if !fieldsOK(row, []fieldSpec{{"indexed_seq", "int"}, {"leaf_event_id", "str?"}, {"needs_rebuild", "int"}, {"active_event_count", "int"}, {"active_message_count", "int"}, {"updated_at", "int"}}) {
			return fmt.Sprintf("record %d: malformed index row", n)
		}
		st := ct.state
		idx, _ := intField(row, "indexed_seq")
		nr, _ := intField(row, "needs_rebuild")
		ae, _ := intField(row, "active_event_count")
		am, _ := intField(row, "active_message_count")
		leaf, _ := str(row, "leaf_event_id")
		st.Present, st.IndexedSeq, st.LeafEventID, st.NeedsRebuild = true, int64(idx), leaf, nr != 0
		st.ActiveEventCount, st.ActiveMessageCount = int(ae), int(am)
	case "fts":
		if !fieldsOK(row, []fieldSpec{{"text", "str?"}, {"message_id", "str?"}, {"role", "str?"}, {"timestamp", "strnum?"}}) {
			return fmt.Sprintf("record %d: malformed fts row", n)
		}
	default:
		return fmt.Sprintf("record %d has unknown kind %q", n, safeName(kind))
	}
	return ""
}

// checkAgainst says where the decoded archive disagrees with its row c ("" when
// it agrees).
func (ct *coldTranscript) checkAgainst(c ColdArchive, sawHeader bool, rawBytes int64) string {
	switch {
	case !sawHeader:
		return "the first record is not the header"
	case len(ct.events) != c.EventCount:
		return fmt.Sprintf("it holds %d events, the row says event_count %d", len(ct.events), c.EventCount)
	case ct.events[len(ct.events)-1].Seq != c.LastSeq:
		return fmt.Sprintf("its last event has seq %d, the row says last_seq %d", ct.events[len(ct.events)-1].Seq, c.LastSeq)
	case rawBytes+int64(len(ct.events))-1 != c.RawBytes:
		return fmt.Sprintf("its events are %d bytes (with newlines), the row says raw_bytes %d", rawBytes+int64(len(ct.events))-1, c.RawBytes)
	}
	return ""
}

// order sorts the events by seq and the active rows by position, as the
// restored rows are read back, and says why the restore would fail ("" when
// it would not).
func (ct *coldTranscript) order() string {
	// Restored rows are read back in seq order; two events with one seq
	// would fail the restore's insert.
	sort.SliceStable(ct.events, func(i, j int) bool { return ct.events[i].Seq < ct.events[j].Seq })
	for i := 1; i < len(ct.events); i++ {
		if ct.events[i].Seq == ct.events[i-1].Seq {
			return fmt.Sprintf("two events have seq %d (the restore's insert fails on them)", ct.events[i].Seq)
		}
	}
	// The restored active rows are read ORDER BY active_position.
	sort.SliceStable(ct.activePos, func(i, j int) bool { return ct.activePos[i][0] < ct.activePos[j][0] })
	for _, p := range ct.activePos {
		ct.state.ActiveSeqs = append(ct.state.ActiveSeqs, p[1])
	}
	return ""
}

type fieldSpec struct{ name, kind string }

// fieldsOK checks a row against its zod object schema (extra keys allowed).
func fieldsOK(o *jsjson.Object, specs []fieldSpec) bool {
	for _, s := range specs {
		v, present := o.Get(s.name)
		nullable := strings.HasSuffix(s.kind, "?")
		if nullable && present && v == nil {
			continue
		}
		switch strings.TrimSuffix(s.kind, "?") {
		case "str":
			if _, ok := v.(string); !ok {
				return false
			}
		case "int":
			if f, ok := v.(float64); !ok || f != math.Trunc(f) || math.IsInf(f, 0) {
				return false
			}
		case "strnum":
			switch v.(type) {
			case string, float64:
			default:
				return false
			}
		}
	}
	return true
}

func str(o *jsjson.Object, key string) (string, bool) {
	v, _ := o.Get(key)
	s, ok := v.(string)
	return s, ok
}

func num(o *jsjson.Object, key string) (float64, bool) {
	v, _ := o.Get(key)
	f, ok := v.(float64)
	return f, ok
}

// intField is zod's number().int() (a safe-range check is not part of it).
func intField(o *jsjson.Object, key string) (float64, bool) {
	f, ok := num(o, key)
	if !ok || f != math.Trunc(f) || math.IsInf(f, 0) || math.Abs(f) > 1<<62 {
		return 0, false
	}
	return f, true
}

func objectMember(o *jsjson.Object, key string) (*jsjson.Object, bool) {
	v, _ := o.Get(key)
	r, ok := v.(*jsjson.Object)
	return r, ok
}

// surrogatesToFFFD turns WTF-8 lone surrogates (ED A0..BF xx) into U+FFFD,
// as V8 encodes a string for SQLite.
func surrogatesToFFFD(s string) []byte {
	if !jsjson.HasSurrogate(s) {
		return []byte(s)
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF {
			out = utf8.AppendRune(out, utf8.RuneError)
			i += 3
			continue
		}
		out = append(out, s[i])
		i++
	}
	return out
}

// safeName keeps text from a database printable in one line.
func safeName(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
}

func oneLineErr(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
