// Package upgrade predicts what OpenClaw 2026.9.6's one-time import of a
// JSONL-era state dir into SQLite (`openclaw doctor --fix`, run by
// `openclaw update`) does with each transcript: imported whole, only its
// readable prefix, nothing, as a recovered session, with rewritten ids, or left
// where it is. The rules are read from 9.6's compiled code (module names of
// openclaw@2026.9.6's dist/ are cited where each rule is applied) and checked
// against the 9.6 oracle's `import` (the tests of this package).
//
// Everything streams: a transcript is read once, in 64 KiB chunks as 9.6
// reads it; what is kept per file is a set of entry ids, never entry bodies.
package upgrade

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/store/nav96"
)

// chunkSize is JSONL_READ_CHUNK_BYTES of doctor-session-sqlite-readers-*.mjs:
// iterateJsonlLinesSync decodes each chunk with a fatal UTF-8 TextDecoder
// before splitting it into lines, so an invalid byte throws away every line
// that ends in its chunk, not just its own.
const chunkSize = 65536

// Outcome is what the import does with one file.
type Outcome string

const (
	// Whole: every readable entry is imported.
	Whole Outcome = "imported"
	// Partial: the import stops at a line it cannot read; later entries stay behind.
	Partial Outcome = "partial"
	// Nothing: no event is imported (damaged header, empty file, nothing readable).
	Nothing Outcome = "nothing"
	// Deferred: an unregistered transcript the import cannot claim (damaged,
	// header id differs from the file name, no messages): retained, not imported.
	Deferred Outcome = "deferred"
	// LeftInPlace: not a primary transcript (.reset./.deleted./.bak archives,
	// oc backups and quarantine files): the import neither reads nor moves it.
	LeftInPlace Outcome = "left-in-place"
	// ArchivedOnly: checkpoints and trajectories are moved to the import
	// archive but never imported.
	ArchivedOnly Outcome = "archived-not-imported"
)

// StopReason says why the import stopped reading a file.
type StopReason string

const (
	StopNone      StopReason = ""
	StopMalformed StopReason = "line does not parse" // JSON.parse throws
	StopUTF8      StopReason = "invalid UTF-8"       // the fatal TextDecoder throws on its chunk
)

// MessageRef names one message entry.
type MessageRef struct {
	Line int64  `json:"line"`
	ID   string `json:"id,omitempty"`
	Role string `json:"role,omitempty"`
}

