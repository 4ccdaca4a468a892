package store

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/internal/budget"
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// ArchiveRef says that a Session is an archived generation of a SQLite
// session (a session_transcript_archives row of OpenClaw 2026.9.6), not its
// live transcript.
type ArchiveRef struct {
	Generation string `json:"generation"`
	Name       string `json:"archiveName"`
	Reason     string `json:"reason"`
}

// archiveNameRE is the shape of the names 9.6 gives archived generations
// (<id>.jsonl.deleted.<stamp>[.<generation>][.zst]): a SESSION argument
// of that shape is looked up among the archives before it is taken as a
// path.
var archiveNameRE = lazyre.New(`\.jsonl\.(deleted|reset)\.`)

// ArchivedSessions lists every agent database's archived generations (blobs
// not read), each as a Session with Archive set, in each database's order.
func (s *State) ArchivedSessions(ctx context.Context) ([]Session, error) {
	var out []Session
	for _, a := range s.AgentDBs {
		db, err := s.OpenAgentDB(ctx, a.Path)
		if err != nil {
			return nil, err
		}
		rows, err := db.TranscriptArchives(ctx)
		db.Close()
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out = append(out, archiveSession(a, r))
		}
	}
	return out, nil
}

func archiveSession(a AgentDB, r sqlitestore.TranscriptArchive) Session {
	return Session{Era: EraSQLite, Agent: a.Agent, Key: r.SessionKey, ID: r.SessionID, Path: a.Path, Bytes: r.BlobBytes,
		LastActivity: r.CreatedAt, Archive: &ArchiveRef{Generation: r.Generation, Name: r.Name, Reason: r.Reason}}
}

// resolveArchive finds the archived generation arg names: its archive_name,
// or "<sessionId>@<generation>" where either may be a unique prefix (an
// exact session id is preferred to a longer one it begins). found is false
// when none matches.
func (s *State) resolveArchive(ctx context.Context, arg string) (ses Session, found bool, err error) {
	all, err := s.ArchivedSessions(ctx)
	if err != nil {
		return Session{}, false, err
	}
	id, gen, hasAt := strings.Cut(arg, "@")
	var byName, exact, prefixed []Session
	for _, c := range all {
		switch {
		case c.Archive.Name == arg:
			byName = append(byName, c)
		case !hasAt || id == "" || gen == "" || !strings.HasPrefix(c.Archive.Generation, gen):
		case c.ID == id:
			exact = append(exact, c)
		case strings.HasPrefix(c.ID, id):
			prefixed = append(prefixed, c)
		}
	}
	for _, hits := range [][]Session{byName, exact, prefixed} {
		switch len(hits) {
		case 0:
			continue
		case 1:
			return hits[0], true, nil
		}
		return Session{}, false, &AmbiguousError{Arg: arg, Candidates: hits}
	}
	return Session{}, false, nil
}

// openArchive reads an archived generation's blob, verifies it and decodes
// it whole once (without keeping the text, at most MaxExportDecoded bytes
// of it), so that a damaged archive, or one over the limit, fails before
// anything is handed out, then opens its decoded text again.
func (s *State) openArchive(ctx context.Context, ses Session) (io.ReadCloser, error) {
	db, err := s.OpenAgentDB(ctx, ses.Path)
	if err != nil {
		return nil, err
	}
	defer db.Close() // the blob is copied out: the text is decoded from memory
	b, err := db.ReadArchive(ctx, ses.ID, ses.Archive.Generation)
	if err != nil {
		return nil, err
	}
	size, err := b.DecodedSize(ctx, s.opts.MaxExportDecoded)
	if err != nil {
		return nil, err
	}
	if size > s.opts.MaxExportDecoded {
		return nil, fmt.Errorf("%s: decodes to more than %d bytes (its blob is %d): %w (raise it with --max-decoded-size)", b.Where, s.opts.MaxExportDecoded, b.BlobBytes, ErrDecodedLimit)
	}
	return b.Decoded(ctx)
}

// exportArchive writes an archived generation's decoded text as it is
// decoded (whatever the length of its lines), a newline added after a last
// line without one; it returns the number of lines. A damaged archive
// writes nothing.
func (s *State) exportArchive(ctx context.Context, ses Session, w io.Writer) (int, error) {
	r, err := s.openArchive(ctx, ses)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	lw := &lineCounter{w: w}
	if _, err := io.Copy(lw, r); err != nil {
		return lw.lines, err
	}
	if lw.open {
		if _, err := w.Write([]byte("\n")); err != nil {
			return lw.lines, err
		}
		lw.lines++
	}
	return lw.lines, nil
}

