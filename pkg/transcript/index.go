package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"

	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// Node is what the tree and the context need to know about one entry. The
// entry's bytes stay on disk; Offset and Line find them again.
type Node struct {
	Line     int64
	Offset   int64
	Type     string // "" when the type is missing or not a string
	ID       Key
	ParentID Key

	// Role of a message entry ("" otherwise).
	Role string
	// Provider and Model of an assistant message, or of a model_change.
	Provider, Model string
	// ThinkingLevel of a thinking_level_change (absent: ThinkingLevelSet false).
	ThinkingLevel    string
	ThinkingLevelSet bool
	// FirstKept is a compaction's firstKeptEntryId.
	FirstKept Key
	// SummaryTruthy: a branch_summary whose summary is a non-empty value.
	SummaryTruthy bool
	// NotObject: the line is valid JSON but not an object (a string, number, array...).
	NotObject bool
	// FileIndex is the entry's position among all parsed lines (the header is 0),
	// which version-1 compactions refer to by firstKeptEntryIndex.
	FileIndex int
	// FirstKeptIndex is a v1 compaction's firstKeptEntryIndex (-1: none).
	FirstKeptIndex int
	// Raw JSON of thinkingLevel / provider / model(Id), as OpenClaw passes them on.
	ThinkingLevelRaw, ProviderRaw, ModelRaw []byte
}

// Header is a transcript's first parsed line, when it is a session header.
type Header struct {
	Line      int64             `json:"line"`
	ID        string            `json:"id"`
	Version   gojson.Number     `json:"version,omitempty"`
	Timestamp string            `json:"timestamp,omitempty"`
	Cwd       string            `json:"cwd,omitempty"`
	Raw       gojson.RawMessage `json:"-"`
	version   float64
}

// Index is the result of one streaming pass over a transcript: the tree's
// skeleton, the header and which lines are malformed or blank.
type Index struct {
	Header *Header
	// FirstParsedLine is the line of the first line that parses (0: none does).
	FirstParsedLine int64
	// HeaderInvalid: some line parses, but the first that does is not a valid
	// session header, so OpenClaw ignores the whole file.
	HeaderInvalid  bool
	Nodes          []Node
	Malformed      []int64 // lines JSON.parse rejects
	Blank          int64
	Lines          int64
	Bytes          int64
	InvalidUTF8    []int64 // lines that parse but hold invalid UTF-8 (read as U+FFFD)
	CRLF           int64
	NoFinalNewline bool
	BOM            bool
	LongestLine    int64
}

// Observer sees every parsed entry of a scan. raw is the entry line's bytes
// (valid only during the call); e is its lenient decoding.
type Observer interface {
	Entry(n *Node, raw []byte, e *rawEntry)
}

// ScanOptions tune Scan.
type ScanOptions struct {
	Observer Observer
	// MaxLine fails the scan on a line longer than this many bytes (0: no limit).
	MaxLine int
}

// ErrNotTranscript is returned (wrapped) when no line of the input parses.
var ErrNotTranscript = errors.New("not an OpenClaw transcript")

// LineError is an error tied to a line of a file.
type LineError struct {
	Path string
	Line int64
	Err  error
}

func (e *LineError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

var bom = []byte{0xef, 0xbb, 0xbf}

// Scan reads a transcript once, line by line, and builds its Index. It never
// holds more than one line in memory besides the index itself.
func Scan(r io.Reader, opts ScanOptions) (*Index, error) {
	rd := jsonl.NewReader(r)
	if opts.MaxLine > 0 {
		rd.SetMaxLine(opts.MaxLine)
	}
	ix := &Index{}
	var e rawEntry
	parsed := 0
	for {
		line, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return ix, err
		}
		ix.Lines = line.Num
		ix.Bytes = line.Offset + line.Len()
		if int64(len(line.Data)) > ix.LongestLine {
			ix.LongestLine = int64(len(line.Data))
		}
		if line.Term == jsonl.TermCRLF {
			ix.CRLF++
		}
		ix.NoFinalNewline = line.Term == jsonl.TermNone
		data := line.Data
		if line.Num == 1 && bytes.HasPrefix(data, bom) {
			// JavaScript's String.trim removes a leading byte-order mark
			// before OpenClaw splits the file into lines.
			ix.BOM = true
			data = data[len(bom):]
		}
		if jsonl.IsBlank(data) {
			ix.Blank++
			continue
		}
		if !jsonl.Valid(data) {
			ix.Malformed = append(ix.Malformed, line.Num)
			continue
		}
		if !utf8.Valid(data) {
			ix.InvalidUTF8 = append(ix.InvalidUTF8, line.Num)
		}
		e = rawEntry{}
		n := Node{Line: line.Num, Offset: line.Offset}
		var msg *leanMessage
		trimmed := bytes.TrimLeft(data, " \t\r\n")
		switch {
		case len(trimmed) == 0 || trimmed[0] != '{':
			n.NotObject = true
		case opts.Observer == nil && decodeLean(data, &e, &msg):
			// the index alone needs only the small fields
		default:
			msg = nil
			if err := gojson.Unmarshal(data, &e); err != nil {
				// Valid JSON that the typed decoder refuses (e.g. depth): treat as opaque.
				n.NotObject = true
			}
		}
		first := ix.FirstParsedLine == 0
		n.FileIndex = parsed
		parsed++
		if first {
			ix.FirstParsedLine = line.Num
		}
		typ, _ := str(e.Type)
		n.Type = typ
		if first {
			id, idOK := str(e.ID)
			if !n.NotObject && typ == TypeSession && idOK {
				h := &Header{Line: line.Num, ID: id, Raw: append([]byte(nil), data...), version: jsNumber(e.Version, 1)}
				h.Timestamp, _ = str(e.Timestamp)
				h.Cwd, _ = str(e.Cwd)
				if v := bytes.TrimSpace(e.Version); len(v) > 0 && v[0] != '"' && v[0] != 'n' {
					h.Version = gojson.Number(v)
				}
				ix.Header = h
				if opts.Observer != nil {
					opts.Observer.Entry(nil, data, &e)
				}
				continue
			}
			ix.HeaderInvalid = true
		}
		if typ == TypeSession {
			// Later session lines are not entries (pi's index skips them).
			if opts.Observer != nil {
				opts.Observer.Entry(nil, data, &e)
			}
			continue
		}
		fillNode(&n, &e, msg)
		ix.Nodes = append(ix.Nodes, n)
		if opts.Observer != nil {
			opts.Observer.Entry(&ix.Nodes[len(ix.Nodes)-1], data, &e)
		}
	}
	if ix.FirstParsedLine == 0 {
		return ix, ErrNotTranscript
	}
	return ix, nil
}

