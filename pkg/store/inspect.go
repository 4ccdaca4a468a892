package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/openclaw-tools/oc/internal/budget"
	"github.com/openclaw-tools/oc/internal/grow"
	"github.com/openclaw-tools/oc/internal/parallel"
	"github.com/openclaw-tools/oc/pkg/store/nav96"
	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// ReplayNote is what replay says on a SQLite install until 2026.9.6's replay
// rules are implemented.
const ReplayNote = "replay follows 2026.5.6; 2026.9.6 rules not yet implemented"

// CacheCheck compares 9.6's cached navigation with oc's own computation.
type CacheCheck struct {
	Present          bool   `json:"present"`
	LeafEventID      string `json:"leafEventId"`
	NeedsRebuild     bool   `json:"needsRebuild"`
	ActiveEvents     int    `json:"activeEvents"`
	ActiveMessages   int    `json:"activeMessages"`
	LeafAgrees       bool   `json:"leafAgrees"`
	ActivePathAgrees bool   `json:"activePathAgrees"`
}

// SessionReport is one SQLite session inspected: the same analysis as a
// JSONL transcript (the rows fed to pkg/transcript's analyzer), with the
// active branch computed by 2026.9.6's rules, and the cache check.
type SessionReport struct {
	*transcript.Summary
	Era          Era         `json:"era"`
	Key          string      `json:"key,omitempty"`
	SessionID    string      `json:"sessionId"`
	Events       int         `json:"events"`
	LastActivity int64       `json:"lastActivity,omitempty"`
	Rules        string      `json:"rules"` // whose rules computed activeBranch
	Cache        *CacheCheck `json:"cache,omitempty"`
	// Cold is set when the transcript is in cold storage: its entries were
	// read from the archive (Cold.Events of them), as 2026.9.6 restores it.
	Cold *sqlitestore.ColdSource `json:"cold,omitempty"`
}

