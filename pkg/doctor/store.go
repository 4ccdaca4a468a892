package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsondoc"
)

// DefaultMaxStoreBytes bounds what doctor reads into memory from one JSON
// document (cron store, state sidecar, sessions.json). Real cron stores are a
// few kilobytes; OpenClaw itself caps its quarantine sidecar at 8 MiB.
const DefaultMaxStoreBytes = 32 << 20

// CronStore is a JSON-era cron store: jobs.json and, in the later JSON era,
// its jobs-state.json sidecar. Root keeps the document as read (key order,
// unknown fields); Jobs point into it.
type CronStore struct {
	Path  string
	Raw   []byte
	Info  os.FileInfo // stat of the file Raw was read from
	Root  *jsondoc.Value
	Parse jsondoc.ParseResult
	// Jobs are the object entries of the "jobs" array, in order; JobIndex
	// their positions in that array.
	Jobs     []*jsondoc.Value
	JobIndex []int
	// Shape problems that make OpenClaw see no jobs (root not an object, jobs
	// not an array) or skip entries; a store with Shape problems is never written.
	Shape []string

	State *StateFile // nil when there is no sidecar
}

// StateFile is jobs-state.json: {version:1, jobs:{<id>:{updatedAtMs, state, scheduleIdentity}}}.
type StateFile struct {
	Path  string
	Raw   []byte
	Info  os.FileInfo
	Root  *jsondoc.Value
	Parse jsondoc.ParseResult
	// Invalid says why OpenClaw would ignore the file ("" when it is used).
	Invalid string
}

// Entry returns the sidecar entry of a job id, or nil.
func (s *StateFile) Entry(id string) *jsondoc.Value {
	if s == nil || s.Invalid != "" {
		return nil
	}
	return s.Root.Get("jobs").Get(id)
}

// StatePathFor is OpenClaw's resolveStatePath: jobs.json -> jobs-state.json.
func StatePathFor(storePath string) string {
	if strings.HasSuffix(storePath, ".json") {
		return strings.TrimSuffix(storePath, ".json") + "-state.json"
	}
	return storePath + "-state.json"
}

// FileError is a problem reading one file: missing, a directory, too large,
// unreadable or unparsable. Line and Col are set for syntax errors.
type FileError struct {
	Path      string
	Line, Col int
	Kind      string // "directory", "not-regular", "too-large", "too-deep", "unreadable", "syntax"
	Err       error
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %v", e.Path, e.Line, e.Col, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// readDoc reads and parses one JSON/JSON5 document with a size cap. Only a
// regular file is opened (a FIFO named jobs.json would block a plain open
// forever). A missing file gives (nil, nil, ParseResult{}, fs.ErrNotExist).
func readDoc(path string, maxBytes int64) ([]byte, *jsondoc.Value, jsondoc.ParseResult, error) {
	raw, _, v, res, err := readDocInfo(path, maxBytes)
	return raw, v, res, err
}

// readDocInfo is readDoc that also returns the file's stat, taken on the
// descriptor the bytes were read from.
func readDocInfo(path string, maxBytes int64) ([]byte, os.FileInfo, *jsondoc.Value, jsondoc.ParseResult, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxStoreBytes
	}
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil, jsondoc.ParseResult{}, err
		}
		return nil, nil, nil, jsondoc.ParseResult{}, &FileError{Path: path, Kind: "unreadable", Err: err}
	}
	if st.IsDir() {
		return nil, st, nil, jsondoc.ParseResult{}, &FileError{Path: path, Kind: "directory", Err: errors.New("is a directory, not a JSON file")}
	}
	if !st.Mode().IsRegular() {
		return nil, st, nil, jsondoc.ParseResult{}, &FileError{Path: path, Kind: "not-regular", Err: fmt.Errorf("is %s, not a JSON file: not opened", fileKind(st.Mode()))}
	}
	if st.Size() > maxBytes {
		return nil, st, nil, jsondoc.ParseResult{}, &FileError{Path: path, Kind: "too-large", Err: fmt.Errorf("%d bytes, more than the %d bytes doctor reads", st.Size(), maxBytes)}
	}
	raw, st, err := readRegular(path, maxBytes)
	switch {
	case errors.Is(err, errNotRegular):
		return nil, st, nil, jsondoc.ParseResult{}, &FileError{Path: path, Kind: "not-regular", Err: fmt.Errorf("is %s, not a JSON file: not read", fileKind(st.Mode()))}
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil, jsondoc.ParseResult{}, err
	case err != nil && st != nil && st.Size() > maxBytes:
		return nil, st, nil, jsondoc.ParseResult{}, &FileError{Path: path, Kind: "too-large", Err: err}
	case err != nil:
		return nil, st, nil, jsondoc.ParseResult{}, &FileError{Path: path, Kind: "unreadable", Err: err}
	}
	v, res, err := jsondoc.Parse(raw)
	if err != nil {
		var se *jsondoc.SyntaxError
		if errors.As(err, &se) {
			kind := "syntax"
			if se.TooDeep {
				kind = "too-deep"
			}
			return raw, st, nil, res, &FileError{Path: path, Line: se.Line, Col: se.Col, Kind: kind, Err: errors.New(se.Msg)}
		}
		return raw, st, nil, res, &FileError{Path: path, Kind: "syntax", Err: err}
	}
	return raw, st, v, res, nil
}

