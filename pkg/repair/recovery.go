package repair

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// Recovery marks a transcript that no sessions.json entry names. OpenClaw
// 2026.8+'s one-time import into SQLite (2026.9.6: readLegacyPrimaryTranscriptIdentity
// of doctor-session-sqlite-readers-*.mjs, called by the recovery candidates of
// doctor-session-sqlite-retirement-*.mjs) imports such a file as
// agent:<agent>:recovered:<id> only when every event is a JSON object it
// recognises, the first is a session header whose id is the file name's
// session id, the header version is 1 to 3, no second header follows, a
// message is there and no registered session already has the id. Otherwise
// it moves the whole file to its import archive without importing any of it.
//
// With Recovery set (default rule set only) the planner makes the file
// claimable where that loses no byte (every changed line goes to the
// quarantine file, the original to the backup) and reports the rest as
// unrepairable. A file without any message is left alone: the import
// archives it, but no conversation is in it.
type Recovery struct {
	// SessionID is the id the import reads from the file name
	// (extractGeneratedTranscriptSessionId of generated-transcript-session-id-*.mjs,
	// else the name without ".jsonl").
	SessionID string
	// Unrepairable, when set, is why no repair of the content can make the
	// import recover the file (the name gives no usable id, a registered
	// session already has the id): reported when the file holds a message.
	Unrepairable string
}

// recoveryState is the planner's bookkeeping for a Recovery file.
type recoveryState struct {
	messages int
	// dropped: the edits of non-entry lines (reverted when the file holds no message)
	dropped []*edit
	// issue: a content problem repair leaves alone (second header, version)
	issue string
}

// nonEntry reports why the import's recovery would not take the parsed value
// for a transcript record ("" when it would): a truthy value that is not an
// object, a trajectory record, or an object that is neither a session-entry
// shape nor a parent-linked record (parseParentLinkedOpaqueEntry,
// parseOpaqueLeafEntry of transcript-payload-*.mjs). Falsy values (null, 0,
// "", false) are skipped by the import's reader and never matter.
func nonEntry(e *Entry, version int) string {
	if !e.Object {
		if jsFalsy(e.B) {
			return ""
		}
		return "not a JSON object"
	}
	if jsonl.StringIs(e.Type, "session") {
		return "" // headers are handled by the file rules
	}
	trace := false
	jsonl.Members(e.B, func(k, _ []byte) bool {
		if string(k) == "traceSchema" {
			trace = true
			return false
		}
		return true
	})
	if trace {
		return "a trajectory record (traceSchema)"
	}
	id, idOK := jsonl.StringValue(e.ID)
	idOK = idOK && jsonl.ValueKind(e.ID) == '"' && id != ""
	parentOK := e.ParentID != nil && (jsonl.ValueKind(e.ParentID) == '"' || jsonl.ValueKind(e.ParentID) == 'n')
	if idOK && parentOK {
		// parentLinkedOpaqueEntrySchema (type not "session"/"leaf") or, for a
		// leaf, opaqueLeafEntrySchema (targetId a string or null)
		if !jsonl.StringIs(e.Type, "leaf") {
			return ""
		}
		ok := false
		jsonl.Members(e.B, func(k, v []byte) bool {
			if string(k) == "targetId" {
				kind := jsonl.ValueKind(v)
				ok = kind == '"' || kind == 'n'
			}
			return true
		})
		if ok {
			return ""
		}
	}
	// classifySessionFileEntry: a known entry type with a readable message
	// (an indexed entry needs a string id; a format-1/2 transcript's does not)
	t, _ := jsonl.StringValue(e.Type)
	if entryTypes[t] && t != "session" && (idOK || version < 3) && (t != "message" || e.messageHasFields() && jsonl.ValueKind(e.Role) == '"') {
		return ""
	}
	return "not a transcript entry (no id and parentId, no known entry type)"
}

// jsFalsy reports whether a JSON value is falsy in JavaScript.
func jsFalsy(b []byte) bool {
	t := bytes.TrimSpace(b)
	switch {
	case bytes.Equal(t, []byte("null")), bytes.Equal(t, []byte("false")), bytes.Equal(t, []byte(`""`)):
		return true
	case len(t) > 0 && (t[0] == '-' || t[0] >= '0' && t[0] <= '9'):
		f, err := strconv.ParseFloat(string(t), 64)
		return err == nil && f == 0
	}
	return false
}