// InspectSession reads and analyses one SQLite session.
func (s *State) InspectSession(ctx context.Context, ses Session) (*SessionReport, error) {
	if ses.Era != EraSQLite {
		return nil, fmt.Errorf("%s: not a SQLite session", ses.Label())
	}
	db, err := s.OpenAgentDB(ctx, ses.Path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return inspectIn(ctx, db, s.budget, ses, &sessionBuffers{})
}

// sessionBuffers hold one session's rows while it is analysed; a worker
// reuses them for its next session (nothing in a report points into them).
type sessionBuffers struct {
	text []byte // the rows, each followed by a newline
	rows []sqlitestore.Event
	ends []int // rows[i] ends at text[ends[i]] (-1: a zstd row not decoded yet)
	// zstd rows held as stored until the session's decoded size is known:
	// rows[pending[k].row] is the one whose bytes are z[pending[k].from:pending[k].to]
	z       []byte
	pending []pendingRow
	spare   []byte // the other text buffer, for the rows with their zstd rows decoded
	// analyzeRows': the rows in header-first order, and their records for
	// 9.6's rules (recs point into slab)
	lines [][]byte
	slab  []nav96.Record
	recs  []*nav96.Record
}

// pendingRow is a zstd row kept as stored.
type pendingRow struct {
	row      int
	from, to int
	claim    int64 // event_utf8_bytes
}

// reset empties the buffers for a new read.
func (b *sessionBuffers) reset() {
	b.text, b.rows, b.ends, b.z, b.pending = b.text[:0], b.rows[:0], b.ends[:0], b.z[:0], b.pending[:0]
}

// appendRow copies row into b.text, growing it by doubling (grow.Cap).
func (b *sessionBuffers) appendRow(row []byte) int {
	b.text = append(grow.Cap(b.text, len(b.text)+len(row)+1, 64<<10), row...)
	end := len(b.text)
	b.text = append(b.text, '\n')
	return end
}

// inspectIn reads and analyses one session. Its rows are copied once into
// one buffer (the transcript the analyzer reads), a zstd row first as it
// is stored: once every row is read, the bytes the session decodes to (its
// zstd rows' event_utf8_bytes and its cold archive's events) are taken from
// the run's budget in one request, held until the analysis ends, and the
// zstd rows decoded into place. A row 2026.9.6 cannot read is a finding,
// left out of the analysis; a session that decodes to more than the whole
// budget is not analysed (a finding says so).
func inspectIn(ctx context.Context, db *sqlitestore.DB, bud *budget.Bytes, ses Session, b *sessionBuffers) (*SessionReport, error) {
	b.reset()
	lastActivity := int64(0)
	var damaged []*sqlitestore.DamagedRowError
	var claims int64
	reset := func() { b.reset(); lastActivity, damaged, claims = 0, nil, 0 }
	st, err := db.RawEvents(ctx, ses.ID, reset, func(ev sqlitestore.Event) error {
		lastActivity = max(lastActivity, ev.CreatedAt)
		if ev.JSON == nil && ev.Zstd != nil {
			var dr *sqlitestore.DamagedRowError
			if errors.As(db.CheckEvent(ses.ID, ev), &dr) {
				damaged = append(damaged, dr)
				return nil
			}
			b.pending = append(b.pending, pendingRow{row: len(b.rows), from: len(b.z), to: len(b.z) + len(ev.Zstd), claim: ev.UTF8Bytes})
			b.z = append(b.z, ev.Zstd...)
			claims += ev.UTF8Bytes
			b.ends = append(b.ends, -1)
		} else {
			b.ends = append(b.ends, b.appendRow(ev.JSON))
		}
		ev.JSON, ev.Zstd = nil, nil
		b.rows = append(b.rows, ev)
		return nil
	})
	// A cold archive 9.6 would refuse to restore is a finding of the
	// session (its hot rows, if any, are still analysed), not a failure.
	var coldErr *sqlitestore.ColdArchiveError
	if err != nil && !errors.As(err, &coldErr) {
		return nil, err
	}
	if ses.LastActivity == 0 {
		ses.LastActivity = lastActivity
	}
	rep := &SessionReport{Era: EraSQLite, Key: ses.Key, SessionID: ses.ID, LastActivity: ses.LastActivity, Rules: "openclaw-2026.9.6", Cold: st.Cold}
	need := claims
	if st.Cold != nil && st.Cold.Verified {
		need += st.Cold.Archive.EventBytes()
	}
	if len(b.pending) > 0 {
		if need > bud.Size() {
			rep.Summary = emptySummary()
			rep.Events = len(b.rows)
			rep.Summary.Path, rep.Summary.Agent, rep.Summary.Kind, rep.Summary.Compression = db.Path, ses.Agent, "sqlite", "sqlite"
			rep.Summary.AddFindings([]transcript.Finding{{Rule: "sqlite-session-too-large", Severity: transcript.SevWarning,
				Message: fmt.Sprintf("its compressed rows decode to %d bytes, more than oc holds at once to analyse a session (%d): not analysed, and not decoded; oc export streams it", need, bud.Size())}})
			rep.Summary.AddFindings(damagedRowFindings(damaged))
			return rep, nil
		}
		if err := bud.Acquire(ctx, need); err != nil {
			return nil, fmt.Errorf("%s: session %s: %w", db.Path, ses.Label(), err)
		}
		defer bud.Release(need)
		damaged = append(damaged, decodePending(db, ses.ID, b)...)
		sort.Slice(damaged, func(i, j int) bool { return damaged[i].Seq < damaged[j].Seq })
	}
	rows, ends, text := b.rows, b.ends, b.text
	start := 0
	for i, end := range ends {
		rows[i].JSON = text[start:end:end]
		start = end + 1
	}
	rep.Events = len(rows)
	an, err := analyzeRows(rows, b)
	if err != nil {
		return nil, fmt.Errorf("%s: session %s: %w", db.Path, ses.Label(), err)
	}
	rep.Summary = an.sum
	if len(rows) == 0 && st.Cold == nil && len(damaged) == 0 {
		rep.Summary.AddFindings([]transcript.Finding{{Rule: "no-transcript", Severity: transcript.SevWarning, Message: "the session has no transcript rows (its import found no readable header, or its file was missing)"}})
	}
	rep.Summary.Path, rep.Summary.Agent, rep.Summary.Kind, rep.Summary.Compression, rep.Summary.Size = db.Path, ses.Agent, "sqlite", "sqlite", an.size
	res, order := an.res, an.order
	rep.Cache = checkCache(st, res, rows, order)
	rep.Summary.AddFindings(damagedRowFindings(damaged))
	rep.Summary.AddFindings(coldFindings(st.Cold, coldErr))
	if coldErr == nil {
		rep.Summary.AddFindings(cacheFindings(rep.Cache))
	}
	return rep, nil
}

// decodePending decodes b's pending zstd rows into place: b.text becomes
// every row, in order, each followed by a newline; a row that does not
// decode to what it claims is left out (returned).
func decodePending(db *sqlitestore.DB, sessionID string, b *sessionBuffers) []*sqlitestore.DamagedRowError {
	var damaged []*sqlitestore.DamagedRowError
	size := len(b.text)
	for _, p := range b.pending {
		size += int(p.claim) + 1
	}
	out := grow.Cap(b.spare[:0], size, 64<<10)
	rows, ends := b.rows[:0], b.ends[:0]
	start, next := 0, 0
	for i, ev := range b.rows {
		end := b.ends[i]
		if end >= 0 {
			out = append(out, b.text[start:end+1]...)
			start = end + 1
		} else {
			p := b.pending[next]
			next++
			ev.Zstd, ev.UTF8Bytes = b.z[p.from:p.to], p.claim
			js, err := db.DecodeEvent(sessionID, ev, out[len(out):])
			ev.Zstd = nil
			var dr *sqlitestore.DamagedRowError
			if errors.As(err, &dr) {
				damaged = append(damaged, dr)
				continue
			}
			out = append(out, js...) // in place: js is out's spare capacity
			out = append(out, '\n')
		}
		rows = append(rows, ev)
		ends = append(ends, len(out)-1)
	}
	b.spare, b.text, b.rows, b.ends = b.text, out, rows, ends
	return damaged
}

// damagedRowFindings: the rows 2026.9.6 cannot read, the first ten named
// with why, the others counted.
func damagedRowFindings(damaged []*sqlitestore.DamagedRowError) []transcript.Finding {
	if len(damaged) == 0 {
		return nil
	}
	const named = 10
	var parts []string
	for i, d := range damaged {
		if i == named {
			parts = append(parts, fmt.Sprintf("and %d more", len(damaged)-named))
			break
		}
		parts = append(parts, fmt.Sprintf("seq %d: %s", d.Seq, d.Reason))
	}
	return []transcript.Finding{{Rule: "sqlite-event-damaged", Severity: transcript.SevError,
		Message: fmt.Sprintf("%d transcript_events rows of session %s that OpenClaw 2026.9.6 cannot read, left out of this analysis and not decoded further (9.6 fails to read the transcript): %s", len(damaged), oneLine(damaged[0].SessionID), strings.Join(parts, "; "))}}
}

// rowsAnalysis is what analyzeRows found.
type rowsAnalysis struct {
	sum   *transcript.Summary // Active is 2026.9.6's active branch
	res   *nav96.Result
	order []int // HeaderFirst(rows)
	size  int64 // the rows' bytes
}

// analyzeRows analyses a SQLite transcript's rows (in seq order, each JSON
// pointing into b.text, where every row is followed by a newline) as a JSONL
// transcript with the header first, and replaces the 2026.5.6 active branch
// with 2026.9.6's. No rows: an empty summary. b's lines and records are
// reused: nothing in the analysis points into them.
func analyzeRows(rows []sqlitestore.Event, b *sessionBuffers) (*rowsAnalysis, error) {
	text := b.text
	order := HeaderFirst(rows)
	b.lines = slices.Grow(b.lines[:0], len(rows))[:len(rows)]
	lines := b.lines
	var size int64
	reordered := false
	for k, i := range order {
		lines[k] = rows[i].JSON
		size += int64(len(rows[i].JSON))
		reordered = reordered || k != i
	}
	buf := text
	if reordered {
		buf = make([]byte, 0, len(text))
		for _, l := range lines {
			buf = append(append(buf, l...), '\n')
		}
	}
	// 9.6's rules read the members the analyzer decodes, in the same walk.
	nav := newNavRecords(lines, b)
	sum := emptySummary()
	if len(rows) > 0 {
		var err error
		if sum, err = transcript.AnalyzeBytesEach(buf, nav.add); err != nil {
			return nil, err
		}
	}
	// 9.6's active branch, replacing the 5.6 one the JSONL analyzer computed.
	res := nav96.AnalyzeRecords(nav.finish(sum))
	active := transcript.ActiveBranch{Leaf: res.Leaf, Entries: len(res.ActiveEvents), Messages: res.Messages}
	if res.LeafSeq >= 0 {
		active.LeafLine = int64(res.LeafSeq + 1)
	}
	sum.Active = active
	return &rowsAnalysis{sum: sum, res: res, order: order, size: size}, nil
}

func emptySummary() *transcript.Summary {
	return &transcript.Summary{ByType: map[string]int{}, ByRole: map[string]int{}, Providers: map[string]int{}, Models: map[string]int{}, APIs: map[string]int{}, Malformed: []int64{}, Findings: []transcript.Finding{}}
}

// coldFindings says where a cold transcript's entries came from, or why its
// archive cannot be read.
func coldFindings(c *sqlitestore.ColdSource, damaged *sqlitestore.ColdArchiveError) []transcript.Finding {
	if c == nil {
		return nil
	}
	var out []transcript.Finding
	if damaged != nil {
		out = append(out, transcript.Finding{Rule: "sqlite-cold-archive-damaged", Severity: transcript.SevError,
			Message: oneLine(damaged.Error()) + fmt.Sprintf(" (%d archived events not read)", c.Archive.EventCount)})
	} else {
		out = append(out, transcript.Finding{Rule: "sqlite-cold-transcript", Severity: transcript.SevInfo,
			Message: fmt.Sprintf("in cold storage: %d events (seq up to %d) read from %s, size, sha256 and contents verified; OpenClaw 2026.9.6 restores them into transcript_events on the next read", c.Events, c.Archive.LastSeq, c.Path)})
	}
	if c.HotRows > 0 {
		out = append(out, transcript.Finding{Rule: "sqlite-cold-and-hot", Severity: transcript.SevError,
			Message: fmt.Sprintf("%d transcript_events rows exist beside the cold archive (%d with a seq the archive also has): 2026.9.6 never leaves rows beside a cold archive, and its restore fails on a seq clash", c.HotRows, c.SeqClashes)})
	}
	return out
}

// navRecords builds the rows' records for 9.6's rules from the members the
// transcript analyzer hands out (line k of the analysed text is row k-1).
type navRecords struct {
	lines [][]byte
	slab  []nav96.Record // recs[i] is &slab[i] when the analyzer handed row i out
	recs  []*nav96.Record
}

// newNavRecords makes the records of lines in b's slab and list.
func newNavRecords(lines [][]byte, b *sessionBuffers) *navRecords {
	b.slab = slices.Grow(b.slab[:0], len(lines))[:len(lines)]
	b.recs = slices.Grow(b.recs[:0], len(lines))[:len(lines)]
	clear(b.recs)
	return &navRecords{lines: lines, slab: b.slab, recs: b.recs}
}

func (n *navRecords) add(m *transcript.LineMembers) {
	i := m.Line - 1
	if i < 0 || i >= int64(len(n.recs)) {
		return
	}
	r := &n.slab[i]
	n.recs[i] = r
	if !m.Object {
		*r = nav96.Record{}
		return
	}
	nav96.FromFieldsTo(r, &nav96.Fields{
		Type: m.Type, ID: m.ID, ParentID: m.ParentID, TargetID: m.TargetID, AppendParentID: m.AppendParentID,
		AppendMode: m.AppendMode, FirstKeptEntryID: m.FirstKeptEntryID, Summary: m.Summary, Reason: m.Reason,
		TokensBefore: m.TokensBefore, Message: m.Message, MessageMembers: m.MessageMembers,
		Role: m.Role, Content: m.Content, ExcludeFromContext: m.ExcludeFromContext, ToolCallID: m.ToolCallID, ToolUseID: m.ToolUseID,
	})
}

// finish parses what the analyzer did not hand out (blank and malformed
// rows, a first row behind a byte-order mark, which the analyzer reads past
// and 9.6 does not) and, when a row held a newline (so that lines are not
// rows), every row.
func (n *navRecords) finish(sum *transcript.Summary) []*nav96.Record {
	oneLinePerRow := sum.Lines == int64(len(n.lines))
	for i, l := range n.lines {
		if !oneLinePerRow || n.recs[i] == nil || i == 0 && bytes.HasPrefix(l, []byte("\xef\xbb\xbf")) {
			n.recs[i] = nav96.Parse(l)
		}
	}
	return n.recs
}

func checkCache(st *sqlitestore.IndexState, res *nav96.Result, rows []sqlitestore.Event, order []int) *CacheCheck {
	c := &CacheCheck{Present: st.Present, LeafEventID: st.LeafEventID, NeedsRebuild: st.NeedsRebuild, ActiveEvents: len(st.ActiveSeqs), ActiveMessages: st.ActiveMessageCount}
	if !st.Present {
		return c
	}
	c.LeafAgrees = st.LeafEventID == res.Leaf
	c.ActivePathAgrees = len(st.ActiveSeqs) == len(res.ActiveEvents)
	if c.ActivePathAgrees {
		for k, i := range res.ActiveEvents {
			if rows[order[i]].Seq != st.ActiveSeqs[k] {
				c.ActivePathAgrees = false
				break
			}
		}
	}
	return c
}

func cacheFindings(c *CacheCheck) []transcript.Finding {
	var out []transcript.Finding
	if !c.Present {
		return []transcript.Finding{{Rule: "sqlite-index-missing", Severity: transcript.SevInfo, Message: "no cached navigation (session_transcript_index_state); OpenClaw rebuilds it on the next read"}}
	}
	if c.NeedsRebuild {
		out = append(out, transcript.Finding{Rule: "sqlite-needs-rebuild", Severity: transcript.SevWarning, Message: "needs_rebuild is set: OpenClaw's cached active path is stale and is rebuilt on the next read"})
	}
	if !c.LeafAgrees {
		out = append(out, transcript.Finding{Rule: "sqlite-cached-leaf-disagrees", Severity: transcript.SevWarning, Message: fmt.Sprintf("cached leaf_event_id %q differs from the leaf by 2026.9.6's rules; OpenClaw's bounded reads follow the cache", c.LeafEventID)})
	}
	if !c.ActivePathAgrees {
		out = append(out, transcript.Finding{Rule: "sqlite-cached-path-disagrees", Severity: transcript.SevWarning, Message: fmt.Sprintf("cached active path (%d events) differs from the active branch by 2026.9.6's rules", c.ActiveEvents)})
	}
	return out
}

// DBReport is one agent database's health.
type DBReport struct {
	Agent            string                `json:"agent"`
	Path             string                `json:"path"`
	Schema           int                   `json:"schemaVersion"`
	MetaSchema       int                   `json:"schemaMetaVersion"`
	QuickCheck       string                `json:"quickCheck"`
	JournalMode      string                `json:"journalMode"`
	JournalSizeLimit int64                 `json:"journalSizeLimit"`
	DBBytes          int64                 `json:"dbBytes"`
	WALBytes         int64                 `json:"walBytes"`
	Sidecars         []sqlitestore.Sidecar `json:"sidecars"`
	CopyReason       string                `json:"privateCopy,omitempty"`
	Sessions         int                   `json:"sessions"`
	ColdArchives     int                   `json:"coldArchives"`
	// ArchivedGenerations counts the session_transcript_archives rows
	// (deleted/reset generations), UnpublishedArchives those whose derived
	// file 9.6 has not written (published_at NULL).
	ArchivedGenerations int    `json:"archivedGenerations"`
	UnpublishedArchives int    `json:"unpublishedArchives"`
	Error               string `json:"error,omitempty"`
}

// StateFinding is a finding about the state dir rather than one transcript.
type StateFinding struct {
	transcript.Finding
	Path string `json:"path,omitempty"`
}

// SQLiteReport is `oc inspect` of a SQLite-era (or mid-upgrade) state dir.
type SQLiteReport struct {
	Root      string           `json:"root"`
	Era       string           `json:"era"` // "sqlite" or "mid-upgrade" (databases and JSONL waiting for import)
	Databases []*DBReport      `json:"databases"`
	Sessions  []*SessionReport `json:"sessions"`
	// Archives are the archived generations, inspected with --archived
	// (InspectOptions.Archived); absent otherwise.
	Archives []*ArchiveReport       `json:"archives,omitempty"`
	Findings []StateFinding         `json:"findings"`
	Totals   transcript.Totals      `json:"totals"`
	Errors   []transcript.FileError `json:"errors,omitempty"`
}

// InspectOptions tune InspectSQLite.
type InspectOptions struct {
	Jobs       int
	Progress   func()
	QuickCheck bool
	// Archived: also read, verify and analyse every archived generation
	// (session_transcript_archives), into SQLiteReport.Archives.
	Archived bool
	// Agent, when set, inspects only that agent's database and JSONL
	// transcripts (--agent); Since (Unix ms, 0 for any) keeps only the
	// sessions active since then (--since).
	Agent string
	Since int64
}

// InspectSQLite inspects every agent database and session of the state dir.
// Once ctx is cancelled (SIGINT/SIGTERM), the sessions not yet started are
// left unread (as errors); the caller reports the run as interrupted.
func (s *State) InspectSQLite(ctx context.Context, opts InspectOptions) (*SQLiteReport, error) {
	rep := &SQLiteReport{Root: s.Root, Era: "sqlite", Databases: []*DBReport{}, Sessions: []*SessionReport{}, Findings: []StateFinding{},
		Totals: transcript.Totals{ByType: map[string]int{}, ByRole: map[string]int{}, Findings: map[string]int{}}}
	if opts.Archived {
		rep.Archives = []*ArchiveReport{}
	}
	for _, a := range s.AgentDBs {
		if opts.Agent != "" && a.Agent != opts.Agent {
			continue
		}
		dr, sessions, archives := s.inspectDB(ctx, a, opts, rep)
		rep.Databases = append(rep.Databases, dr)
		for _, ses := range sessions {
			if opts.Since > 0 && ses.LastActivity < opts.Since { // no activity at all is not activity since
				continue
			}
			rep.Sessions = append(rep.Sessions, ses)
		}
		rep.Archives = append(rep.Archives, archives...)
	}
	for _, ses := range rep.Sessions {
		if ses.Summary != nil {
			ses.Summary.Era, ses.Summary.Store, ses.Summary.Database = string(EraSQLite), ses.Path, ses.Path
		}
	}
	s.stateFindings(ctx, rep)
	if opts.Agent != "" {
		kept := rep.Findings[:0]
		for _, f := range rep.Findings {
			if a := agentOfPath(s.Root, f.Path); a == "" || a == opts.Agent {
				kept = append(kept, f)
			}
		}
		rep.Findings = kept
	}
	for _, ses := range rep.Sessions {
		t := &rep.Totals
		t.Transcripts++
		t.Entries += ses.Entries
		t.Messages += ses.Active.Messages
		t.Bytes += ses.Size
		for k, v := range ses.ByType {
			t.ByType[k] += v
		}
		for k, v := range ses.ByRole {
			t.ByRole[k] += v
		}
		for _, f := range ses.Findings {
			t.Findings[f.Severity]++
		}
	}
	for _, ar := range rep.Archives {
		for _, f := range ar.Findings {
			rep.Totals.Findings[f.Severity]++
		}
	}
	for _, f := range rep.Findings {
		rep.Totals.Findings[f.Severity]++
	}
	return rep, nil
}

func (s *State) inspectDB(ctx context.Context, a AgentDB, opts InspectOptions, rep *SQLiteReport) (*DBReport, []*SessionReport, []*ArchiveReport) {
	dr := &DBReport{Agent: a.Agent, Path: a.Path}
	dbf, wal, shm := sqlitestore.Sidecars(a.Path)
	dr.Sidecars = []sqlitestore.Sidecar{dbf, wal, shm}
	dr.DBBytes, dr.WALBytes = dbf.Size, wal.Size
	add := func(sev, rule, format string, args ...any) {
		rep.Findings = append(rep.Findings, StateFinding{Path: a.Path, Finding: transcript.Finding{Rule: rule, Severity: sev, Message: fmt.Sprintf(format, args...)}})
	}
	sidecarOwners(dbf, wal, shm, add)
	db, err := s.OpenAgentDB(ctx, a.Path)
	if err != nil {
		dr.Error = oneLine(err.Error())
		rep.Errors = append(rep.Errors, transcript.FileError{Path: a.Path, Error: dr.Error})
		return dr, nil, nil
	}
	defer db.Close()
	dr.Schema, dr.MetaSchema, dr.CopyReason = db.Schema, db.Meta, db.CopyReason
	if db.CopyReason != "" {
		add(transcript.SevInfo, "sqlite-private-copy", "read from a private copy: %s", db.CopyReason)
	}
	_ = db.ReadTx(ctx, func(tx *sql.Tx) error {
		_ = tx.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&dr.JournalMode)
		_ = tx.QueryRowContext(ctx, "PRAGMA journal_size_limit").Scan(&dr.JournalSizeLimit)
		return nil
	})
	// quick_check reads every page of the database: it runs beside the
	// sessions' reads (in its own read transaction, on its own connection),
	// and its finding keeps its place before the others.
	quick := make(chan string, 1)
	if opts.QuickCheck {
		go func() { quick <- quickCheck(ctx, db) }()
	}
	checked := false
	dbFindings := func() {
		if checked {
			return
		}
		checked = true
		if opts.QuickCheck {
			dr.QuickCheck = <-quick
			if dr.QuickCheck != "ok" {
				add(transcript.SevError, "sqlite-quick-check", "PRAGMA quick_check: %s", oneLine(dr.QuickCheck))
			}
		}
		if dr.JournalSizeLimit >= 0 && wal.Size > dr.JournalSizeLimit && dr.JournalMode == "wal" {
			add(transcript.SevWarning, "sqlite-wal-size", "-wal is %d bytes, over journal_size_limit %d: checkpoints are not keeping up (a reader holding a snapshot, or the gateway stopped mid-write)", wal.Size, dr.JournalSizeLimit)
		} else if wal.Size > 64<<20 {
			add(transcript.SevInfo, "sqlite-wal-size", "-wal is %d bytes (journal_size_limit %d)", wal.Size, dr.JournalSizeLimit)
		}
	}
	defer dbFindings() // before db.Close (deferred earlier, run later)
	rows, err := db.SessionList(ctx)
	if err != nil {
		dbFindings()
		dr.Error = oneLine(err.Error())
		rep.Errors = append(rep.Errors, transcript.FileError{Path: a.Path, Error: dr.Error})
		return dr, nil, nil
	}
	cold, coldErr := db.ColdArchives(ctx)
	if coldErr == nil {
		dr.ColdArchives = len(cold)
	}
	archives, archErr := db.TranscriptArchives(ctx)
	if archErr != nil {
		rep.Errors = append(rep.Errors, transcript.FileError{Path: a.Path, Error: oneLine(archErr.Error())})
	}
	dr.ArchivedGenerations = len(archives)
	for _, ar := range archives {
		if ar.PublishedAt == nil {
			dr.UnpublishedArchives++
		}
	}
	dr.Sessions = len(rows)
	out, errs := inspectSessions(ctx, db, s.budget, a, rows, opts)
	var archived []*ArchiveReport
	if opts.Archived {
		archived = inspectArchives(ctx, db, s.budget, a, archives, opts, rep)
	}
	dbFindings()
	return dr, keptSessions(a, rows, out, errs, rep), archived
}