// leanMessage is what the index needs of a message: its role, and the
// provider and model of an assistant turn.
type leanMessage struct {
	Role     gojson.RawMessage
	Provider gojson.RawMessage
	Model    gojson.RawMessage
}

// decodeLean fills e's small fields and *msg from a line without decoding or
// copying anything else: the slices point into data, so they are only valid
// while the line is (fillNode copies what it keeps).
func decodeLean(data []byte, e *rawEntry, msg **leanMessage) bool {
	*e = rawEntry{}
	m := &leanMessage{}
	ok := jsonl.Members(data, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			e.Type = v
		case "id":
			e.ID = v
		case "parentId":
			e.ParentID = v
		case "timestamp":
			e.Timestamp = v
		case "version":
			e.Version = v
		case "cwd":
			e.Cwd = v
		case "message":
			*m = leanMessage{}
			jsonl.Members(v, func(k, v []byte) bool {
				switch string(k) {
				case "role":
					m.Role = v
				case "provider":
					m.Provider = v
				case "model":
					m.Model = v
				}
				return true
			})
		case "summary":
			e.Summary = v
		case "firstKeptEntryId":
			e.FirstKeptEntryID = v
		case "firstKeptEntryIndex":
			e.FirstKeptIndex = v
		case "thinkingLevel":
			e.ThinkingLevel = v
		case "provider":
			e.Provider = v
		case "modelId":
			e.ModelID = v
		}
		return true
	})
	*msg = m
	return ok
}

func fillNode(n *Node, e *rawEntry, pre *leanMessage) {
	n.ID = keyOf(e.ID)
	n.ParentID = keyOf(e.ParentID)
	n.FirstKeptIndex = -1
	switch n.Type {
	case TypeMessage:
		if pre != nil || isObject(e.Message) {
			m := pre
			if m == nil {
				m = &leanMessage{}
				if decoded := (struct {
					Role     gojson.RawMessage `json:"role"`
					Provider gojson.RawMessage `json:"provider"`
					Model    gojson.RawMessage `json:"model"`
				}{}); gojson.Unmarshal(e.Message, &decoded) == nil {
					*m = leanMessage(decoded)
				} else {
					m = nil
				}
			}
			if m != nil {
				n.Role, _ = str(m.Role)
				if n.Role == RoleAssistant {
					n.Provider, _ = str(m.Provider)
					n.Model, _ = str(m.Model)
					n.ProviderRaw = cloneRaw(m.Provider)
					n.ModelRaw = cloneRaw(m.Model)
				}
			}
		}
	case TypeModelChange:
		n.Provider, _ = str(e.Provider)
		n.Model, _ = str(e.ModelID)
		n.ProviderRaw = cloneRaw(e.Provider)
		n.ModelRaw = cloneRaw(e.ModelID)
	case TypeThinkingLevelChange:
		if len(bytes.TrimSpace(e.ThinkingLevel)) > 0 {
			n.ThinkingLevelSet = true
			n.ThinkingLevel, _ = str(e.ThinkingLevel)
			n.ThinkingLevelRaw = cloneRaw(e.ThinkingLevel)
		}
	case TypeCompaction:
		n.FirstKept = keyOf(e.FirstKeptEntryID)
		if idx := bytes.TrimSpace(e.FirstKeptIndex); len(idx) > 0 {
			if f := jsNumber(idx, -1); f >= 0 && f == float64(int(f)) {
				n.FirstKeptIndex = int(f)
			}
		}
	case TypeBranchSummary:
		n.SummaryTruthy = jsTruthy(e.Summary)
	}
}

// jsTruthy is JavaScript truthiness of a JSON value.
func jsTruthy(raw gojson.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return false
	case string(raw) == "null", string(raw) == "false", string(raw) == `""`:
		return false
	case raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'):
		f := jsNumber(raw, 0)
		return f != 0 && f == f
	}
	return true
}

func cloneRaw(raw gojson.RawMessage) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	return append([]byte(nil), raw...)
}

// atFile names the file in err: a LineError gets the path, anything else is
// wrapped in one (with the line number if the reader reported one).
func atFile(path string, err error) error {
	var le *LineError
	if errors.As(err, &le) && le.Path == "" {
		return &LineError{Path: path, Line: le.Line, Err: le.Err}
	}
	var je *jsonl.LineError
	if errors.As(err, &je) {
		return &LineError{Path: path, Line: je.Line, Err: je.Err}
	}
	return &LineError{Path: path, Err: err}
}