// LoadCronStore reads jobs.json and its sidecar. A missing store gives
// (nil, nil). Errors are *FileError.
func LoadCronStore(path string, maxBytes int64) (*CronStore, error) {
	raw, info, root, res, err := readDocInfo(path, maxBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s := &CronStore{Path: path, Raw: raw, Info: info, Root: root, Parse: res}
	switch {
	case root.Kind != jsondoc.Object:
		s.Shape = append(s.Shape, fmt.Sprintf("the document is a JSON %s, not an object: OpenClaw finds no jobs in it", root.Kind))
	case root.Get("jobs") == nil:
		s.Shape = append(s.Shape, `no "jobs" array: OpenClaw finds no jobs in it`)
	case root.Get("jobs").Kind != jsondoc.Array:
		s.Shape = append(s.Shape, fmt.Sprintf(`"jobs" is a JSON %s, not an array: OpenClaw finds no jobs in it`, root.Get("jobs").Kind))
	default:
		for i, it := range root.Get("jobs").Items {
			if it.Kind == jsondoc.Object {
				s.Jobs = append(s.Jobs, it)
				s.JobIndex = append(s.JobIndex, i)
				continue
			}
			s.Shape = append(s.Shape, fmt.Sprintf("jobs[%d] is a JSON %s, not a job object", i, it.Kind))
		}
	}
	statePath := StatePathFor(path)
	sraw, sinfo, sroot, sres, serr := readDocInfo(statePath, maxBytes)
	switch {
	case errors.Is(serr, fs.ErrNotExist):
	case serr != nil:
		s.State = &StateFile{Path: statePath, Raw: sraw, Info: sinfo, Invalid: serr.Error()}
	default:
		st := &StateFile{Path: statePath, Raw: sraw, Info: sinfo, Root: sroot, Parse: sres}
		if sroot.Kind != jsondoc.Object {
			st.Invalid = "not a JSON object"
		} else if v := sroot.Get("version"); v == nil || v.Kind != jsondoc.Number || v.Num != 1 {
			st.Invalid = `"version" is not 1`
		} else if j := sroot.Get("jobs"); j == nil || j.Kind != jsondoc.Object {
			st.Invalid = `"jobs" is not an object`
		}
		s.State = st
	}
	return s, nil
}

// JobID is the job's id (or legacy jobId) when it is a string.
func JobID(job *jsondoc.Value) string {
	if id, ok := job.StringOf("id"); ok {
		return id
	}
	if id, ok := job.StringOf("jobId"); ok {
		return id
	}
	return ""
}

// Writable reports why the store must not be written, or "".
func (s *CronStore) Writable() string {
	if len(s.Shape) > 0 {
		return s.Shape[0]
	}
	return ""
}