// inspectArchives reads, verifies and analyses every archived generation of
// one database, opts.Jobs at a time; a row that vanished meanwhile (9.6's
// retention) or that cannot be read is one of the report's errors.
func inspectArchives(ctx context.Context, db *sqlitestore.DB, bud *budget.Bytes, a AgentDB, archives []sqlitestore.TranscriptArchive, opts InspectOptions, rep *SQLiteReport) []*ArchiveReport {
	out := make([]*ArchiveReport, len(archives))
	errs := make([]error, len(archives))
	buffers := make(chan *sessionBuffers, runtime.GOMAXPROCS(0)+max(opts.Jobs, 0))
	parallel.Each(len(archives), opts.Jobs, func(i int) {
		r := archives[i]
		if err := ctx.Err(); err != nil {
			errs[i] = fmt.Errorf("archived generation %s not read: %w", r.Spec(), err)
			return
		}
		b, err := db.ReadArchive(ctx, r.SessionID, r.Generation)
		var damaged *sqlitestore.ArchiveError
		if err != nil && !errors.As(err, &damaged) {
			errs[i] = err
			return
		}
		var buf *sessionBuffers
		select {
		case buf = <-buffers:
		default:
			buf = &sessionBuffers{}
		}
		out[i], errs[i] = inspectArchiveIn(ctx, db, bud, a.Agent, b, damaged, buf)
		select {
		case buffers <- buf:
		default:
		}
		if opts.Progress != nil {
			opts.Progress()
		}
	})
	var kept []*ArchiveReport
	for i, r := range out {
		if errs[i] != nil {
			rep.Errors = append(rep.Errors, transcript.FileError{Path: a.Path, Error: oneLine(errs[i].Error())})
			continue
		}
		kept = append(kept, r)
	}
	return kept
}

