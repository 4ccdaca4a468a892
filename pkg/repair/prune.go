package repair

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/internal/durable"
)

// Kinds of the files repairs leave (Artifact.Kind).
const (
	KindBackup     = "backup"
	KindManifest   = "manifest"
	KindQuarantine = "quarantine"
	KindRun        = "run"
)

// Artifact is a file oc's repairs left behind: a backup, its manifest, a
// quarantine file or a run manifest.
type Artifact struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
	Size int64  `json:"size"`
	// Time is when the repair made it: the stamp in its name (a run's
	// start), never the file's mtime (a hard-linked backup keeps the
	// transcript's).
	Time time.Time `json:"time"`
	// Of is the transcript it belongs to, as its manifest records it.
	Of string `json:"of,omitempty"`
	// Legacy: no manifest names it (an oc before manifests made it); it is
	// recognised by its name, and a quarantine file by its records too.
	Legacy bool `json:"legacy,omitempty"`
}

// FindArtifacts lists what oc's repairs left below roots, oldest first. A
// file counts only when oc can tell it wrote it: a manifest that parses as
// oc's, the backup and quarantine file it names (beside it), a backup named
// "<file>.bak-oc-<stamp>[.zst]" without a manifest, a quarantine file named
// "<file>.rejected-<stamp>[.jsonl]" whose first record is oc's, a run
// manifest in a RunsDirName folder. Only regular files; symbolic links are
// neither followed nor listed. A root that does not exist lists nothing; a
// root that is a file lists what its repairs left beside it.
func FindArtifacts(roots []string) ([]Artifact, error) {
	seen := map[string]bool{}
	var out []Artifact
	for _, root := range roots {
		if st, err := os.Stat(root); err == nil && st.Mode().IsRegular() {
			// A transcript: the files its repairs left beside it.
			arts, err := artifactsIn(filepath.Dir(root))
			if err != nil {
				return out, err
			}
			for _, a := range arts {
				if name := filepath.Base(a.Path); strings.HasPrefix(name, filepath.Base(root)+durable.BackupInfix) || strings.HasPrefix(name, filepath.Base(root)+QuarantineInfix) {
					out = append(out, a)
				}
			}
			continue
		}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == root && errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				if d != nil && d.IsDir() && p != root {
					return fs.SkipDir // unreadable folder: nothing of it is listed
				}
				return err
			}
			if !d.IsDir() {
				return nil
			}
			abs, _ := filepath.Abs(p)
			if seen[abs] {
				return fs.SkipDir
			}
			seen[abs] = true
			arts, err := artifactsIn(p)
			if err != nil {
				return err
			}
			out = append(out, arts...)
			return nil
		})
		if err != nil {
			return out, err
		}
	}
	slices.SortFunc(out, func(a, b Artifact) int {
		return cmp.Or(a.Time.Compare(b.Time), strings.Compare(a.Path, b.Path))
	})
	return out, nil
}

// artifactsIn lists the artifacts of one folder (not of its subfolders).
func artifactsIn(dir string) ([]Artifact, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	files := map[string]os.FileInfo{}
	for _, e := range entries {
		if e.Type().IsRegular() {
			if info, err := e.Info(); err == nil {
				files[e.Name()] = info
			}
		}
	}
	var out []Artifact
	add := func(name, kind string, t time.Time, of string, legacy bool) {
		out = append(out, Artifact{Path: filepath.Join(dir, name), Kind: kind, Size: files[name].Size(), Time: t, Of: of, Legacy: legacy})
		delete(files, name)
	}
	if filepath.Base(dir) == RunsDirName {
		for name := range files {
			if m, err := ReadRunManifest(filepath.Join(dir, name)); err == nil && name == m.ID+".json" {
				add(name, KindRun, m.StartedAt, "", false)
			}
		}
		return out, nil
	}
	// Manifests first: they name their backup and quarantine file.
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		backup, ok := strings.CutSuffix(name, ManifestSuffix)
		if !ok {
			continue
		}
		t, ok := backupStamp(backup)
		if !ok {
			continue
		}
		m, err := ReadManifest(filepath.Join(dir, backup))
		if err != nil || m == nil || (m.BackupName != backup && m.BackupName != backup+".zst") {
			continue // not a manifest oc wrote for this name: left alone
		}
		add(name, KindManifest, t, m.Source, false)
		if _, ok := files[m.BackupName]; ok {
			add(m.BackupName, KindBackup, t, m.Source, false)
		}
		if q := m.QuarantineName; q != "" && filepath.Base(q) == q && strings.Contains(q, QuarantineInfix) {
			if _, ok := files[q]; ok {
				add(q, KindQuarantine, t, m.Source, false)
			}
		}
	}
	for _, name := range names {
		if _, ok := files[name]; !ok {
			continue
		}
		if t, ok := backupStamp(strings.TrimSuffix(name, ".zst")); ok {
			if _, hasManifest := files[strings.TrimSuffix(name, ".zst")+ManifestSuffix]; !hasManifest {
				add(name, KindBackup, t, "", true)
			}
			continue
		}
		if t, ok := quarantineStamp(name); ok && looksLikeQuarantine(filepath.Join(dir, name)) {
			add(name, KindQuarantine, t, "", true)
		}
	}
	return out, nil
}

