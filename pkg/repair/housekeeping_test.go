package repair

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/internal/durable/durabletest"
)

// stateWithDamaged makes a state dir whose main agent has the damaged
// transcripts names (smallDamaged, each with its own session id).
func stateWithDamaged(t *testing.T, names ...string) (stateDir string, files []string) {
	t.Helper()
	stateDir = t.TempDir()
	sessions := filepath.Join(stateDir, "agents", "main", "sessions")
	require.NoError(t, os.MkdirAll(sessions, 0o755))
	for _, n := range names {
		f := filepath.Join(sessions, n)
		require.NoError(t, os.WriteFile(f, []byte(damagedAs(n)), 0o640))
		files = append(files, f)
	}
	return stateDir, files
}

func damagedAs(name string) string {
	return strings.Replace(smallDamaged, `"id":"s1"`, fmt.Sprintf(`"id":%q`, strings.TrimSuffix(name, ".jsonl")), 1)
}

func recordedRun(t *testing.T, stateDir string, files []string, opts ApplyOptions) *Report {
	t.Helper()
	rep := Run(t.Context(), files, RunOptions{ApplyOptions: opts, Jobs: 1, RecordIn: RunsDir(stateDir)})
	require.Zero(t, rep.Totals.Errors, rep.FirstError())
	require.NotEmpty(t, rep.RunManifest, rep.RunManifestError)
	return rep
}

// A run records every file it changed; UndoRun puts each back, and undoing
// again finds them restored already.
func TestUndoRunRestoresEveryFileOfTheRun(t *testing.T) {
	sd, files := stateWithDamaged(t, "a.jsonl", "b.jsonl")
	rep := recordedRun(t, sd, files, ApplyOptions{})
	m, err := ReadRunManifest(rep.RunManifest)
	require.NoError(t, err)
	require.Len(t, m.Files, 2)
	for i, f := range m.Files {
		assert.Equal(t, realAbs(files[i]), f.Path)
		assert.Equal(t, rep.Files[i].Backup, f.Backup)
		assert.FileExists(t, f.Manifest)
	}
	u, err := UndoRun(t.Context(), RunsDir(sd), ApplyOptions{})
	require.NoError(t, err)
	assert.Zero(t, u.Failed(), u.Errors)
	for _, f := range files {
		got, _ := os.ReadFile(f)
		assert.Equal(t, damagedAs(filepath.Base(f)), string(got))
	}
	again, err := UndoRun(t.Context(), RunsDir(sd), ApplyOptions{})
	require.NoError(t, err)
	for _, f := range again.Files {
		assert.True(t, f.AlreadyRestored, "%s", f.Path)
	}
}

