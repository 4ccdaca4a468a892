package sqlitestore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
)

// Session is one session_nodes row with its transcript's size.
type Session struct {
	Key          string          `json:"key"`
	SessionID    string          `json:"sessionId"`
	Entry        json.RawMessage `json:"entry"` // entry_json, as stored
	UpdatedAt    int64           `json:"updatedAt"`
	Events       int             `json:"events"`
	Bytes        int64           `json:"bytes"`        // event JSON bytes
	LastActivity int64           `json:"lastActivity"` // newest event created_at (ms)
	WindowReason string          `json:"windowReason,omitempty"`
	Previous     string          `json:"previousSessionId,omitempty"`
	// Orphan: transcript rows with no session_nodes row naming them.
	Orphan bool `json:"orphan,omitempty"`
	// Cold: the transcript is in cold storage (session_transcript_cold_archives);
	// Events and Bytes are the archive row's event_count and event bytes.
	Cold bool `json:"cold,omitempty"`
}

// IndexState is the cached navigation of a transcript
// (session_transcript_index_state).
type IndexState struct {
	Present            bool    `json:"present"`
	IndexedSeq         int64   `json:"indexedSeq"`
	LeafEventID        string  `json:"leafEventId"`
	NeedsRebuild       bool    `json:"needsRebuild"`
	ActiveEventCount   int     `json:"activeEventCount"`
	ActiveMessageCount int     `json:"activeMessageCount"`
	ActiveSeqs         []int64 `json:"-"` // session_transcript_active_events in position order
	// Cold is set when the session is in cold storage
	// (session_transcript_cold_archives): its rows, and this cached
	// navigation, were read from the archive, as 2026.9.6 restores them.
	Cold *ColdSource `json:"cold,omitempty"`
}

// Event is one transcript_events row.
type Event struct {
	Seq  int64
	JSON []byte // event JSON (nil for a zstd row RawEvents hands out as stored)
	// Zstd is event_zstd as stored, for a row without event_json that
	// RawEvents hands out undecoded, and UTF8Bytes its event_utf8_bytes
	// (the size it claims to decode to; -1 when it is not an integer).
	Zstd      []byte
	UTF8Bytes int64
	CreatedAt int64
}

// Sessions lists the sessions of an agent database: every session_nodes row
// and every transcript that no row names (orphans), in key order.
func (d *DB) Sessions(ctx context.Context) ([]Session, error) {
	var out []Session
	err := d.ReadTx(ctx, func(tx *sql.Tx) error {
		out = nil
		sizeExpr := "length(CAST(event_json AS BLOB))"
		if d.HasColumn("transcript_events", "event_zstd") {
			sizeExpr = "coalesce(length(CAST(event_json AS BLOB)), event_utf8_bytes)"
		}
		stats := map[string][3]int64{}
		rows, err := tx.QueryContext(ctx, "SELECT session_id, count(*), sum("+sizeExpr+"), max(created_at) FROM transcript_events GROUP BY session_id")
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			var n, b, last sql.NullInt64
			if err := rows.Scan(&id, &n, &b, &last); err != nil {
				rows.Close()
				return err
			}
			stats[id] = [3]int64{n.Int64, b.Int64, last.Int64}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		cold, err := d.coldIndex(ctx, tx)
		if err != nil {
			return err
		}
		for id, c := range cold {
			st := stats[id]
			stats[id] = [3]int64{st[0] + int64(c.EventCount), st[1] + c.EventBytes(), st[2]}
		}
		windows, err := d.sessionWindows(ctx, tx)
		if err != nil {
			return err
		}
		var named map[string]bool
		if out, named, err = sessionNodes(ctx, tx, windows, cold); err != nil {
			return err
		}
		for i := range out {
			st := stats[out[i].SessionID]
			out[i].Events, out[i].Bytes, out[i].LastActivity = int(st[0]), st[1], st[2]
		}
		for id, st := range stats {
			if named[id] {
				continue
			}
			w := windows[id]
			_, isCold := cold[id]
			out = append(out, Session{SessionID: id, Events: int(st[0]), Bytes: st[1], LastActivity: st[2], WindowReason: w[0], Previous: w[1], Orphan: true, Cold: isCold})
		}
		return nil
	})
	return out, err
}

