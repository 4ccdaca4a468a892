package transcript

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw-tools/oc/internal/parallel"
)

// InspectOptions select what Inspect looks at.
type InspectOptions struct {
	Archived bool      // include archived transcripts of folders
	Jobs     int       // files inspected at once (0: one per CPU)
	Stdin    io.Reader // for "-"
	// Progress, when set, is called once per finished file.
	Progress func()
	// Analyze, when set, analyses one transcript instead of AnalyzeFile
	// (with another analysis riding on the same read, see AnalyzeFileWith).
	// progress is ByteProgress. It must be safe for concurrent use.
	Analyze func(f File, stdin io.Reader, progress func(int)) (*Summary, error)
	// MoreFindings, when set, adds findings of other analyses (what replay
	// would change) to each transcript's summary, once it is made. It must
	// be safe for concurrent use.
	MoreFindings func(f File, s *Summary) []Finding
	// Keep, when set, selects the transcripts to inspect (--agent, --since).
	Keep func(f File) bool
	// ByteProgress, when set, is told the bytes read of each file (for a
	// progress display on one large file). It must be safe for concurrent use.
	ByteProgress func(n int)
}

// FileError is a transcript that could not be inspected.
type FileError struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// Totals add up the transcripts of a report.
type Totals struct {
	Transcripts int            `json:"transcripts"`
	Failed      int            `json:"failed"`
	Entries     int            `json:"entries"`
	Messages    int            `json:"messages"` // context messages, summed
	Bytes       int64          `json:"bytes"`
	ByType      map[string]int `json:"byType"`
	ByRole      map[string]int `json:"byRole"`
	Findings    map[string]int `json:"findings"` // severity -> count
}

// IndexReport is every agent's sessions.json cross-checked with its files.
type IndexReport struct {
	MissingFiles []IndexRef  `json:"missingFiles"`
	OrphanFiles  []string    `json:"orphanFiles"`
	Dangling     []IndexRef  `json:"dangling"`
	Checked      []string    `json:"checked"` // the sessions.json files read
	Errors       []FileError `json:"errors,omitempty"`
}

// Report is the result of inspecting one or more paths.
type Report struct {
	// Single is true when exactly one transcript file was named.
	Single bool `json:"-"`
	// Era is "jsonl" for a state dir or folder (a SQLite-era report says
	// "sqlite" or "mid-upgrade" in the same key).
	Era string `json:"era,omitempty"`
	// Transcripts are the sessions read ("sessions" in JSON, the key of
	// SQLite-era reports too).
	Transcripts []*Summary   `json:"sessions"`
	Errors      []FileError  `json:"errors,omitempty"`
	Totals      Totals       `json:"totals"`
	Index       *IndexReport `json:"index,omitempty"`
}

// Inspect analyses every transcript the paths name (see Discover) and, for
// state dirs and sessions folders, cross-checks their sessions.json. Once ctx
// is cancelled (SIGINT/SIGTERM), the files not yet started are left unread
// (as errors); the caller reports the run as interrupted.
func Inspect(ctx context.Context, paths []string, opts InspectOptions) (*Report, error) {
	files, err := Discover(paths, opts.Archived)
	if err != nil {
		return nil, err
	}
	if opts.Keep != nil {
		kept := files[:0:0]
		for _, f := range files {
			if opts.Keep(f) {
				kept = append(kept, f)
			}
		}
		files = kept
	}
	rep := &Report{Totals: Totals{ByType: map[string]int{}, ByRole: map[string]int{}, Findings: map[string]int{}}}
	rep.Single = len(paths) == 1 && len(files) == 1 && !isDir(paths[0])
	summaries := make([]*Summary, len(files))
	errs := make([]error, len(files))
	parallel.Each(len(files), opts.Jobs, func(i int) {
		if err := ctx.Err(); err != nil {
			errs[i] = fmt.Errorf("not read: %w", err)
			return
		}
		analyze := opts.Analyze
		if analyze == nil {
			analyze = func(f File, stdin io.Reader, progress func(int)) (*Summary, error) {
				return AnalyzeFileWith[struct{}](f, stdin, progress, nil)
			}
		}
		summaries[i], errs[i] = analyze(files[i], opts.Stdin, opts.ByteProgress)
		if errs[i] == nil && opts.MoreFindings != nil && files[i].Path != "-" {
			summaries[i].AddFindings(opts.MoreFindings(files[i], summaries[i]))
		}
		if errs[i] == nil {
			summaries[i].context = nil // the report keeps every summary: not their contexts' lines
		}
		if opts.Progress != nil {
			opts.Progress()
		}
	})
	for i, s := range summaries {
		if errs[i] != nil {
			rep.Errors = append(rep.Errors, FileError{Path: files[i].Path, Error: describe(files[i].Path, errs[i])})
			rep.Totals.Failed++
			continue
		}
		if s.Path != "-" {
			s.Era, s.Store = "jsonl", s.Path
		}
		rep.Transcripts = append(rep.Transcripts, s)
		t := &rep.Totals
		t.Transcripts++
		t.Entries += s.Entries
		t.Messages += s.Active.Messages
		t.Bytes += s.Size
		for k, v := range s.ByType {
			t.ByType[k] += v
		}
		for k, v := range s.ByRole {
			t.ByRole[k] += v
		}
		for _, f := range s.Findings {
			t.Findings[f.Severity]++
		}
	}
	if rep.Transcripts == nil {
		rep.Transcripts = []*Summary{}
	}
	rep.Index = checkIndexes(paths)
	return rep, nil
}

// describe turns an error into one line that names the file (and line).
func describe(path string, err error) string {
	var le *LineError
	if errors.As(err, &le) {
		return le.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s: %v", pe.Path, pe.Err)
	}
	// Errors that already name the file (jsonl.OpenRegular: "<path>: not a
	// regular file (a FIFO)") are not prefixed a second time.
	if msg := err.Error(); strings.HasPrefix(msg, path+": ") {
		return msg
	}
	return fmt.Sprintf("%s: %v", path, err)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// checkIndexes cross-checks the sessions.json of every folder among paths.
func checkIndexes(paths []string) *IndexReport {
	var agents []Agent
	for _, p := range paths {
		if !isDir(p) {
			continue
		}
		if IsStateDir(p) {
			if sd, err := OpenStateDir(p); err == nil {
				agents = append(agents, sd.Agents...)
			}
			continue
		}
		a := Agent{ID: agentOf(filepath.Join(p, "x")), SessionsDir: p}
		if _, err := os.Stat(filepath.Join(p, "sessions.json")); err == nil {
			a.IndexPath = filepath.Join(p, "sessions.json")
		}
		agents = append(agents, a)
	}
	if len(agents) == 0 {
		return nil
	}
	ir := &IndexReport{MissingFiles: []IndexRef{}, OrphanFiles: []string{}, Dangling: []IndexRef{}, Checked: []string{}}
	for _, a := range agents {
		if a.IndexPath == "" {
			continue
		}
		ic, err := CheckIndex(a)
		if err != nil {
			ir.Errors = append(ir.Errors, FileError{Path: a.IndexPath, Error: describe(a.IndexPath, err)})
			continue
		}
		ir.Checked = append(ir.Checked, a.IndexPath)
		ir.MissingFiles = append(ir.MissingFiles, ic.MissingFiles...)
		ir.OrphanFiles = append(ir.OrphanFiles, ic.OrphanFiles...)
		ir.Dangling = append(ir.Dangling, ic.Dangling...)
	}
	return ir
}
