package repair

import (
	"strings"

	"github.com/openclaw-tools/oc/internal/parallel"
)

// RunOptions say how Run processes many files.
type RunOptions struct {
	ApplyOptions
	// ReadOnly plans without writing (--check, --dry-run).
	ReadOnly bool
	// Jobs is how many files are processed at once (0: one per CPU).
	Jobs int
	// Progress, when set, is called once per finished file (concurrently).
	Progress func()
}

// Report is the result of a run over many files: one report per file, in
// the order given, and the totals.
type Report struct {
	Files  []*FileReport `json:"files"`
	Totals Totals        `json:"totals"`
}

// Totals add up a run.
type Totals struct {
	Files       int `json:"files"`
	NeedsRepair int `json:"needsRepair"`
	Changed     int `json:"changed"`
	Skipped     int `json:"skipped"`
	// Unrepairable counts files --check flags that repair cannot fix.
	Unrepairable int            `json:"unrepairable"`
	Errors       int            `json:"errors"`
	Rules        map[string]int `json:"rules"`
}

// Run plans (ReadOnly) or applies the repair of every path, in parallel. A
// file that fails does not stop the others: its report carries the error.
func Run(paths []string, opts RunOptions) *Report {
	rep := &Report{Files: make([]*FileReport, len(paths)), Totals: Totals{Files: len(paths), Rules: map[string]int{}}}
	parallel.Each(len(paths), opts.Jobs, func(i int) {
		rep.Files[i] = runOne(paths[i], opts)
		if opts.Progress != nil {
			opts.Progress()
		}
	})
	t := &rep.Totals
	for _, r := range rep.Files {
		if r.Plan != nil && r.Plan.NeedsAttention() {
			t.NeedsRepair++
		}
		if r.Changed {
			t.Changed++
		}
		if r.Skipped != "" {
			t.Skipped++
		}
		if r.Unrepairable != "" {
			t.Unrepairable++
		}
		if r.Error != "" {
			t.Errors++
		}
		for k, v := range r.Rules {
			t.Rules[k] += v
		}
	}
	return rep
}

// FirstError is the error of the first file that failed ("" when none did).
func (r *Report) FirstError() string {
	for _, f := range r.Files {
		if f.Error != "" {
			return f.Error
		}
	}
	return ""
}

func runOne(path string, opts RunOptions) *FileReport {
	if opts.ReadOnly {
		p, err := PlanFile(path, opts.Options)
		if err != nil {
			return &FileReport{Path: path, Rules: map[string]int{}, Lines: map[string][]int64{}, Error: firstLine(err.Error())}
		}
		return ReportOf(p, false)
	}
	rep, err := ApplyFile(path, opts.ApplyOptions)
	if rep == nil {
		rep = &FileReport{Path: path, Rules: map[string]int{}, Lines: map[string][]int64{}}
	}
	if err != nil {
		rep.Error = firstLine(err.Error())
	}
	return rep
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