// sessionNodes reads the session_nodes rows in key order, each with its
// window and whether it is cold; named holds their session ids.
func sessionNodes(ctx context.Context, tx *sql.Tx, windows map[string][2]string, cold map[string]ColdArchive) (out []Session, named map[string]bool, err error) {
	nr, err := tx.QueryContext(ctx, "SELECT session_key, current_session_id, entry_json, updated_at FROM session_nodes ORDER BY session_key")
	if err != nil {
		return nil, nil, err
	}
	defer nr.Close()
	named = map[string]bool{}
	for nr.Next() {
		var s Session
		var entry string
		if err := nr.Scan(&s.Key, &s.SessionID, &entry, &s.UpdatedAt); err != nil {
			return nil, nil, err
		}
		s.Entry = json.RawMessage(entry)
		w := windows[s.SessionID]
		s.WindowReason, s.Previous = w[0], w[1]
		_, s.Cold = cold[s.SessionID]
		named[s.SessionID] = true
		out = append(out, s)
	}
	return out, named, nr.Err()
}

// SessionList is Sessions without the transcript statistics (Events, Bytes
// and LastActivity are 0), which cost a read of every event: a caller that
// reads each session anyway counts them itself. Orphan transcripts are found
// by one seek on the transcript_events primary key per session, and come
// after the named sessions in id order.
func (d *DB) SessionList(ctx context.Context) ([]Session, error) {
	var out []Session
	err := d.ReadTx(ctx, func(tx *sql.Tx) error {
		out = nil
		windows, err := d.sessionWindows(ctx, tx)
		if err != nil {
			return err
		}
		cold, err := d.coldIndex(ctx, tx)
		if err != nil {
			return err
		}
		var named map[string]bool
		if out, named, err = sessionNodes(ctx, tx, windows, cold); err != nil {
			return err
		}
		// Cold transcripts no session_nodes row names (an earlier
		// generation archived whole), in id order; they have no hot rows.
		coldIDs := make([]string, 0, len(cold))
		for id := range cold {
			if !named[id] {
				coldIDs = append(coldIDs, id)
			}
		}
		sort.Strings(coldIDs)
		for _, id := range coldIDs {
			w := windows[id]
			out = append(out, Session{SessionID: id, WindowReason: w[0], Previous: w[1], Orphan: true, Cold: true})
			named[id] = true
		}
		// Distinct transcript ids, each the smallest after the previous one.
		var id sql.NullString
		if err := tx.QueryRowContext(ctx, "SELECT min(session_id) FROM transcript_events").Scan(&id); err != nil {
			return err
		}
		for id.Valid {
			if !named[id.String] {
				w := windows[id.String]
				out = append(out, Session{SessionID: id.String, WindowReason: w[0], Previous: w[1], Orphan: true})
			}
			prev := id.String
			if err := tx.QueryRowContext(ctx, "SELECT min(session_id) FROM transcript_events WHERE session_id > ?", prev).Scan(&id); err != nil {
				return err
			}
			if id.Valid && id.String <= prev {
				break // a non-text id sorts after every text one: no text id follows
			}
		}
		return nil
	})
	return out, err
}

// Events reads a session's transcript rows in seq order, in one read
// transaction, calling fn for each; zstd rows are decompressed (each within
// the run's budget while fn has it; a row 2026.9.6 cannot read ends the
// read with a *DamagedRowError). The cached navigation state is read in the
// same snapshot. Each Event's JSON is fn's to keep. reset (may be nil) is
// called before the rows are handed out again from the first one: a read
// that found the database changed under it starts over (see ReadTx).
func (d *DB) Events(ctx context.Context, sessionID string, reset func(), fn func(Event) error) (*IndexState, error) {
	return d.RawEvents(ctx, sessionID, reset, func(ev Event) error {
		if ev.JSON == nil && ev.Zstd != nil {
			if err := d.CheckEvent(sessionID, ev); err != nil {
				return err
			}
			if err := d.budget.Acquire(ctx, ev.UTF8Bytes); err != nil {
				return fmt.Errorf("session %s seq %d: %w", sessionID, ev.Seq, err)
			}
			defer d.budget.Release(ev.UTF8Bytes)
			js, err := d.DecodeEvent(sessionID, ev, nil)
			if err != nil {
				return err
			}
			ev.JSON, ev.Zstd = js, nil
			return fn(ev)
		}
		ev.JSON = bytes.Clone(ev.JSON)
		ev.Zstd = nil
		return fn(ev)
	})
}

