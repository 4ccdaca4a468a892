package repair

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw-tools/oc/internal/parallel"
	"github.com/openclaw-tools/oc/pkg/gatewaylock"
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
	// Starting, when set, is called with each file's path before it is
	// read (concurrently).
	Starting func(path string)
	// Explicit are the paths named on the command line: a file among them
	// that is not a transcript is an error, not just skipped.
	Explicit map[string]bool
	// Recovery marks the paths no sessions.json entry names (see Recovery).
	Recovery map[string]*Recovery
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
	Unrepairable int `json:"unrepairable"`
	// Errors counts the files that could not be processed; Busy those left
	// alone because a live process holds their lock (not counted in Errors).
	Errors int `json:"errors"`
	Busy   int `json:"busy"`
	// Interrupted: the run was cancelled (SIGINT/SIGTERM); files not yet
	// started were left alone and carry the error "interrupted".
	Interrupted bool           `json:"interrupted,omitempty"`
	Rules       map[string]int `json:"rules"`
}

// Run plans (ReadOnly) or applies the repair of every path, in parallel. A
// file that fails does not stop the others: its report carries the error.
//
// Paths that name one file (a path given twice, a symlink beside its
// target) are repaired one after the other, in the order given: at once,
// the second would meet the first's lock and fail.
//
// Cancelling ctx (SIGINT, SIGTERM) leaves the files not yet started alone
// (their reports say "interrupted") and stops the ones being repaired before
// their replacement (see ApplyFile).
func Run(ctx context.Context, paths []string, opts RunOptions) *Report {
	rep := &Report{Files: make([]*FileReport, len(paths)), Totals: Totals{Files: len(paths), Rules: map[string]int{}}}
	groups := sameFileGroups(paths, !opts.ReadOnly)
	parallel.Each(len(groups), opts.Jobs, func(g int) {
		for _, i := range groups[g] {
			if opts.Starting != nil {
				opts.Starting(paths[i])
			}
			rep.Files[i] = runOne(ctx, paths[i], opts)
			if opts.Progress != nil {
				opts.Progress()
			}
		}
	})
	t := &rep.Totals
	t.Interrupted = ctx.Err() != nil
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
		switch {
		case r.Busy:
			t.Busy++
		case r.Error != "":
			t.Errors++
		}
		for k, v := range r.Rules {
			t.Rules[k] += v
		}
	}
	return rep
}

// sameFileGroups puts the indexes of paths that name one file (os.Stat,
// which follows symlinks, then os.SameFile) in one group, in the order
// given; with byFile false, or for a path that cannot be stat'ed (runOne
// reports why), each path is a group of its own. Files are told apart
// first by size and modification time, so only files that agree on both
// are compared.
func sameFileGroups(paths []string, byFile bool) [][]int {
	groups := make([][]int, 0, len(paths))
	if !byFile {
		for i := range paths {
			groups = append(groups, []int{i})
		}
		return groups
	}
	type stamp struct{ size, mtime int64 }
	type member struct {
		group int
		st    os.FileInfo
	}
	byStamp := map[stamp][]member{}
next:
	for i, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			groups = append(groups, []int{i})
			continue
		}
		k := stamp{st.Size(), st.ModTime().UnixNano()}
		for _, m := range byStamp[k] {
			if os.SameFile(m.st, st) {
				groups[m.group] = append(groups[m.group], i)
				continue next
			}
		}
		byStamp[k] = append(byStamp[k], member{len(groups), st})
		groups = append(groups, []int{i})
	}
	return groups
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

func runOne(ctx context.Context, path string, opts RunOptions) (rep *FileReport) {
	// A bug in one file's repair must not kill the run (and leave other
	// files' locks behind): the deferred lock releases have run by now.
	defer func() {
		if p := recover(); p != nil {
			rep = &FileReport{Path: path, Rules: map[string]int{}, Lines: map[string][]int64{},
				Error: fmt.Sprintf("%s: internal error (please report): %v", path, p)}
		}
	}()
	if r := opts.Recovery[path]; r != nil {
		opts.Options.Recovery = r
	}
	if ctx.Err() != nil {
		return &FileReport{Path: path, Rules: map[string]int{}, Lines: map[string][]int64{}, Error: path + ": interrupted, not started"}
	}
	if opts.ReadOnly {
		// no lock taken, but a file being written is not read (see LiveLock)
		if err := gatewaylock.LiveLock(ctx, []string{path, realPath(path)}, opts.Lock); err != nil {
			return &FileReport{Path: path, Rules: map[string]int{}, Lines: map[string][]int64{}, Error: firstLine(err.Error()),
				Busy: errors.Is(err, gatewaylock.ErrLocked)}
		}
		p, err := PlanFile(path, opts.Options)
		if err != nil {
			return &FileReport{Path: path, Rules: map[string]int{}, Lines: map[string][]int64{}, Error: firstLine(err.Error())}
		}
		rep := ReportOf(p, false)
		if st, err := os.Stat(path); err == nil && p.Changed() {
			if w := hardLinkWarning(path, st); w != "" {
				rep.Warnings = append(rep.Warnings, w)
			}
		}
		return notTranscript(rep, path, opts)
	}
	rep, err := ApplyFile(ctx, path, opts.ApplyOptions)
	if rep == nil {
		rep = &FileReport{Path: path, Rules: map[string]int{}, Lines: map[string][]int64{}}
	}
	if err != nil {
		rep.Error = firstLine(err.Error())
		rep.Busy = errors.Is(err, gatewaylock.ErrLocked)
		if errors.Is(err, context.Canceled) {
			rep.Error = path + ": interrupted; the file is as it was"
		}
	}
	return notTranscript(rep, path, opts)
}

// notTranscript turns "not an OpenClaw transcript" into an error for a file
// named on the command line (found in a folder, it is only skipped).
func notTranscript(rep *FileReport, path string, opts RunOptions) *FileReport {
	if rep.Skipped == SkipNotTranscript && rep.Error == "" && opts.Explicit[path] {
		rep.Error = path + ": " + SkipNotTranscript + " (no session header, no session entries); not written"
	}
	return rep
}

// realPath is the file behind a symlink (path itself when it is none or
// cannot be resolved).
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