// FileResult is the prediction for one transcript read as the session
// sessionID (the id the import stores it under).
type FileResult struct {
	// Lines is the number of physical lines ('\n'-separated, a final
	// unterminated fragment counts), as the oracle counts them.
	Lines int64 `json:"lines"`
	// Events is how many rows the reader hands to the store (before
	// deduplication); Keys how many distinct entry ids they carry (the
	// header counts as "session:<id>"): the oracle's importedEvents.
	Events int `json:"events"`
	Keys   int `json:"importedEvents"`
	// StopLine is the first line the import did not read (1-based), 0 when
	// it read to the end; StopReason why.
	StopLine   int64      `json:"stopLine,omitempty"`
	StopReason StopReason `json:"stopReason,omitempty"`
	// LeftBehind are the lines after the stop that JSON.parse accepts: valid
	// entries that stay behind in the archive. LeftBehindMessages counts the
	// message entries among them.
	LeftBehind         []int64 `json:"leftBehind,omitempty"`
	LeftBehindMessages int     `json:"leftBehindMessages,omitempty"`
	// Messages imported, and the last one that makes it.
	Messages    int         `json:"messages"`
	LastMessage *MessageRef `json:"lastMessage,omitempty"`
	// HeaderID is the header's id in the file ("" without a header);
	// HeaderRewritten when it differs from the session id (9.6 stores the
	// session id). HeaderVersion is the header's version (1 without).
	HeaderID        string `json:"headerId,omitempty"`
	HeaderRewritten bool   `json:"headerRewritten,omitempty"`
	HeaderVersion   int    `json:"headerVersion"`
	NoHeader        bool   `json:"noHeader,omitempty"`
	// IDsRewritten counts entries given new ids by the format-v1 migration
	// (no header, or a header older than version 2).
	IDsRewritten int `json:"idsRewritten,omitempty"`
	// Duplicates: entries whose id repeats an earlier entry's (stored once).
	Duplicates int `json:"duplicates,omitempty"`
	// Conflict names the first entry whose id repeats an earlier entry's
	// with different content, in a file read to its end: 9.6's doctor --fix
	// then refuses the migration of the whole state dir (see refusal.go).
	Conflict *IDConflict `json:"idConflict,omitempty"`
	// CodexTurns: messages stored with provider openai / api
	// openai-chatgpt-responses instead of openai-codex(-responses).
	CodexTurns int `json:"codexTurns,omitempty"`
	// Rewrites are what the import's re-serialisation changes in the lines
	// it stores (reserialise.go), the first maxRewrites of RewriteCount.
	Rewrites     []Rewrite `json:"rewrites,omitempty"`
	RewriteCount int       `json:"rewriteCount,omitempty"`
	// Unmatched are the valid lines whose entry id is not among the stored
	// events: LeftBehind plus the lines whose id the import rewrote. This is
	// what the oracle's `validLinesNotImported` lists (it matches by id).
	Unmatched []int64 `json:"unmatched,omitempty"`
	// firstEventIsHeader: the first event read is a session header (an
	// unregistered transcript is only claimed when it is).
	firstEventIsHeader bool
	// nonRecord: an event that is not a JSON object (or carries traceSchema):
	// readLegacyPrimaryTranscriptIdentity gives up on such a file.
	nonRecord bool
	// unrecognized: the first line (after the header) whose record the
	// recovery of an unregistered transcript does not recognise
	// (classifySessionFileEntry, parseOpaqueLeafEntry and
	// parseParentLinkedOpaqueEntry of transcript-payload-*.mjs all refuse it)
	unrecognized int64
	// extraHeader: the first session header after the first event
	extraHeader int64
	// badVersion: the first event is a header whose numeric version is not an
	// integer ("Unsupported primary transcript version")
	badVersion bool
	// valid: every line JSON.parse accepts
	valid []int64
}

// Lost reports whether valid entries stay behind.
func (r *FileResult) Lost() bool { return len(r.LeftBehind) > 0 }

type event struct {
	line    int64
	key     string
	session bool // an object with type "session"
	version int  // its version (1 when absent or not a number)
	legacy  bool // recognised by classifySessionFileEntry for a source version < 3
	idText  string
	sum     [16]byte // digest of the trimmed line, for repeated ids (refusal.go)
	record  bool     // a JSON object
	// indexed: an entry repairLegacyTranscript drops when it repeats the
	// latest with its id (isIndexedSessionEntry or a leaf control); worked
	// out only for ids that repeat (canonicalRepeats)
	indexed bool
}

