package sqlitestore

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/klauspost/compress/zstd"
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
}

// Event is one transcript_events row.
type Event struct {
	Seq       int64
	JSON      []byte // event JSON, decompressed when stored as zstd
	Zstd      bool
	CreatedAt int64
}

// Sessions lists the sessions of an agent database: every session_nodes row
// and every transcript that no row names (orphans), in key order.
func (d *DB) Sessions() ([]Session, error) {
	var out []Session
	err := d.ReadTx(func(tx *sql.Tx) error {
		sizeExpr := "length(CAST(event_json AS BLOB))"
		if d.HasColumn("transcript_events", "event_zstd") {
			sizeExpr = "coalesce(length(CAST(event_json AS BLOB)), event_utf8_bytes)"
		}
		stats := map[string][3]int64{}
		rows, err := tx.Query("SELECT session_id, count(*), sum(" + sizeExpr + "), max(created_at) FROM transcript_events GROUP BY session_id")
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
		windows := map[string][2]string{}
		if d.HasTable("session_windows") {
			wr, err := tx.Query("SELECT session_id, coalesce(reason,''), coalesce(previous_session_id,'') FROM session_windows")
			if err != nil {
				return err
			}
			for wr.Next() {
				var id, reason, prev string
				if err := wr.Scan(&id, &reason, &prev); err != nil {
					wr.Close()
					return err
				}
				windows[id] = [2]string{reason, prev}
			}
			wr.Close()
		}
		nr, err := tx.Query("SELECT session_key, current_session_id, entry_json, updated_at FROM session_nodes ORDER BY session_key")
		if err != nil {
			return err
		}
		named := map[string]bool{}
		for nr.Next() {
			var s Session
			var entry string
			if err := nr.Scan(&s.Key, &s.SessionID, &entry, &s.UpdatedAt); err != nil {
				nr.Close()
				return err
			}
			s.Entry = json.RawMessage(entry)
			st := stats[s.SessionID]
			s.Events, s.Bytes, s.LastActivity = int(st[0]), st[1], st[2]
			w := windows[s.SessionID]
			s.WindowReason, s.Previous = w[0], w[1]
			named[s.SessionID] = true
			out = append(out, s)
		}
		nr.Close()
		for id, st := range stats {
			if named[id] {
				continue
			}
			w := windows[id]
			out = append(out, Session{SessionID: id, Events: int(st[0]), Bytes: st[1], LastActivity: st[2], WindowReason: w[0], Previous: w[1], Orphan: true})
		}
		return nil
	})
	return out, err
}

func (d *DB) zstdDecoder() (*zstd.Decoder, error) {
	d.decOnce.Do(func() {
		d.dec, d.decErr = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(64<<20))
	})
	return d.dec, d.decErr
}

// Events reads a session's transcript rows in seq order, in one read
// transaction, calling fn for each; zstd rows are decompressed. The cached
// navigation state is read in the same snapshot.
func (d *DB) Events(sessionID string, fn func(Event) error) (*IndexState, error) {
	hasZstd := d.HasColumn("transcript_events", "event_zstd")
	hasState := d.HasTable("session_transcript_index_state")
	hasActive := d.HasTable("session_transcript_active_events")
	state := &IndexState{}
	err := d.ReadTx(func(tx *sql.Tx) error {
		q := "SELECT seq, event_json, NULL, created_at FROM transcript_events WHERE session_id = ? ORDER BY seq"
		if hasZstd {
			q = "SELECT seq, event_json, event_zstd, created_at FROM transcript_events WHERE session_id = ? ORDER BY seq"
		}
		rows, err := tx.Query(q, sessionID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var ev Event
			var js sql.RawBytes
			var zs sql.RawBytes
			if err := rows.Scan(&ev.Seq, &js, &zs, &ev.CreatedAt); err != nil {
				return err
			}
			if js != nil {
				ev.JSON = bytes.Clone(js)
			} else if zs != nil {
				dec, err := d.zstdDecoder()
				if err != nil {
					return err
				}
				out, err := dec.DecodeAll(zs, nil)
				if err != nil {
					return fmt.Errorf("session %s seq %d: zstd event does not decode: %w", sessionID, ev.Seq, err)
				}
				ev.JSON, ev.Zstd = out, true
			} else {
				return fmt.Errorf("session %s seq %d: row has neither event_json nor event_zstd", sessionID, ev.Seq)
			}
			if err := fn(ev); err != nil {
				return err
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		if hasState {
			var leaf sql.NullString
			var rebuild int
			err := tx.QueryRow("SELECT indexed_seq, leaf_event_id, needs_rebuild, active_event_count, active_message_count FROM session_transcript_index_state WHERE session_id = ?", sessionID).
				Scan(&state.IndexedSeq, &leaf, &rebuild, &state.ActiveEventCount, &state.ActiveMessageCount)
			switch {
			case err == sql.ErrNoRows:
			case err != nil:
				return err
			default:
				state.Present, state.LeafEventID, state.NeedsRebuild = true, leaf.String, rebuild != 0
			}
		}
		if hasActive {
			ar, err := tx.Query("SELECT event_seq FROM session_transcript_active_events WHERE session_id = ? ORDER BY active_position", sessionID)
			if err != nil {
				return err
			}
			defer ar.Close()
			for ar.Next() {
				var s int64
				if err := ar.Scan(&s); err != nil {
					return err
				}
				state.ActiveSeqs = append(state.ActiveSeqs, s)
			}
			return ar.Err()
		}
		return nil
	})
	return state, err
}

// ColdArchive is a session_transcript_cold_archives row.
type ColdArchive struct {
	SessionID   string `json:"sessionId"`
	ArchiveName string `json:"archiveName"`
	Storage     string `json:"storage"`
	EventCount  int    `json:"eventCount"`
	LastSeq     int64  `json:"lastSeq"`
}

// ColdArchives lists the cold archives (history moved out of transcript_events).
func (d *DB) ColdArchives() ([]ColdArchive, error) {
	if !d.HasTable("session_transcript_cold_archives") {
		return nil, nil
	}
	var out []ColdArchive
	err := d.ReadTx(func(tx *sql.Tx) error {
		rows, err := tx.Query("SELECT session_id, archive_name, storage, event_count, last_seq FROM session_transcript_cold_archives ORDER BY session_id")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c ColdArchive
			if err := rows.Scan(&c.SessionID, &c.ArchiveName, &c.Storage, &c.EventCount, &c.LastSeq); err != nil {
				return err
			}
			out = append(out, c)
		}
		return rows.Err()
	})
	return out, err
}