// recoveryEntry runs the recovery rule on one parsed value; it reports
// whether the value was dropped.
func (pl *planner) recoveryEntry(ln jsonl.Line, ed *edit, e *Entry) bool {
	r := pl.rec
	if r == nil {
		return false
	}
	if e.IsMessage() {
		r.messages++
	}
	version := 1
	if pl.first != nil && pl.first.IsHeader() {
		version = headerVersion(pl.first)
	}
	if pl.first != nil && e.Object && jsonl.StringIs(e.Type, "session") && r.issue == "" {
		r.issue = fmt.Sprintf("a second session header at line %d (two transcripts in one file?): OpenClaw 2026.8+ keeps this file in its import archive without importing it; split it by hand", ln.Num)
	}
	why := nonEntry(e, version)
	if why == "" {
		return false
	}
	if ed == nil {
		ed = pl.replaceEdit(ln)
		r.dropped = append(r.dropped, ed) // a whole line: taken back if the file holds no message
	}
	ed.add(RuleRecoveryNonEntry, 1, why)
	return true
}

// revertRecovery takes the non-entry quarantines back from a file without
// any message: the import archives it whatever oc does, and no conversation
// is in it. It reports whether the recovery rules still apply.
func (pl *planner) revertRecovery() bool {
	r := pl.rec
	if r == nil {
		return false
	}
	if r.messages > 0 && pl.first != nil {
		return true
	}
	for _, ed := range r.dropped {
		ed.hits = withoutRule(ed.hits, RuleRecoveryNonEntry)
		if len(ed.hits) == 0 && len(ed.pieces) == 0 {
			delete(pl.editAt, ed.line)
		}
	}
	pl.rec = nil
	return false
}

// headerVersion is the import's reading of a header's version:
// `typeof raw.version === "number" ? raw.version : 1`; -1 when it is a
// number the import refuses (not an integer from 1 to 3).
func headerVersion(h *Entry) int {
	v := 1
	jsonl.Members(h.B, func(k, val []byte) bool {
		if string(k) == "version" && jsonl.ValueKind(val) != '"' {
			if f, err := strconv.ParseFloat(string(bytes.TrimSpace(val)), 64); err == nil {
				if f != float64(int(f)) || f < 1 || f > 3 {
					v = -1
				} else {
					v = int(f)
				}
			}
		}
		return true
	})
	return v
}

// finishRecovery runs the file part of the recovery rules once the whole
// file was read (after revertRecovery): it gives a header the file name's
// session id and records what repair cannot fix.
func (pl *planner) finishRecovery() {
	r := pl.rec
	if r == nil || pl.first == nil {
		return
	}
	switch {
	case pl.opts.Recovery.Unrepairable != "":
		pl.plan.recovery = pl.opts.Recovery.Unrepairable
		return
	case r.issue != "":
		pl.plan.recovery = r.issue
		return
	}
	h := pl.first
	if !h.IsHeader() || pl.headerIssue {
		return // rebuilt by the header rule, with the file name's id
	}
	if headerVersion(h) < 0 {
		pl.plan.recovery = "its session header has a version OpenClaw 2026.8+ does not import (not 1, 2 or 3): it keeps this file in its import archive without importing it"
		return
	}
	pl.setHeaderID(h)
}

// setHeaderID rewrites the header's "id" to the file name's session id,
// every other byte of the line kept.
func (pl *planner) setHeaderID(h *Entry) {
	want := pl.opts.Recovery.SessionID
	old, _ := h.IDString()
	if old == want {
		return
	}
	start, end := -1, -1
	jsonl.EachMember(h.B, 0, func(m jsonl.Member) bool {
		if jsonl.KeyIs(m.Key, "id") {
			start, end = m.Start, m.End // JSON.parse keeps the last of duplicate keys
		}
		return true
	})
	if start < 0 {
		return
	}
	out := make([]byte, 0, len(h.B)+len(want))
	out = append(out, h.B[:start]...)
	out = append(out, jsonString(want)...)
	out = append(out, h.B[end:]...)
	detail := fmt.Sprintf("header id %s differs from the file name's session id %s: set to the file name's (OpenClaw 2026.8+ recovers a transcript not in sessions.json only under its file name's id)", strconv.Quote(old), strconv.Quote(want))
	ed := pl.firstEdit
	if ed == nil || ed.keep {
		ed = pl.editAt[pl.firstLineNo]
		if ed == nil {
			ed = &edit{line: pl.firstLineNo, off: pl.firstOff, size: pl.firstSize, term: pl.firstTerm, keep: true}
			pl.editAt[ed.line] = ed
		}
		if ed.keep {
			ed.keep = false
			ed.orig = pl.firstLine
			ed.pieces = append([]piece{{b: out}}, ed.pieces...)
		}
	} else {
		ed.pieces[pl.firstPiece].b = out
	}
	ed.add(RuleRecoveryHeaderID, 1, detail)
}