// sidecarOwners: a -wal or -shm owned by another user than the database.
func sidecarOwners(dbf, wal, shm sqlitestore.Sidecar, add func(sev, rule, format string, args ...any)) {
	for _, sc := range []sqlitestore.Sidecar{wal, shm} {
		if sc.Exists && sc.UID != dbf.UID {
			add(transcript.SevWarning, "sqlite-sidecar-owner", "%s is owned by uid %d, the database by uid %d: the gateway may fail to open it (run OpenClaw and oc as the database's owner)", filepath.Base(sc.Path), sc.UID, dbf.UID)
		}
	}
}

// inspectSessions reads and analyses every session of one database, opts.Jobs
// at a time; out[i] or errs[i] is the answer for rows[i].
func inspectSessions(ctx context.Context, db *sqlitestore.DB, bud *budget.Bytes, a AgentDB, rows []sqlitestore.Session, opts InspectOptions) ([]*SessionReport, []error) {
	out := make([]*SessionReport, len(rows))
	errs := make([]error, len(rows))
	// A free list, not a sync.Pool: every garbage collection empties a pool,
	// and a worker would then grow a new buffer for most sessions.
	buffers := make(chan *sessionBuffers, runtime.GOMAXPROCS(0)+max(opts.Jobs, 0))
	parallel.Each(len(rows), opts.Jobs, func(i int) {
		if err := ctx.Err(); err != nil {
			errs[i] = fmt.Errorf("session %s not read: %w", rows[i].SessionID, err)
			return
		}
		r := rows[i]
		// Events, Bytes and LastActivity are counted as the session is read.
		ses := Session{Era: EraSQLite, Agent: a.Agent, Key: r.Key, ID: r.SessionID, Path: a.Path, Index: r.Entry}
		var b *sessionBuffers
		select {
		case b = <-buffers:
		default:
			b = &sessionBuffers{}
		}
		out[i], errs[i] = inspectIn(ctx, db, bud, ses, b)
		select {
		case buffers <- b:
		default:
		}
		if opts.Progress != nil {
			opts.Progress()
		}
	})
	return out, errs
}