// Each file of the run is judged alone: one changed since the run is
// refused (and left as it is), the others are restored.
func TestUndoRunRefusesAChangedFileAndRestoresTheOthers(t *testing.T) {
	sd, files := stateWithDamaged(t, "a.jsonl", "b.jsonl")
	recordedRun(t, sd, files, ApplyOptions{})
	turn := `{"type":"message","id":"z","parentId":"c","timestamp":"2026-05-12T09:10:00.000Z","message":{"role":"user","content":"later"}}` + "\n"
	f, err := os.OpenFile(files[0], os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(turn)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	changed, _ := os.ReadFile(files[0])

	u, err := UndoRun(t.Context(), RunsDir(sd), ApplyOptions{})
	require.NoError(t, err)
	assert.Equal(t, 1, u.Failed())
	got, _ := os.ReadFile(files[0])
	assert.Equal(t, string(changed), string(got), "the changed file is left as it is")
	got, _ = os.ReadFile(files[1])
	assert.Equal(t, damagedAs("b.jsonl"), string(got), "the other is restored")
	for i, e := range u.Errors {
		if u.Files[i].Path == realAbs(files[0]) {
			assert.Contains(t, e, "bytes appended since the repair")
		} else {
			assert.Empty(t, e)
		}
	}
}

// The newest run is undone, and only from the backups it made: an older
// run's files are left alone.
func TestUndoRunTakesTheNewestRun(t *testing.T) {
	sd, files := stateWithDamaged(t, "a.jsonl")
	clock := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	recordedRun(t, sd, files, ApplyOptions{Options: Options{Now: now}})
	repairedA, _ := os.ReadFile(files[0])
	b := filepath.Join(filepath.Dir(files[0]), "b.jsonl")
	require.NoError(t, os.WriteFile(b, []byte(damagedAs("b.jsonl")), 0o640))
	clock = clock.Add(time.Hour)
	recordedRun(t, sd, []string{files[0], b}, ApplyOptions{Options: Options{Now: now}})

	m, _, err := NewestRun(RunsDir(sd))
	require.NoError(t, err)
	require.Len(t, m.Files, 1, "the second run changed only b")
	u, err := UndoRun(t.Context(), RunsDir(sd), ApplyOptions{})
	require.NoError(t, err)
	require.Zero(t, u.Failed(), u.Errors)
	got, _ := os.ReadFile(b)
	assert.Equal(t, damagedAs("b.jsonl"), string(got))
	got, _ = os.ReadFile(files[0])
	assert.Equal(t, string(repairedA), string(got), "the first run's file keeps its repair")
}

func TestUndoRunWithoutARun(t *testing.T) {
	_, err := UndoRun(t.Context(), RunsDir(t.TempDir()), ApplyOptions{})
	require.ErrorIs(t, err, ErrNoRun)
}

// Undoing a run runs the recording file system's suite: at every step,
// each file of the run is its repair or its original, whole.
func TestUndoRunSuite(t *testing.T) {
	var repaired map[string][]byte
	durabletest.Run(t, durabletest.Case{
		Setup: func(t *testing.T, dir string) {
			_, files := stateWithDamagedIn(t, dir, "a.jsonl", "b.jsonl")
			recordedRun(t, dir, files, ApplyOptions{})
			repaired = map[string][]byte{}
			for _, f := range files {
				repaired[path.Join("agents/main/sessions", filepath.Base(f))], _ = os.ReadFile(f)
			}
		},
		Write: func(ctx context.Context, fsys durable.FS, dir string) error {
			u, err := UndoRun(ctx, RunsDir(dir), ApplyOptions{FS: fsys})
			if err == nil && u.Failed() > 0 {
				err = fmt.Errorf("%v", u.Errors)
			}
			return err
		},
		Check: func(s durabletest.State, ok bool) error {
			for name, rep := range repaired {
				if _, err := durabletest.OldOrNew(s, name, rep, []byte(damagedAs(path.Base(name))), ok); err != nil {
					return err
				}
			}
			return nil
		},
		Leaves: func(n string) bool { return strings.HasSuffix(n, ".lock") },
	})
}

func stateWithDamagedIn(t *testing.T, stateDir string, names ...string) (string, []string) {
	t.Helper()
	sessions := filepath.Join(stateDir, "agents", "main", "sessions")
	require.NoError(t, os.MkdirAll(sessions, 0o755))
	var files []string
	for _, n := range names {
		f := filepath.Join(sessions, n)
		require.NoError(t, os.WriteFile(f, []byte(damagedAs(n)), 0o640))
		files = append(files, f)
	}
	return stateDir, files
}

// FindArtifacts lists what repairs left, by manifest or by name and
// records, with the stamp's time; what merely looks like it is left out.
func TestFindArtifactsListsOnlyWhatOcWrote(t *testing.T) {
	sd, files := stateWithDamaged(t, "a.jsonl")
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rep := recordedRun(t, sd, files, ApplyOptions{Options: Options{Now: func() time.Time { return clock }}})
	dir := filepath.Dir(files[0])
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	legacyBackup := write("old.jsonl.bak-oc-20250101T000000Z", smallDamaged)
	legacyQ := write("old.jsonl.rejected-20250101T000000Z.jsonl", `{"line":3,"rules":["malformed-line"],"text":"{\"ty"}`+"\n")
	// Lookalikes: left alone.
	write("notes.jsonl.bak-oc-yesterday", "mine")
	write("user.jsonl.rejected-20250101T000000Z", "my own notes, not oc's\n")
	write("fake.jsonl.bak-oc-20250101T000000Z.manifest.json", `{"not":"oc"}`)
	write("fake.jsonl.bak-oc-20250101T000000Z", "kept: its manifest is not oc's")
	require.NoError(t, os.Symlink(files[0], filepath.Join(dir, "link.jsonl.bak-oc-20250101T000000Z")))

	arts, err := FindArtifacts(ArtifactRoots(sd))
	require.NoError(t, err)
	got := map[string]Artifact{}
	for _, a := range arts {
		got[a.Path] = a
	}
	want := map[string]string{
		rep.Files[0].Backup: KindBackup, rep.Files[0].Manifest: KindManifest, rep.Files[0].Quarantine: KindQuarantine,
		rep.RunManifest: KindRun, legacyBackup: KindBackup, legacyQ: KindQuarantine,
	}
	require.Len(t, got, len(want), "listed: %v", arts)
	for p, kind := range want {
		a, ok := got[p]
		require.True(t, ok, "%s not listed", p)
		assert.Equal(t, kind, a.Kind, p)
	}
	assert.True(t, got[legacyBackup].Legacy)
	assert.Equal(t, clock, got[rep.Files[0].Backup].Time, "the time is the name's stamp, not the mtime")
	assert.Equal(t, realAbs(files[0]), got[rep.Files[0].Backup].Of)
	assert.Equal(t, legacyBackup, arts[0].Path, "oldest first")
}

// Prune removes a backup before its manifest: at every step of a crash or
// a failed call, a backup is never visible without its manifest, and what
// Prune reported removed stays removed.
func TestPruneSuite(t *testing.T) {
	var arts []Artifact
	durabletest.Run(t, durabletest.Case{
		Setup: func(t *testing.T, dir string) {
			_, files := stateWithDamagedIn(t, dir, "a.jsonl")
			rep, err := ApplyFile(t.Context(), files[0], ApplyOptions{})
			require.NoError(t, err)
			require.True(t, rep.Changed)
		},
		Write: func(ctx context.Context, fsys durable.FS, dir string) error {
			var err error
			if arts, err = FindArtifacts(ArtifactRoots(dir)); err != nil {
				return err
			}
			for _, r := range Prune(ctx, fsys, arts) {
				if r.Error != "" {
					return fmt.Errorf("%s: %s", r.Path, r.Error)
				}
			}
			return nil
		},
		Check: func(s durabletest.State, ok bool) error {
			for name := range s.Files {
				switch k := repairArtifactOf(name); {
				case ok && k != "":
					return fmt.Errorf("%s: pruned, but back after a crash", name)
				case k == KindBackup:
					if _, has := s.Files[name+ManifestSuffix]; !has {
						return fmt.Errorf("%s is visible without its manifest", name)
					}
				}
			}
			return nil
		},
	})
}

func repairArtifactOf(name string) string {
	base := path.Base(name)
	switch {
	case strings.Contains(base, durable.BackupInfix) && strings.HasSuffix(base, ManifestSuffix):
		return KindManifest
	case strings.Contains(base, durable.BackupInfix):
		return KindBackup
	case strings.Contains(base, QuarantineInfix):
		return KindQuarantine
	}
	return ""
}

// A backup that cannot be removed keeps its manifest.
func TestPruneKeepsTheManifestOfABackupItCannotRemove(t *testing.T) {
	sd, files := stateWithDamaged(t, "a.jsonl")
	rep, err := ApplyFile(t.Context(), files[0], ApplyOptions{})
	require.NoError(t, err)
	arts, err := FindArtifacts(ArtifactRoots(sd))
	require.NoError(t, err)
	res := Prune(t.Context(), &failRemoveFS{name: rep.Backup}, arts)
	for _, r := range res {
		switch r.Kind {
		case KindBackup, KindManifest:
			assert.False(t, r.Removed, r.Path)
			assert.FileExists(t, r.Path)
		case KindQuarantine:
			assert.True(t, r.Removed, r.Path)
		}
	}
}

type failRemoveFS struct {
	durable.OSFS
	name string
}

func (f *failRemoveFS) Remove(p string) error {
	if p == f.name {
		return &os.PathError{Op: "remove", Path: p, Err: os.ErrPermission}
	}
	return f.OSFS.Remove(p)
}

func TestOlderAndParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, "36h": 36 * time.Hour, "90m": 90 * time.Minute} {
		got, err := ParseAge(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "0d", "-3d", "d", "3.5d", "soon", "-1h", "30 d"} {
		_, err := ParseAge(bad)
		assert.Error(t, err, bad)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	arts := []Artifact{{Path: "a", Time: t0}, {Path: "b", Time: t0.Add(48 * time.Hour)}}
	old := Older(arts, t0.Add(24*time.Hour))
	require.Len(t, old, 1)
	assert.Equal(t, "a", old[0].Path)
}