// RawEvents is Events without a copy or a decompression per row: an
// Event's JSON (and Zstd) is valid only during the call of fn, and a zstd
// row comes as stored (JSON nil, Zstd and UTF8Bytes set): DecodeEvent
// decodes it. Events of a cold transcript come decoded from its archive
// (which counts against the run's budget while it is read).
func (d *DB) RawEvents(ctx context.Context, sessionID string, reset func(), fn func(Event) error) (*IndexState, error) {
	hasState := d.HasTable("session_transcript_index_state")
	hasActive := d.HasTable("session_transcript_active_events")
	r := &eventReader{d: d, sessionID: sessionID, fn: fn}
	defer r.releaseCold()
	first := true
	err := d.readTx(ctx, func(tx *sql.Tx, src *source) error {
		if !first && reset != nil {
			reset()
		}
		first = false
		r.start(tx, src)
		// The cold marker and the hot rows are read in one snapshot
		// (readHotSessionTranscriptSnapshot in 9.6).
		if err := r.readCold(ctx); err != nil {
			return err
		}
		if err := r.hotRows(ctx); err != nil {
			return err
		}
		if err := r.emitColdBefore(0, true); err != nil {
			return err
		}
		if hasState {
			if err := r.readIndexState(ctx); err != nil {
				return err
			}
		}
		if hasActive {
			if err := r.readActiveSeqs(ctx); err != nil {
				return err
			}
		}
		r.coldNavigation()
		return nil
	})
	if err == nil && r.coldErr != nil {
		err = r.coldErr
	}
	return r.state, err
}

// eventReader is one RawEvents call: the session, the caller's fn, the
// navigation state being filled, and the session's cold archive with the
// archived events not yet handed to fn.
type eventReader struct {
	d          *DB
	tx         *sql.Tx
	src        *source
	sessionID  string
	fn         func(Event) error
	state      *IndexState
	cold       *coldTranscript
	coldErr    error // the archive does not read or verify
	coldEvents []Event
	coldHeld   int64 // budget held for the decoded archive
}

// start begins an attempt on tx: nothing of an earlier one is kept.
func (r *eventReader) start(tx *sql.Tx, src *source) {
	r.releaseCold()
	r.tx, r.src = tx, src
	r.state, r.cold, r.coldErr, r.coldEvents = &IndexState{}, nil, nil, nil
}

// releaseCold gives back the budget the decoded archive held.
func (r *eventReader) releaseCold() {
	r.d.budget.Release(r.coldHeld)
	r.coldHeld = 0
}

// readCold reads the session's cold marker and, when there is one, its
// archive (an archive that does not read is r.coldErr, reported after the
// hot rows).
func (r *eventReader) readCold(ctx context.Context) error {
	c, blob, found, err := r.d.coldRow(ctx, r.tx, r.src, r.sessionID)
	if err != nil {
		return err
	}
	if !found {
		return nil
	}
	r.state.Cold = &ColdSource{Archive: c, Path: r.d.coldWhere(c)}
	// the archive decodes to at most MaxColdArchiveBytes, held until the
	// read ends
	if err := r.d.budget.Acquire(ctx, MaxColdArchiveBytes); err != nil {
		if ctx.Err() != nil {
			return err
		}
		r.coldErr = &ColdArchiveError{SessionID: c.SessionID, Where: r.d.coldWhere(c), Reason: "not read: " + oneLineErr(err)}
		return nil
	}
	r.coldHeld = MaxColdArchiveBytes
	if r.cold, r.coldErr = r.d.readColdArchive(c, blob); r.coldErr == nil {
		r.state.Cold.Events, r.state.Cold.Verified = len(r.cold.events), true
		r.coldEvents = r.cold.events
	}
	return nil
}

// emitColdBefore hands fn the archived events up to seq (all of them when
// all is set): archived events come in seq order before any hot row with a
// higher seq (9.6 leaves none beside a cold row).
func (r *eventReader) emitColdBefore(seq int64, all bool) error {
	for len(r.coldEvents) > 0 && (all || r.coldEvents[0].Seq <= seq) {
		if !all && r.coldEvents[0].Seq == seq {
			r.state.Cold.SeqClashes++
		}
		if err := r.fn(r.coldEvents[0]); err != nil {
			return err
		}
		r.coldEvents = r.coldEvents[1:]
	}
	return nil
}

// hotRowsQuery reads a session's transcript_events rows in seq order, in
// four columns (each column costs the driver and database/sql work per
// row): seq; what the row holds (rowPlain: event_json; rowNeither: neither
// value; else a zstd row's event_utf8_bytes, or -1 when that is not an
// integer or the schema has none); the bytes of event_json or else of
// event_zstd; created_at.
func (d *DB) hotRowsQuery() string {
	// In a UTF-8 database a TEXT value's bytes are the stored bytes: reading
	// it as a BLOB hands them over without the driver's string conversion.
	jcol := "event_json"
	if d.utf8 {
		jcol = "CAST(event_json AS BLOB)"
	}
	kind := fmt.Sprintf("CASE WHEN event_json IS NOT NULL THEN %d ELSE %d END", rowPlain, rowNeither)
	payload := jcol
	if d.HasColumn("transcript_events", "event_zstd") {
		claim := "-1"
		if d.HasColumn("transcript_events", "event_utf8_bytes") {
			claim = "CASE WHEN typeof(event_utf8_bytes) = 'integer' THEN event_utf8_bytes ELSE -1 END"
		}
		kind = fmt.Sprintf("CASE WHEN event_json IS NOT NULL THEN %d WHEN event_zstd IS NULL THEN %d ELSE %s END", rowPlain, rowNeither, claim)
		payload = "coalesce(" + jcol + ", event_zstd)"
	}
	return "SELECT seq, " + kind + ", " + payload + ", created_at FROM transcript_events WHERE session_id = ? ORDER BY seq"
}