// keptSessions are the sessions that could be read (the others become the
// report's errors), orphans marked.
func keptSessions(a AgentDB, rows []sqlitestore.Session, out []*SessionReport, errs []error, rep *SQLiteReport) []*SessionReport {
	var kept []*SessionReport
	for i, r := range out {
		if errs[i] != nil {
			rep.Errors = append(rep.Errors, transcript.FileError{Path: a.Path, Error: oneLine(errs[i].Error())})
			continue
		}
		if rows[i].Orphan {
			r.AddFindings([]transcript.Finding{{Rule: "sqlite-orphan-transcript", Severity: transcript.SevWarning, Message: "transcript rows with no session_nodes row: no session key reaches them"}})
		}
		kept = append(kept, r)
	}
	return kept
}

// quickCheck is PRAGMA quick_check's answer as one line ("ok" when sound).
func quickCheck(ctx context.Context, db *sqlitestore.DB) string {
	out, err := db.QuickCheck(ctx)
	if err != nil {
		return oneLine(err.Error())
	}
	return out
}

// stateFindings: agent databases registered but missing and the reverse,
// JSONL transcripts still waiting for import (a mid-upgrade install).
func (s *State) stateFindings(ctx context.Context, rep *SQLiteReport) {
	add := func(sev, rule, path, format string, args ...any) {
		rep.Findings = append(rep.Findings, StateFinding{Path: path, Finding: transcript.Finding{Rule: rule, Severity: sev, Message: fmt.Sprintf(format, args...)}})
	}
	registered, err := s.RegisteredAgentDBs(ctx)
	switch {
	case err != nil:
		add(transcript.SevWarning, "sqlite-state-db", s.StateDBPath(), "%s", oneLine(err.Error()))
	case registered != nil:
		onDisk := map[string]bool{}
		for _, a := range s.AgentDBs {
			onDisk[filepath.Clean(a.Path)] = true
		}
		reg := map[string]bool{}
		for _, r := range registered {
			p := r.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(s.Root, p)
			}
			reg[filepath.Clean(p)] = true
			if _, err := os.Stat(p); err != nil {
				add(transcript.SevError, "sqlite-registered-db-missing", p, "agent %s's database is registered in state/openclaw.sqlite (agent_databases) but does not exist", r.Agent)
			}
		}
		for _, a := range s.AgentDBs {
			if !reg[filepath.Clean(a.Path)] {
				add(transcript.SevWarning, "sqlite-unregistered-db", a.Path, "agent %s's database is not registered in state/openclaw.sqlite (agent_databases)", a.Agent)
			}
		}
	}
	js, _ := s.JSONLSessions()
	pending := 0
	for _, j := range js {
		pending++
		add(transcript.SevWarning, "jsonl-awaiting-import", j.Path, "JSONL transcript still in the sessions folder: not imported into SQLite yet (openclaw doctor --fix imports it; oc repair first keeps what the import would leave behind)")
	}
	if pending > 0 {
		rep.Era = "mid-upgrade"
	}
	archived, _ := filepath.Glob(filepath.Join(s.Root, "agents", "*", "session-sqlite-import-archive", "*.imported-*"))
	if len(archived) > 0 {
		add(transcript.SevInfo, "jsonl-import-archive", filepath.Dir(archived[0]), "%d archived originals of imported transcripts (`oc export`/`oc inspect` read them as JSONL)", len(archived))
	}
	sort.SliceStable(rep.Findings, func(i, j int) bool { return rep.Findings[i].Path < rep.Findings[j].Path })
}

// RegisteredDB is an agent_databases row of state/openclaw.sqlite.
type RegisteredDB struct {
	Agent  string `json:"agent"`
	Path   string `json:"path"`
	Schema int    `json:"schemaVersion"`
}

// RegisteredAgentDBs reads agent_databases; nil without a state database.
func (s *State) RegisteredAgentDBs(ctx context.Context) ([]RegisteredDB, error) {
	out := []RegisteredDB{}
	found, err := s.readStateTable(ctx, "agent_databases", func(tx *sql.Tx) error {
		out = out[:0]
		rows, err := tx.QueryContext(ctx, "SELECT agent_id, path, schema_version FROM agent_databases ORDER BY agent_id, path")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r RegisteredDB
			if err := rows.Scan(&r.Agent, &r.Path, &r.Schema); err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	if !found {
		return nil, err
	}
	return out, err
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// agentOfPath is the agent whose folder holds p (root/agents/<id>/…), ""
// for a path elsewhere.
func agentOfPath(root, p string) string {
	rel, err := filepath.Rel(filepath.Join(root, "agents"), p)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return ""
	}
	id, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	return id
}
