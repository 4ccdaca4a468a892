package repair

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/internal/durable"
)

// A repair run that changed files records them in a run manifest, so that
// `oc repair --undo` without a FILE can undo the newest run as a whole.
//
// Where: RunsDir of the state dir (or of --backup-dir when the run used
// one): "<dir>/.oc-repair-runs/<run id>.json". The folder's name starts with
// a dot and holds no ".jsonl": OpenClaw never reads it as state.
//
// Identity: the run id is the UTC start time to the nanosecond and a random
// suffix ("20261130T230500.123456789Z-3f9a1c2b"); the newest run is the one
// with the latest StartedAt (ties: the larger id).
//
// Format: RunManifest as JSON, written complete or not at all
// (durable.WriteNew) when the run ends, interrupted or not. A run killed
// outright (SIGKILL, power loss) writes none: its files are undone one by
// one (`oc repair --undo FILE`), each from its own backup and manifest.

// RunFormat names the run manifest's format.
const RunFormat = "oc-repair-run/1"

// RunsDirName is the folder run manifests are kept in.
const RunsDirName = ".oc-repair-runs"

// RunsDir is where the run manifests of repairs over root (the state dir,
// or the --backup-dir they used) are kept.
func RunsDir(root string) string { return filepath.Join(root, RunsDirName) }

// RunManifest records one repair run: every file it changed, with the
// backup, backup manifest and quarantine file it made for each.
type RunManifest struct {
	Format      string    `json:"format"`
	ID          string    `json:"id"`
	StartedAt   time.Time `json:"startedAt"`
	FinishedAt  time.Time `json:"finishedAt"`
	Interrupted bool      `json:"interrupted,omitempty"`
	BackupDir   string    `json:"backupDir,omitempty"`
	Files       []RunFile `json:"files"`
}

// RunFile is one file a run changed (absolute paths).
type RunFile struct {
	Path       string `json:"path"` // the real file
	Backup     string `json:"backup"`
	Manifest   string `json:"manifest"`
	Quarantine string `json:"quarantine,omitempty"`
}

// runStampLayout is the run id's time part.
const runStampLayout = "20060102T150405.000000000Z"

// newRunID is the id of a run started at t.
func newRunID(t time.Time) string {
	return fmt.Sprintf("%s-%08x", t.UTC().Format(runStampLayout), rand.Uint32())
}

// writeRunManifest records the files rep changed in dir (nothing when none
// changed) and returns the manifest's path.
func writeRunManifest(ctx context.Context, fsys durable.FS, dir string, started time.Time, opts RunOptions, rep *Report) (string, error) {
	m := RunManifest{Format: RunFormat, ID: newRunID(started), StartedAt: started.UTC(), FinishedAt: opts.now().UTC(),
		Interrupted: rep.Totals.Interrupted, BackupDir: absOrEmpty(opts.BackupDir)}
	for _, f := range rep.Files {
		if f.Changed && f.Manifest != "" {
			m.Files = append(m.Files, RunFile{Path: realAbs(f.Path), Backup: absOrEmpty(f.Backup), Manifest: absOrEmpty(f.Manifest), Quarantine: absOrEmpty(f.Quarantine)})
		}
	}
	if len(m.Files) == 0 {
		return "", nil
	}
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", err
	}
	if err := durable.MkdirAll(fsys, dir, 0o700); err != nil {
		return "", fmt.Errorf("run manifest: %w", err)
	}
	p := filepath.Join(dir, m.ID+".json")
	_, err = durable.WriteNew(context.WithoutCancel(ctx), fsys, p, 0o600, nil, func(w io.Writer) error {
		_, err := w.Write(append(raw, '\n'))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("run manifest: %w", err)
	}
	return p, nil
}

func absOrEmpty(p string) string {
	if p == "" {
		return ""
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// ReadRunManifest reads one run manifest.
func ReadRunManifest(path string) (*RunManifest, error) {
	raw, err := durable.ReadRegular(path)
	if err != nil {
		return nil, err
	}
	var m RunManifest
	if err := json.Unmarshal(raw, &m); err != nil || m.Format != RunFormat || m.ID == "" {
		return nil, fmt.Errorf("%s: not an oc repair run manifest", path)
	}
	return &m, nil
}

// ErrNoRun is returned (wrapped) when no repair run is recorded.
var ErrNoRun = errors.New("no repair run recorded")

// NewestRun is the newest run manifest in dir (see RunsDir) and its path.
// Files in dir that are not run manifests are ignored.
func NewestRun(dir string) (*RunManifest, string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, "", err
	}
	var best *RunManifest
	var bestPath string
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		m, err := ReadRunManifest(p)
		if err != nil {
			continue
		}
		if best == nil || cmp.Or(m.StartedAt.Compare(best.StartedAt), strings.Compare(m.ID, best.ID)) > 0 {
			best, bestPath = m, p
		}
	}
	if best == nil {
		return nil, "", fmt.Errorf("%w in %s", ErrNoRun, dir)
	}
	return best, bestPath, nil
}

// RunUndoReport says what UndoRun did: one UndoReport (and error) per file
// of the run.
type RunUndoReport struct {
	Run      string        `json:"run"`
	Manifest string        `json:"manifest"`
	Started  time.Time     `json:"startedAt"`
	Files    []*UndoReport `json:"files"`
	Errors   []string      `json:"errors,omitempty"` // parallel to Files: "" when that file was undone
}

// Failed counts the files that were not undone.
func (r *RunUndoReport) Failed() int {
	n := 0
	for _, e := range r.Errors {
		if e != "" {
			n++
		}
	}
	return n
}

// UndoRun undoes the newest repair run recorded in runsDir: every file it
// changed is restored from the backup that run made (Undo's checks and
// refusals, file by file, each atomically), newest change first. A file
// that cannot be undone (changed since, backup gone or damaged) does not
// stop the others. A run already undone finds every file AlreadyRestored.
func UndoRun(ctx context.Context, runsDir string, opts ApplyOptions) (*RunUndoReport, error) {
	m, p, err := NewestRun(runsDir)
	if err != nil {
		return nil, err
	}
	rep := &RunUndoReport{Run: m.ID, Manifest: p, Started: m.StartedAt}
	for _, f := range slices.Backward(m.Files) {
		if ctx.Err() != nil {
			rep.Files = append(rep.Files, &UndoReport{Path: f.Path})
			rep.Errors = append(rep.Errors, f.Path+": interrupted, not undone")
			continue
		}
		u, err := undo(ctx, f.Path, f.Backup, opts)
		if u == nil {
			u = &UndoReport{Path: f.Path}
		}
		msg := ""
		if err != nil {
			msg = firstLine(err.Error())
		}
		rep.Files = append(rep.Files, u)
		rep.Errors = append(rep.Errors, msg)
	}
	return rep, nil
}