// What hotRowsQuery's second column says besides a zstd row's claim (a
// claim is -1 or more).
const (
	rowPlain   = -2
	rowNeither = -3
)

const (
	indexStateQuery   = "SELECT indexed_seq, leaf_event_id, needs_rebuild, active_event_count, active_message_count FROM session_transcript_index_state WHERE session_id = ?"
	activeEventsQuery = "SELECT event_seq FROM session_transcript_active_events WHERE session_id = ? ORDER BY active_position"
	coldRowQuery      = "SELECT " + coldColumns + " FROM session_transcript_cold_archives WHERE session_id = ?"
)

// hotRows hands fn the session's transcript_events rows in seq order, each
// after the archived events before it. The values are scanned into
// sql.RawBytes: they point into the driver's copy of the row, valid until
// the next one.
func (r *eventReader) hotRows(ctx context.Context) error {
	rows, err := query(ctx, r.tx, r.src, r.d.hotRowsQuery(), r.sessionID)
	if err != nil {
		return err
	}
	defer rows.Close()
	var payload sql.RawBytes
	var kind int64
	for rows.Next() {
		var ev Event
		if err := rows.Scan(&ev.Seq, &kind, &payload, &ev.CreatedAt); err != nil {
			return err
		}
		switch kind {
		case rowPlain:
			ev.JSON = payload
		case rowNeither:
			return fmt.Errorf("session %s seq %d: row has neither event_json nor event_zstd", r.sessionID, ev.Seq)
		default:
			// an empty event_zstd is still a zstd row (out of 9.6's bounds)
			ev.Zstd, ev.UTF8Bytes = payload, kind
			if ev.Zstd == nil {
				ev.Zstd = []byte{}
			}
		}
		if r.state.Cold != nil {
			r.state.Cold.HotRows++
			if err := r.emitColdBefore(ev.Seq, false); err != nil {
				return err
			}
		}
		if err := r.fn(ev); err != nil {
			return err
		}
	}
	return rows.Err()
}

// readIndexState reads the session's session_transcript_index_state row, if
// any.
func (r *eventReader) readIndexState(ctx context.Context) error {
	state := r.state
	var leaf sql.NullString
	var rebuild int
	err := queryRow(ctx, r.tx, r.src, indexStateQuery, r.sessionID).
		Scan(&state.IndexedSeq, &leaf, &rebuild, &state.ActiveEventCount, &state.ActiveMessageCount)
	switch {
	case err == sql.ErrNoRows:
	case err != nil:
		return err
	default:
		state.Present, state.LeafEventID, state.NeedsRebuild = true, leaf.String, rebuild != 0
	}
	return nil
}

// readActiveSeqs reads the session's active events' seqs in active order.
func (r *eventReader) readActiveSeqs(ctx context.Context) error {
	ar, err := query(ctx, r.tx, r.src, activeEventsQuery, r.sessionID)
	if err != nil {
		return err
	}
	defer ar.Close()
	for ar.Next() {
		var s int64
		if err := ar.Scan(&s); err != nil {
			return err
		}
		r.state.ActiveSeqs = append(r.state.ActiveSeqs, s)
	}
	return ar.Err()
}

// coldNavigation takes a cold transcript's navigation state from its archive
// when the database has none: the restore inserts the archive's rows back.
func (r *eventReader) coldNavigation() {
	if r.cold != nil && !r.state.Present && len(r.state.ActiveSeqs) == 0 {
		src := r.state.Cold
		*r.state = *r.cold.state
		r.state.Cold = src
	}
}

// sessionWindows reads session_windows (when the schema has it): session id
// -> [reason, previous session id].
func (d *DB) sessionWindows(ctx context.Context, tx *sql.Tx) (map[string][2]string, error) {
	windows := map[string][2]string{}
	if !d.HasTable("session_windows") {
		return windows, nil
	}
	wr, err := tx.QueryContext(ctx, "SELECT session_id, coalesce(reason,''), coalesce(previous_session_id,'') FROM session_windows")
	if err != nil {
		return nil, err
	}
	defer wr.Close()
	for wr.Next() {
		var id, reason, prev string
		if err := wr.Scan(&id, &reason, &prev); err != nil {
			return nil, err
		}
		windows[id] = [2]string{reason, prev}
	}
	return windows, wr.Err()
}
