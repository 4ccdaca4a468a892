package context96

import (
	"fmt"
	"sort"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/store/nav96"
)

// DefaultContextTokens is the token budget 9.6's embedded runner reads a
// session with when none is configured (resolveEmbeddedSessionContextLimits,
// dist/builtin-openclaw-*.mjs: `contextTokenBudget ?? 128e3`).
const DefaultContextTokens = 128000

// Limits bound the session 9.6's embedded runner reads.
type Limits struct {
	MaxBytes  int
	MaxEvents int
}

// LimitsFor is resolveEmbeddedSessionContextLimits: maxBytes =
// min(64 MiB, max(1024, budget*8)), maxEvents 10000.
func LimitsFor(tokens int) Limits {
	b := tokens * 8
	if tokens > 67108864/8 {
		b = 67108864
	}
	if b < 1024 {
		b = 1024
	}
	return Limits{MaxBytes: b, MaxEvents: 10000}
}

// BoundedRows are the rows 9.6's bounded read hands the session manager
// (SessionManager.openAsync(target, cwd, limits) → openBoundedAsync →
// readSessionTranscriptBoundedActiveContextCore, dist/
// session-accessor.sqlite-active-context-*.mjs): the header, then the newest
// context-eligible active events while their stored sizes fit, then the
// latest compaction/reset if it is not among them and still fits (first).
//
// A row costs its stored UTF-8 bytes plus one
// (transcriptEventReadBytesSql + 1: event_utf8_bytes, the length of the
// event_json 9.6 stores, which is the row oc reads); the header is charged
// first and is an error when it alone is too big. The walk goes from the
// newest active event back (session_transcript_active_events ordered by
// active_position desc, limit maxEvents+1) and stops at the first event
// that does not fit or at maxEvents events. An event whose message has
// excludeFromContext === true is not context_eligible and is skipped.
//
// The rows come back in seq order, an injected boundary first. truncated
// says whether anything eligible was left out.
func BoundedRows(rows [][]byte, limits Limits) (out [][]byte, truncated bool, err error) {
	if limits.MaxBytes <= 0 || limits.MaxEvents <= 0 {
		return nil, false, fmt.Errorf("context limits must be positive: %d bytes, %d events", limits.MaxBytes, limits.MaxEvents)
	}
	recs := make([]*nav96.Record, len(rows))
	for i, l := range rows {
		recs[i] = nav96.Parse(l)
	}
	res := nav96.AnalyzeRecords(recs)
	header := -1
	for i, r := range recs {
		if r.Header() {
			header = i
			break
		}
	}
	bytes := 0
	if header >= 0 {
		bytes = storedBytes(rows[header]) + 1
		if bytes > limits.MaxBytes {
			return nil, false, fmt.Errorf("session transcript header exceeds the active-context byte limit (%d bytes > %d)", bytes, limits.MaxBytes)
		}
	}
	var selected []int
	chosen := map[int]bool{}
	for k := len(res.ActiveEvents) - 1; k >= 0; k-- {
		i := res.ActiveEvents[k]
		if recs[i].ExcludedFromContext() {
			continue
		}
		size := storedBytes(rows[i]) + 1
		if len(selected) >= limits.MaxEvents || bytes+size > limits.MaxBytes {
			truncated = true
			break
		}
		selected = append(selected, i)
		chosen[i] = true
		bytes += size
	}
	sort.Ints(selected)
	boundary := -1
	for k := len(res.ActiveEvents) - 1; k >= 0; k-- {
		if i := res.ActiveEvents[k]; recs[i].Boundary() {
			boundary = i
			break
		}
	}
	injected := false
	if boundary >= 0 && !chosen[boundary] {
		if size := storedBytes(rows[boundary]) + 1; bytes+size <= limits.MaxBytes {
			selected = append([]int{boundary}, selected...)
			injected = true
		} else {
			truncated = true
		}
	}
	if header >= 0 {
		out = append(out, rows[header])
	}
	evRecs := make([]*nav96.Record, len(selected)) // the rows as handed over
	for p, i := range selected {
		row := rows[i]
		evRecs[p] = recs[i]
		if fk, ok := firstKeptOf(recs, res.ActiveEvents, selected, p); ok {
			if row, err = withFirstKept(row, fk); err != nil {
				return nil, false, fmt.Errorf("row %d: %w", i+1, err)
			}
			evRecs[p] = nav96.Parse(row)
		}
		out = append(out, row)
	}
	// A boundary whose first kept entry is an id the read skipped takes
	// the entry the session manager resolves it to (nav96.OpaqueFirstKept).
	events := out[len(out)-len(selected):]
	for k, id := range nav96.OpaqueFirstKept(evRecs, injected, res.Leaf) {
		if events[k], err = withFirstKept(events[k], id); err != nil {
			return nil, false, fmt.Errorf("row %d: %w", selected[k]+1, err)
		}
	}
	return out, truncated, nil
}

// firstKeptOf is the first kept entry 9.6's bounded session manager gives
// the boundary at selected[p] (readBoundedRetentionRanges in
// session-accessor.sqlite-active-context, applied as boundedFirstKeptById
// by the SessionManager constructor): the boundary's firstKeptEntryId is
// located (among the selected rows, else among the active events up to the
// last selected row); the range runs from the first selected row at or
// after it to the boundary, and its first indexed entry is kept first (the
// boundary itself when there is none, as when an injected boundary comes
// first). ok is false when the boundary keeps its own firstKeptEntryId.
func firstKeptOf(recs []*nav96.Record, active, selected []int, p int) (string, bool) {
	b := recs[selected[p]]
	fk, ok := b.FirstKept()
	if !b.Boundary() || !ok {
		return "", false
	}
	first, found := -1, false
	for _, i := range selected {
		if recs[i].ID() == fk {
			first, found = i, true
		}
	}
	if !found {
		last := selected[len(selected)-1]
		for _, i := range active {
			if i <= last && recs[i].ID() == fk {
				first, found = i, true
			}
		}
	}
	if !found {
		return "", false
	}
	start := 0
	if !(p > 0 && selected[0] >= first) {
		start = min(1, p)
		for start < p && selected[start] < first {
			start++
		}
	}
	kept := b.ID()
	for k := start; k < p; k++ {
		if recs[selected[k]].Indexed() {
			kept = recs[selected[k]].ID()
			break
		}
	}
	return kept, kept != fk
}

// withFirstKept is a boundary row with another firstKeptEntryId.
func withFirstKept(row []byte, id string) ([]byte, error) {
	v, err := jsjson.Parse(row)
	if err != nil {
		return nil, fmt.Errorf("boundary: %w", err)
	}
	obj, ok := v.(*jsjson.Object)
	if !ok {
		return nil, fmt.Errorf("boundary is not an object")
	}
	obj.Set("firstKeptEntryId", id)
	return jsjson.Marshal(obj)
}

// BuildBounded is Build over the rows 9.6's bounded read keeps
// (BoundedRows): the context the embedded runner starts from.
func BuildBounded(rows [][]byte, limits Limits) (*Session, error) {
	kept, _, err := BoundedRows(rows, limits)
	if err != nil {
		return nil, err
	}
	return Build(kept)
}

// storedBytes is event_utf8_bytes of a row: the UTF-8 length of the
// event_json 9.6 stores, JSON.stringify of the parsed entry (a file's line
// may be spaced or escaped differently; a stored row is already that text).
func storedBytes(row []byte) int {
	v, err := jsjson.Parse(row)
	if err != nil {
		return len(row)
	}
	b, err := jsjson.Marshal(v)
	if err != nil {
		return len(row)
	}
	return len(b)
}