// lineCounter counts the lines written through it; open is set while the
// last one has no newline yet.
type lineCounter struct {
	w     io.Writer
	lines int
	open  bool
}

func (c *lineCounter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.lines += bytes.Count(p[:n], []byte("\n"))
	if n > 0 {
		c.open = p[n-1] != '\n'
	}
	return n, err
}

// archiveRows hands fn the lines of an archived generation's transcript
// (line numbers as seq, each without its "\n", bytes as decoded), after
// openArchive's check: a damaged archive gives no line at all. The text is
// decoded as the lines are read, never held whole.
func (s *State) archiveRows(ctx context.Context, ses Session, fn func(seq int64, line []byte) error) error {
	r, err := s.openArchive(ctx, ses)
	if err != nil {
		return err
	}
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	var n int64
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			n++
			if ferr := fn(n, bytes.TrimSuffix(line, []byte("\n"))); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// ArchiveReport is one archived generation inspected: its row, whether its
// blob verifies, its derived .deleted/.reset file, and its transcript
// analysed as a session's is (the JSONL analysis and 2026.9.6's active
// branch).
type ArchiveReport struct {
	*transcript.Summary
	Era Era                           `json:"era"`
	Row sqlitestore.TranscriptArchive `json:"row"`
	// Where names the row's blob: "<db>#session_transcript_archives[<id>@<generation>].archive_blob".
	Where string `json:"where"`
	// Verified: the blob's sha256 is archive_sha256 and it decodes.
	Verified bool `json:"verified"`
	// Events is the number of lines of the decoded transcript.
	Events       int                     `json:"events"`
	DecodedBytes int64                   `json:"decodedBytes"`
	DerivedFile  sqlitestore.DerivedFile `json:"derivedFile"`
	Rules        string                  `json:"rules"`
}

// InspectArchive reads and analyses one archived generation (a Session
// with Archive set).
func (s *State) InspectArchive(ctx context.Context, ses Session) (*ArchiveReport, error) {
	if ses.Archive == nil {
		return nil, fmt.Errorf("%s: not an archived generation", ses.Label())
	}
	db, err := s.OpenAgentDB(ctx, ses.Path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	b, err := db.ReadArchive(ctx, ses.ID, ses.Archive.Generation)
	var ae *sqlitestore.ArchiveError
	if err != nil && !errors.As(err, &ae) {
		return nil, err
	}
	return inspectArchiveIn(ctx, db, s.budget, ses.Agent, b, ae, &sessionBuffers{})
}

// inspectArchiveIn analyses an archived generation read from db (damaged,
// when not nil, is why its blob cannot be trusted). Every problem of the
// archive is a finding; the error is for a transcript that cannot be
// analysed at all. The decoded text is held in bud while it is analysed.
func inspectArchiveIn(ctx context.Context, db *sqlitestore.DB, bud *budget.Bytes, agent string, b *sqlitestore.ArchiveBlob, damaged *sqlitestore.ArchiveError, buf *sessionBuffers) (*ArchiveReport, error) {
	rep := &ArchiveReport{Era: EraSQLite, Row: b.TranscriptArchive, Where: b.Where, Rules: "openclaw-2026.9.6", Summary: emptySummary()}
	rep.DerivedFile = db.CheckDerivedFile(b.TranscriptArchive)
	var findings []transcript.Finding
	tooBig, limit := false, int64(0)
	if damaged == nil {
		var held int64
		var err error
		held, tooBig, limit, err = decodeArchive(ctx, b, buf, bud)
		defer bud.Release(held)
		var ae *sqlitestore.ArchiveError
		switch {
		case errors.As(err, &ae):
			damaged = ae
		case err != nil:
			return nil, err
		}
	}
	switch {
	case damaged != nil:
		findings = append(findings, damagedFinding(damaged, rep))
	case tooBig:
		findings = append(findings, transcript.Finding{Rule: "sqlite-archive-too-large", Severity: transcript.SevWarning,
			Message: fmt.Sprintf("its transcript decodes to more than %d bytes, the most of it oc holds to analyse it (the run's budget for decoded data, less the decoder's window): not analysed, and not decoded past that; oc export %s streams it", max(limit, 0), b.Spec())})
	default:
		rep.Verified = true
		rows := splitRows(buf)
		an, err := analyzeRows(rows, buf)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Where, err)
		}
		rep.Summary, rep.Events, rep.DecodedBytes = an.sum, len(rows), int64(len(buf.text))
		rep.Summary.Size = an.size // the events' bytes, as a session's
		if why := headerMismatch(rows, b.SessionID); why != "" {
			findings = append(findings, transcript.Finding{Rule: "sqlite-archive-header", Severity: transcript.SevWarning,
				Message: why + ": OpenClaw 2026.9.6's archive reader refuses it (\"Archived transcript header does not match its registered session.\")"})
		}
	}
	rep.Summary.Path, rep.Summary.Agent, rep.Summary.Kind, rep.Summary.Archive = db.Path, agent, transcript.KindArchived, b.Reason
	rep.Summary.Compression = "plain"
	if b.Encoding == "zstd" {
		rep.Summary.Compression = "zstd"
	}
	findings = append(findings, publishFindings(rep)...)
	rep.Summary.AddFindings(findings)
	return rep, nil
}