// PredictFile reads path as 9.6's import reads the transcript of session
// sessionID (sessions.json's sessionId, or the header id of a recovered
// transcript), followed by doctor --fix's header repair
// (noteSessionTranscriptHeaderHealth, doctor-session-transcript-headers-*.mjs),
// which gives an imported header-less transcript a header.
func PredictFile(path, sessionID string) (*FileResult, error) {
	f, _, err := durable.OpenRegular(path) // a FIFO is refused, never opened blocking

	if err != nil {
		return nil, err
	}
	defer f.Close()
	res, err := predict(f, sessionID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

// canonicalRepeats reads again the lines of the events whose id repeats
// (rare; the common scan keeps its cheap digest of the raw line): each gets
// the digest of JSON.stringify(JSON.parse(line)), the form 9.6's
// repairLegacyTranscript compares (refusal.go), so that a repeat written
// with other white space or escapes is the exact repeat 9.6 drops, and
// whether 9.6 drops it at all (an indexed entry or a leaf control:
// nav96.Record).
func (p *predictor) canonicalRepeats(r io.ReadSeeker) error {
	count := map[string]int{}
	for _, ev := range p.events {
		if strings.HasPrefix(ev.key, "s:") {
			count[ev.key]++
		}
	}
	want := map[int64]int{} // line -> index in p.events
	for i, ev := range p.events {
		if count[ev.key] > 1 {
			want[ev.line] = i
		}
	}
	if len(want) == 0 {
		return nil
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return err
	}
	sc := jsonl.NewReader(r)
	for num := int64(1); len(want) > 0; num++ {
		line, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		i, ok := want[num]
		if !ok {
			continue
		}
		delete(want, num)
		text := jsTrim(line.Data)
		rec := nav96.Parse(text)
		p.events[i].indexed = rec.Indexed() || rec.LeafControl()
		v, err := jsjson.Parse(text)
		if err != nil {
			continue // the file changed since the scan; keep the raw digest
		}
		canon, err := jsjson.Marshal(v)
		if err != nil {
			continue
		}
		p.events[i].sum = lineSum(canon)
	}
	return nil
}

type predictor struct {
	res       FileResult
	sessionID string
	stopped   bool
	events    []event
	// valid lines in the oracle's sense: line number and id key
	validLines []lineKey
	headerV2   bool
	tape       jsjson.Tape // for rewrites
}

type lineKey struct {
	line int64
	key  string
}

func predict(r io.ReadSeeker, sessionID string) (*FileResult, error) {
	p := &predictor{sessionID: sessionID}
	p.res.HeaderVersion = 1
	var dec utf8Detector
	buf := make([]byte, chunkSize)
	var frag []byte
	var num int64
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			chunk := buf[:n]
			if !p.stopped && dec.feed(chunk) >= 0 {
				// iterateJsonlLinesSync: decoder.decode(chunk, {stream: true})
				// throws before the chunk is split; none of its lines is read.
				p.stopAt(num+1, StopUTF8)
			}
			for {
				i := bytes.IndexByte(chunk, '\n')
				if i < 0 {
					frag = append(frag, chunk...)
					break
				}
				num++
				var line []byte
				if len(frag) > 0 {
					frag = append(frag, chunk[:i]...)
					line = frag
				} else {
					line = chunk[:i]
				}
				p.line(num, line)
				frag = frag[:0]
				chunk = chunk[i+1:]
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			return nil, err
		}
	}
	if !p.stopped && dec.pending() {
		// the final decoder.decode() throws: the last fragment is never read
		p.stopAt(num+1, StopUTF8)
	}
	if len(frag) > 0 {
		num++
		p.line(num, frag)
	}
	p.res.Lines = num
	if !p.stopped {
		// only a file read to its end can be refused (refusal.go)
		if err := p.canonicalRepeats(r); err != nil {
			return nil, err
		}
	}
	p.finish()
	return &p.res, nil
}

func (p *predictor) stopAt(line int64, why StopReason) {
	p.stopped = true
	p.res.StopLine = line
	p.res.StopReason = why
}

// line handles one physical line (without its '\n'; a '\r' stays, as in the
// oracle's split("\n")).
func (p *predictor) line(num int64, raw []byte) {
	// The oracle's view (and JSON.parse's): the untrimmed line.
	blank := jsonl.IsBlank(raw)
	valid := !blank && jsonl.Valid(raw)
	if valid {
		p.validLines = append(p.validLines, lineKey{num, lineIDKey(raw, "o", num)})
	}
	if p.stopped {
		if valid {
			p.res.LeftBehind = append(p.res.LeftBehind, num)
			if isMessage(raw) {
				p.res.LeftBehindMessages++
			}
		}
		return
	}
	// 9.6's view, iterateTranscriptEvents (doctor-session-sqlite-readers-*.mjs):
	// `const text = line.trim(); if (text) yield text;` then
	// `const parsed = JSON.parse(line); if (!parsed) continue;` and the first
	// throw ends the file (allowMalformedPrefix: only the readable prefix).
	text := jsTrim(raw)
	if len(text) == 0 {
		return
	}
	// trimming changed nothing (the usual case): JSON.parse already answered
	if !(len(text) == len(raw) && valid || len(text) != len(raw) && jsonl.Valid(text)) {
		p.stopAt(num, StopMalformed) // (a line JSON.parse accepts untrimmed parses trimmed too)
		return
	}
	if falsy(text) {
		return
	}
	for _, rw := range rewrites(&p.tape, text) {
		p.res.RewriteCount++
		if len(p.res.Rewrites) < maxRewrites {
			rw.Line = num
			p.res.Rewrites = append(p.res.Rewrites, rw)
		}
	}
	p.event(num, text)
}

func (p *predictor) event(num int64, text []byte) {
	ev := event{line: num, version: 1, sum: lineSum(text)}
	first := len(p.events) == 0
	isObj := jsonl.ValueKind(text[jsonl.SkipSpace(text, 0):]) == '{'
	if !isObj {
		// opaque event (array, string, number, true): no id
		ev.key = "u"
		p.res.nonRecord = true
		p.events = append(p.events, ev)
		return
	}
	ev.record = true
	var typ, id, version, message []byte
	jsonl.Members(text, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ = v
		case "id":
			id = v
		case "version":
			version = v
		case "message":
			message = v
		case "traceSchema":
			p.res.nonRecord = true
		}
		return true
	})
	ev.session = jsonl.StringIs(typ, "session")
	if ev.session && !first && p.res.extraHeader == 0 {
		p.res.extraHeader = num
	}
	if !ev.session && !first && p.res.unrecognized == 0 && !recoverable(text, p.events[0]) {
		p.res.unrecognized = num
	}
	if ev.session {
		ev.key = sessionKey(id)
		if version != nil {
			if f, err := strconv.ParseFloat(string(version), 64); err == nil {
				ev.version = int(f)
				if float64(ev.version) != f {
					ev.version = 1 // not an integer: treated as a version < 2 by the planner's comparisons
					p.res.badVersion = first
				}
			}
		}
		ev.idText, _ = jsonl.StringValue(id)
	} else {
		ev.key = idKey(id, "s", num)
		if !p.headerV2 {
			// only a transcript without a version >= 2 header as its first
			// event can need the v1 id migration
			ev.legacy = legacyRecognized(text)
		}
		if jsonl.StringIs(typ, "message") {
			p.res.Messages++
			role, codex := messageInfo(message)
			idText, _ := jsonl.StringValue(id)
			p.res.LastMessage = &MessageRef{Line: num, ID: idText, Role: role}
			if codex {
				p.res.CodexTurns++
			}
		}
	}
	if first {
		p.res.firstEventIsHeader = ev.session
		p.headerV2 = ev.session && ev.version >= 2
	}
	p.events = append(p.events, ev)
}

