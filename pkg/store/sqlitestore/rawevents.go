package sqlitestore

// rawEvents is RawEvents of a hot transcript through a rawConn: the same
// queries in one read transaction, each value converted as database/sql's
// Scan converts it (its errors included), so that what fn and the caller
// get is what the database/sql reader gives. cold is set, and nothing is
// read, when the session has a cold row: RawEvents then reads it through
// database/sql, which reads the archive.
func (d *DB) rawEvents(sessionID string, fn func(Event) error) (st *IndexState, err error, cold bool) {
	r := &eventReader{d: d, sessionID: sessionID, fn: fn, state: &IndexState{}}
	err = d.rawTx(func(c *rawConn) error {
		if d.HasTable("session_transcript_cold_archives") {
			rows, err := c.query(coldRowQuery, sessionID)
			if err != nil {
				return err
			}
			cold = rows.next()
			if err := rows.close(); err != nil || cold {
				return err
			}
		}
		if err := r.rawHotRows(c); err != nil {
			return err
		}
		if d.HasTable("session_transcript_index_state") {
			if err := r.rawIndexState(c); err != nil {
				return err
			}
		}
		if d.HasTable("session_transcript_active_events") {
			return r.rawActiveSeqs(c)
		}
		return nil
	})
	if cold && err == nil {
		return nil, nil, true
	}
	return r.state, err, false
}

// rawHotRows is hotRows (of a session without a cold row) on c: an Event's
// JSON points into SQLite's copy of the value, valid until the next step.
func (r *eventReader) rawHotRows(c *rawConn) error {
	rows, err := c.query(r.d.hotRowsQuery(), r.sessionID)
	if err != nil {
		return err
	}
	defer rows.close()
	var zbuf []byte
	for rows.next() {
		var ev Event
		if ev.Seq, err = rows.int64At(0, "seq"); err != nil {
			return err
		}
		if ev.CreatedAt, err = rows.int64At(4, "created_at"); err != nil {
			return err
		}
		if zbuf, err = r.eventJSON(&ev, rows.isNull(2), rows.bytes(2), rows.rawBytes(3), zbuf); err != nil {
			return err
		}
		if err := r.fn(ev); err != nil {
			return err
		}
	}
	return rows.err
}

// rawIndexState is readIndexState on c.
func (r *eventReader) rawIndexState(c *rawConn) error {
	rows, err := c.query(indexStateQuery, r.sessionID)
	if err != nil {
		return err
	}
	defer rows.close()
	if !rows.next() {
		return rows.err // no row: no cached navigation
	}
	state := r.state
	if state.IndexedSeq, err = rows.int64At(0, "indexed_seq"); err != nil {
		return err
	}
	leaf, err := rows.nullStringAt(1, "leaf_event_id")
	if err != nil {
		return err
	}
	rebuild, err := rows.intAt(2, "needs_rebuild")
	if err != nil {
		return err
	}
	if state.ActiveEventCount, err = rows.intAt(3, "active_event_count"); err != nil {
		return err
	}
	if state.ActiveMessageCount, err = rows.intAt(4, "active_message_count"); err != nil {
		return err
	}
	state.Present, state.LeafEventID, state.NeedsRebuild = true, leaf.String, rebuild != 0
	return nil
}

// rawActiveSeqs is readActiveSeqs on c.
func (r *eventReader) rawActiveSeqs(c *rawConn) error {
	rows, err := c.query(activeEventsQuery, r.sessionID)
	if err != nil {
		return err
	}
	defer rows.close()
	for rows.next() {
		s, err := rows.int64At(0, "event_seq")
		if err != nil {
			return err
		}
		r.state.ActiveSeqs = append(r.state.ActiveSeqs, s)
	}
	return rows.err
}