// decodeArchive decodes b into buf.text (every line ending in a newline)
// within the run's budget: first it only counts the decoded bytes (holding
// the decoder's window), at most limit+1 of them, where limit is what the
// budget leaves beside the window; then, when the text fits, it takes the
// window and the text's size from the budget in one request (a worker never
// waits for budget while it holds some) and decodes again into buf. held
// is what the caller gives back after the analysis; tooBig says the text
// is over limit and was not kept.
func decodeArchive(ctx context.Context, b *sqlitestore.ArchiveBlob, buf *sessionBuffers, bud *budget.Bytes) (held int64, tooBig bool, limit int64, err error) {
	buf.text = buf.text[:0]
	window := b.WindowBytes()
	limit = bud.Size() - window - 1 // and a newline
	size, err := b.DecodedSize(ctx, max(limit, 0))
	if err != nil {
		return 0, false, limit, err
	}
	if size > limit {
		return 0, true, limit, nil
	}
	need := size + 1 // a newline added after a last line without one
	if err := bud.Acquire(ctx, window+need); err != nil {
		return 0, false, limit, err
	}
	defer bud.Release(window)
	r, err := b.Reader()
	if err != nil {
		bud.Release(need)
		return 0, false, limit, err
	}
	defer r.Close()
	if int64(cap(buf.text)) < need {
		buf.text = make([]byte, 0, need)
	}
	n, err := io.ReadFull(r, buf.text[:size])
	if err == nil {
		// the text must end where it did the first time
		var one [1]byte
		if k, _ := r.Read(one[:]); k > 0 {
			err = &sqlitestore.ArchiveError{Where: b.Where, Reason: "decodes to another size the second time"}
		}
	}
	if err != nil {
		bud.Release(need)
		var ae *sqlitestore.ArchiveError
		if errors.As(err, &ae) {
			return 0, false, limit, err
		}
		return 0, false, limit, &sqlitestore.ArchiveError{Where: b.Where, Reason: fmt.Sprintf("does not decompress after %d bytes (%s)", n, oneLine(err.Error()))}
	}
	buf.text = buf.text[:size]
	if len(buf.text) > 0 && buf.text[len(buf.text)-1] != '\n' {
		buf.text = append(buf.text, '\n')
	}
	return need, false, limit, nil
}

// splitRows makes the decoded lines rows (seq = line number), pointing into
// buf.text.
func splitRows(buf *sessionBuffers) []sqlitestore.Event {
	rows := buf.rows[:0]
	text := buf.text
	for n, start := int64(1), 0; start < len(text); n++ {
		end := start + bytes.IndexByte(text[start:], '\n')
		rows = append(rows, sqlitestore.Event{Seq: n, JSON: text[start:end:end]})
		start = end + 1
	}
	buf.rows = rows
	return rows
}

// headerMismatch is 9.6's check of an archived transcript
// (findArchivedFinal): the first non-blank line is a JSON object with type
// "session" and the row's session id. It says what is wrong, or "".
func headerMismatch(rows []sqlitestore.Event, sessionID string) string {
	for _, r := range rows {
		if len(bytes.TrimFunc(r.JSON, jsjson.IsSpace)) == 0 {
			continue
		}
		v, err := jsjson.Parse(r.JSON)
		o, ok := v.(*jsjson.Object)
		if err != nil || !ok {
			return fmt.Sprintf("its first line (%d) is not a JSON object", r.Seq)
		}
		typ, _ := o.Get("type")
		id, _ := o.Get("id")
		if typ != "session" {
			return fmt.Sprintf("its first line (%d) is not a session header", r.Seq)
		}
		if s, ok := id.(string); !ok {
			return fmt.Sprintf("its header has no string id (the row's session is %q)", sessionID)
		} else if s != sessionID {
			return fmt.Sprintf("its header names session %q, the row %q", s, sessionID)
		}
		return ""
	}
	return "it has no line"
}

