package repair

import (
	"bytes"

	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// entryTypes are the top-level "type" values of transcript entries. A value
// salvaged from a damaged line must carry one of them, so that a content block
// ({"type":"text",...}) inside a cut-off entry is never mistaken for an entry.
var entryTypes = map[string]bool{
	"session": true, "message": true, "thinking_level_change": true, "model_change": true,
	"compaction": true, "branch_summary": true, "custom": true, "custom_message": true,
	"label": true, "session_info": true,
}

// maxSalvageCandidates bounds the work on one damaged line.
const maxSalvageCandidates = 512

var entryStart = []byte(`{"type":"`)

// salvaged is what a damaged line still holds.
type salvaged struct {
	pieces   [][2]int // complete entries, in order
	garbage  int      // non-white-space bytes outside the pieces
	nuls     int      // NUL bytes among them
	between  bool     // some garbage sits between or before pieces (not only after)
	fragment []fragment
}

// fragment is what can be read of a cut-off entry.
type fragment struct {
	fields map[string][]byte // type, id, parentId, timestamp, version, cwd (raw values)
}

func (f fragment) typ() string {
	s, _ := jsonl.StringValue(f.fields["type"])
	return s
}

// salvage looks for complete entries inside a line JSON.parse rejects: entries
// glued together, entries behind NUL bytes or garbage, an entry behind the cut-off
// start of another.
func salvage(line []byte) salvaged {
	var s salvaged
	pos := 0
	tries := 0
	gapStart := 0
	for pos < len(line) && tries < maxSalvageCandidates {
		k := bytes.Index(line[pos:], entryStart)
		if k < 0 {
			break
		}
		start := pos + k
		tries++
		end := jsonl.SkipValue(line, start)
		if end > 0 && jsonl.Valid(line[start:end]) {
			e := ParseEntry(line[start:end])
			if t, ok := jsonl.StringValue(e.Type); ok && jsonl.ValueKind(e.Type) == '"' && entryTypes[t] {
				s.noteGap(line[gapStart:start], len(s.pieces) > 0)
				if hasGarbage(line[gapStart:start]) {
					s.between = true
				}
				s.pieces = append(s.pieces, [2]int{start, end})
				pos, gapStart = end, end
				continue
			}
		}
		pos = start + 1
	}
	s.noteGap(line[gapStart:], true)
	return s
}

func hasGarbage(b []byte) bool {
	for _, c := range b {
		if !jsonl.IsSpace(c) {
			return true
		}
	}
	return false
}

// noteGap counts the garbage in b and reads any cut-off entry in it.
func (s *salvaged) noteGap(b []byte, _ bool) {
	for _, c := range b {
		if !jsonl.IsSpace(c) {
			s.garbage++
			if c == 0 {
				s.nuls++
			}
		}
	}
	if f, ok := readFragment(b); ok {
		s.fragment = append(s.fragment, f)
	}
}

// readFragment reads the members of a cut-off entry up to where it breaks.
func readFragment(b []byte) (fragment, bool) {
	i := bytes.IndexByte(b, '{')
	for tries := 0; i >= 0 && tries < 64; tries++ {
		f := fragment{fields: map[string][]byte{}}
		jsonl.EachMember(b, i, func(m jsonl.Member) bool {
			for _, k := range []string{"type", "id", "parentId", "timestamp", "version", "cwd"} {
				if jsonl.KeyIs(m.Key, k) {
					f.fields[k] = append([]byte(nil), b[m.Start:m.End]...) // b is the reader's buffer
				}
			}
			return true
		})
		if t := f.typ(); entryTypes[t] {
			return f, true
		}
		j := bytes.IndexByte(b[i+1:], '{')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return fragment{}, false
}