// finish applies the import's per-file decisions (createTranscriptEventReader
// and planTranscriptImport of doctor-session-sqlite-readers-*.mjs) once the
// whole readable prefix is known.
func (p *predictor) finish() {
	res := &p.res
	res.Events = len(p.events)
	header := -1
	for i, ev := range p.events {
		if ev.session {
			header = i
			break
		}
	}
	version := 1
	if header >= 0 {
		version = p.events[header].version
		res.HeaderID = p.events[header].idText
		res.HeaderRewritten = res.HeaderID != p.sessionID
	} else {
		res.NoHeader = true
	}
	res.HeaderVersion = version
	stored := make(map[string]struct{}, len(p.events)+1)
	for i, ev := range p.events {
		key := ev.key
		switch {
		case i == header:
			// canonicalHeader: {...event, id: sessionId, type: "session"}
			key = "session:" + p.sessionID
		case version < 2 && !ev.session && ev.legacy:
			// migrateSessionFileEntryToCurrentVersion (session-manager-codec-*.mjs):
			// a v1 entry gets `${sha256(source path \0 sessionId)[:16]}-${index base36}`
			key = fmt.Sprintf("gen:%d", i)
			res.IDsRewritten++
		}
		if _, dup := stored[key]; dup && len(key) > 2 && key[:2] == "s:" {
			res.Duplicates++
		}
		stored[key] = struct{}{}
	}
	if res.StopLine == 0 {
		res.Conflict = findConflict(p.events, header, version, p.sessionID)
	}
	if header < 0 && len(p.events) > 0 {
		// doctor --fix prepends a v3 header to an imported header-less transcript
		stored["session:"+p.sessionID] = struct{}{}
	}
	res.Keys = len(stored)
	for _, vl := range p.validLines {
		res.valid = append(res.valid, vl.line)
		if _, ok := stored[vl.key]; !ok {
			res.Unmatched = append(res.Unmatched, vl.line)
		}
	}
}