// backupStamp is the time in a backup's name "<file>.bak-oc-<stamp>".
func backupStamp(name string) (time.Time, bool) {
	i := strings.LastIndex(name, durable.BackupInfix)
	if i <= 0 {
		return time.Time{}, false
	}
	t, err := time.Parse(durable.StampLayout, name[i+len(durable.BackupInfix):])
	return t, err == nil
}

// quarantineStamp is the time in a quarantine file's name
// "<file>.rejected-<stamp>" (or the legacy "<stamp>.jsonl").
func quarantineStamp(name string) (time.Time, bool) {
	i := strings.LastIndex(name, QuarantineInfix)
	if i <= 0 {
		return time.Time{}, false
	}
	t, err := time.Parse(durable.StampLayout, strings.TrimSuffix(name[i+len(QuarantineInfix):], ".jsonl"))
	return t, err == nil
}

// looksLikeQuarantine: the file's first record is a QuarantineRecord with a
// line number and a rule (an empty file is one of a repair that
// quarantined nothing, as old releases wrote).
func looksLikeQuarantine(path string) bool {
	f, _, err := durable.OpenRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r QuarantineRecord
		return json.Unmarshal(line, &r) == nil && r.Line > 0 && len(r.Rules) > 0
	}
	return sc.Err() == nil
}

// PruneResult is one artifact Prune handled.
type PruneResult struct {
	Artifact
	Removed bool   `json:"removed"`
	Error   string `json:"error,omitempty"`
}

// Prune removes the artifacts (as FindArtifacts lists them), each backup
// and quarantine file before the manifest that names it, so that a crash
// never leaves a backup without its manifest (undo would take it for an
// old oc's); when a backup cannot be removed its manifest is kept too.
// Each removal is made durable (the folder is fsynced). Cancelling ctx
// stops between two files.
func Prune(ctx context.Context, fsys durable.FS, arts []Artifact) []PruneResult {
	order := slices.Clone(arts)
	rank := map[string]int{KindBackup: 0, KindQuarantine: 1, KindRun: 2, KindManifest: 3}
	slices.SortStableFunc(order, func(a, b Artifact) int { return rank[a.Kind] - rank[b.Kind] })
	keptBackup := map[string]bool{} // manifest path -> its backup could not be removed
	out := make([]PruneResult, 0, len(order))
	for _, a := range order {
		r := PruneResult{Artifact: a}
		switch {
		case ctx.Err() != nil:
			r.Error = "interrupted, not removed"
		case a.Kind == KindManifest && keptBackup[a.Path]:
			r.Error = "kept: its backup could not be removed"
		default:
			if err := durable.Remove(fsys, a.Path); err != nil {
				r.Error = err.Error()
				r.Removed = errors.Is(err, durable.ErrFolderSync)
			} else {
				r.Removed = true
			}
		}
		if a.Kind == KindBackup && !r.Removed {
			keptBackup[ManifestPath(a.Path)] = true
		}
		out = append(out, r)
	}
	return out
}

// Older are the artifacts made before cutoff.
func Older(arts []Artifact, cutoff time.Time) []Artifact {
	var out []Artifact
	for _, a := range arts {
		if a.Time.Before(cutoff) {
			out = append(out, a)
		}
	}
	return out
}

// ParseAge reads an age for --older-than: a number of days ("30d"), weeks
// ("2w") or any Go duration ("36h", "90m"); it must be positive.
func ParseAge(s string) (time.Duration, error) {
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			var k int64
			if _, err := fmt.Sscanf(n, "%d", &k); err == nil && fmt.Sprint(k) == n && k > 0 {
				return time.Duration(k) * unit, nil
			}
			return 0, fmt.Errorf("%q: want a positive number of days (30d), weeks (2w) or a duration (36h)", s)
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q: want a positive number of days (30d), weeks (2w) or a duration (36h)", s)
	}
	return d, nil
}

// ArtifactRoots are the folders of a state dir where repairs leave files:
// every agent's sessions folder, the legacy top-level sessions folder and
// the run records (not the rest of the state dir: agents' workspaces hold
// the user's own files).
func ArtifactRoots(stateDir string) []string {
	roots, _ := filepath.Glob(filepath.Join(stateDir, "agents", "*", "sessions"))
	return append(roots, filepath.Join(stateDir, "sessions"), RunsDir(stateDir))
}