// damagedFinding is the error finding of a blob that cannot be trusted or
// decoded; when the derived file still has the registered sha256, it says
// that the file holds the transcript.
func damagedFinding(damaged *sqlitestore.ArchiveError, rep *ArchiveReport) transcript.Finding {
	msg := oneLine(damaged.Error())
	if rep.DerivedFile.State == "same" {
		msg += fmt.Sprintf("; the derived file %s still has the registered sha256: it holds the transcript (oc export reads it by its path)", rep.DerivedFile.Path)
	}
	return transcript.Finding{Rule: "sqlite-archive-damaged", Severity: transcript.SevError, Message: msg}
}

// publishFindings: a row not published (with its attempts and last error),
// a derived file missing, different from the row or not a file, a name 9.6
// refuses to publish.
func publishFindings(rep *ArchiveReport) []transcript.Finding {
	a, f := rep.Row, rep.DerivedFile
	var out []transcript.Finding
	add := func(sev, rule, format string, args ...any) {
		out = append(out, transcript.Finding{Rule: rule, Severity: sev, Message: fmt.Sprintf(format, args...)})
	}
	if a.PublishedAt == nil {
		msg := "not published (published_at NULL): " + attempts(a)
		switch f.State {
		case "same":
			msg += fmt.Sprintf("; %s already has the row's bytes, so OpenClaw 2026.9.6 records it as published on its next pass", f.Path)
		case "missing":
			msg += fmt.Sprintf("; OpenClaw 2026.9.6 writes %s from the row on its next session deletion or history maintenance pass", f.Path)
		}
		if name, ok := sqlitestore.DerivedName(a); ok && name != a.Name {
			msg += fmt.Sprintf(" (renaming the row's archive_name %q)", a.Name)
		}
		add(transcript.SevWarning, "sqlite-archive-unpublished", "%s", msg)
	}
	switch f.State {
	case "missing":
		if a.PublishedAt != nil {
			add(transcript.SevWarning, "sqlite-archive-file-missing", "the derived file %s is missing (published %s): pruned by retention (which deletes the row next) or removed by hand; the row still holds the transcript (oc export %s writes it)", f.Path, stamp(*a.PublishedAt), a.Spec())
		}
	case "differs", "not-regular":
		what := "differs from the row: " + f.Detail
		if f.State == "not-regular" {
			what = "is " + f.Detail + ", not the row's bytes"
		}
		consequence := fmt.Sprintf("it changed after OpenClaw 2026.9.6 published it; oc export %s writes the row's transcript", a.Spec())
		if a.PublishedAt == nil {
			consequence = "OpenClaw 2026.9.6's publication fails on it (\"SQLite transcript archive collision\") until it is moved away"
		}
		add(transcript.SevError, "sqlite-archive-file-differs", "the derived file %s %s; %s", f.Path, what, consequence)
	case "unreadable":
		add(transcript.SevWarning, "sqlite-archive-file-unreadable", "the derived file %s cannot be read: %s", f.Path, f.Detail)
	case "invalid-name":
		add(transcript.SevError, "sqlite-archive-name", "%s: OpenClaw 2026.9.6 refuses to publish it (\"Cannot publish SQLite transcript archive outside\" the folder)", f.Detail)
	}
	return out
}

// attempts describes a pending row's publication attempts.
func attempts(a sqlitestore.TranscriptArchive) string {
	if a.PublishAttempts == 0 {
		return "never attempted"
	}
	s := fmt.Sprintf("%d attempts", a.PublishAttempts)
	if a.PublishAttempts == 1 {
		s = "1 attempt"
	}
	if a.LastPublishAttemptAt != nil {
		s += ", the last " + stamp(*a.LastPublishAttemptAt)
	}
	if a.LastPublishError != nil && *a.LastPublishError != "" {
		s += ", failed: " + oneLine(*a.LastPublishError)
	}
	return s
}

// stamp is a millisecond time in messages.
func stamp(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05Z") }

// LooksLikeArchiveName reports whether a SESSION argument has the shape of
// an archived generation's name (<id>.jsonl.deleted.<stamp>…, no folder):
// Resolve looks it up among the archives before taking it as a path.
func LooksLikeArchiveName(arg string) bool {
	return archiveNameRE().MatchString(arg) && !strings.ContainsAny(arg, `/\`)
}