// Outcome of the file when imported (registered, or recovered).
func (r *FileResult) Outcome() Outcome {
	switch {
	case r.Events == 0:
		return Nothing
	case r.Lost():
		return Partial
	}
	return Whole
}

// jsTrim is String.prototype.trim on the line's bytes (which decoded as UTF-8).
func jsTrim(b []byte) []byte {
	for len(b) > 0 {
		if c := b[0]; c < 0x80 {
			if c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' {
				b = b[1:]
				continue
			}
			break
		}
		r, n := utf8.DecodeRune(b)
		if !jsjson.IsSpace(r) {
			break
		}
		b = b[n:]
	}
	for len(b) > 0 {
		if c := b[len(b)-1]; c < 0x80 {
			if c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' {
				b = b[:len(b)-1]
				continue
			}
			break
		}
		r, n := utf8.DecodeLastRune(b)
		if !jsjson.IsSpace(r) {
			break
		}
		b = b[:len(b)-n]
	}
	return b
}

// falsy reports whether a valid JSON text parses to a falsy value
// (null, false, 0, ""): `if (!parsed) continue;` skips it without an index.
func falsy(text []byte) bool {
	t := text[jsonl.SkipSpace(text, 0):]
	switch {
	case bytes.HasPrefix(t, []byte("null")), bytes.HasPrefix(t, []byte("false")):
		return true
	case len(t) >= 2 && t[0] == '"' && t[1] == '"':
		return true
	case len(t) > 0 && (t[0] == '-' || (t[0] >= '0' && t[0] <= '9')):
		end := len(t)
		for end > 0 && jsonl.IsSpace(t[end-1]) {
			end--
		}
		f, _ := strconv.ParseFloat(string(t[:end]), 64)
		return f == 0
	}
	return false
}

// sessionKey is the oracle's `session:${v.id}` for a header.
func sessionKey(id []byte) string {
	if id == nil {
		return "session:undefined"
	}
	if s, ok := jsonl.StringValue(id); ok {
		return "session:" + s
	}
	return "session:" + string(id)
}

// idKey is a Map key for an entry's id as JavaScript compares them: strings
// and numbers by value, a missing id as undefined; object ids never match.
func idKey(id []byte, side string, num int64) string {
	if id == nil {
		return "u"
	}
	if s, ok := jsonl.StringValue(id); ok {
		return "s:" + s
	}
	switch jsonl.ValueKind(id) {
	case '{', '[':
		return fmt.Sprintf("obj:%s:%d", side, num)
	case 'n':
		return "null"
	case 't', 'f':
		return "b:" + string(id)
	}
	if f, err := strconv.ParseFloat(string(id), 64); err == nil {
		return "n:" + strconv.FormatFloat(f, 'g', -1, 64)
	}
	return "n:" + string(id)
}

// lineIDKey is the oracle's key for a valid line: `session:<id>` for a
// header, the id for other objects, undefined for anything else.
func lineIDKey(raw []byte, side string, num int64) string {
	t := raw[jsonl.SkipSpace(raw, 0):]
	if jsonl.ValueKind(t) != '{' {
		return "u"
	}
	var typ, id []byte
	jsonl.Members(raw, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ = v
		case "id":
			id = v
		}
		return true
	})
	if jsonl.StringIs(typ, "session") {
		return sessionKey(id)
	}
	return idKey(id, side, num)
}

func isMessage(raw []byte) bool {
	msg := false
	jsonl.Members(raw, func(k, v []byte) bool {
		if string(k) == "type" {
			msg = jsonl.StringIs(v, "message")
		}
		return true
	})
	return msg
}

// messageInfo returns a message's role and whether 9.6's import renames it
// (provider openai-codex or api openai-codex-responses become openai /
// openai-chatgpt-responses).
func messageInfo(message []byte) (role string, codex bool) {
	jsonl.Members(message, func(k, v []byte) bool {
		switch string(k) {
		case "role":
			role, _ = jsonl.StringValue(v)
		case "api":
			if jsonl.StringIs(v, "openai-codex-responses") {
				codex = true
			}
		case "provider":
			if jsonl.StringIs(v, "openai-codex") {
				codex = true
			}
		}
		return true
	})
	return role, codex
}
