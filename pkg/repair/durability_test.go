package repair

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/internal/durable/durabletest"
)

// Repair and undo run the recording file system's suite (durabletest.Run):
// the order of every call, each call failing, a crash before each call.

var suiteNow = time.Date(2026, 5, 12, 10, 0, 0, 0, time.UTC)

// reference is what one repair of smallDamaged writes, made on the real
// file system: the repaired file and the quarantine file's bytes.
type reference struct {
	orig, repaired, quarantine []byte
}

func repairReference(t *testing.T, opts ApplyOptions) reference {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "s1.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(smallDamaged), 0o640))
	if opts.BackupDir != "" {
		opts.BackupDir = filepath.Join(dir, opts.BackupDir)
	}
	rep, err := ApplyFile(t.Context(), file, opts)
	require.NoError(t, err)
	require.True(t, rep.Changed)
	require.NotEmpty(t, rep.Quarantine)
	repaired, err := os.ReadFile(file)
	require.NoError(t, err)
	q, err := os.ReadFile(rep.Quarantine)
	require.NoError(t, err)
	return reference{orig: []byte(smallDamaged), repaired: repaired, quarantine: q}
}

// decoded is a backup's content (zstd-decompressed when it is .zst).
func decoded(name string, b []byte) ([]byte, error) {
	if !strings.HasSuffix(name, ".zst") {
		return b, nil
	}
	zr, err := zstd.NewReader(nil)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return zr.DecodeAll(b, nil)
}

// repairArtifact says what a file of a repair's state is: "backup",
// "manifest", "quarantine", "lock" or "".
func repairArtifact(name string) string {
	base := path.Base(name)
	switch {
	case durable.IsTempName(base):
		return ""
	case base == "s1.jsonl.lock":
		return "lock"
	case strings.HasPrefix(base, "s1.jsonl"+durable.BackupInfix) && strings.HasSuffix(base, ManifestSuffix):
		return "manifest"
	case strings.HasPrefix(base, "s1.jsonl"+durable.BackupInfix):
		return "backup"
	case strings.HasPrefix(base, "s1.jsonl"+QuarantineInfix):
		return "quarantine"
	}
	return ""
}

// checkRepairState: the transcript is the original or the repair, whole;
// once it is the repair (and whenever the repair reported success), its
// backup holds the original, with its manifest, and the quarantine file
// holds every line taken out. A backup is never visible without its
// manifest, and nothing oc publishes is ever partial.
func checkRepairState(ref reference, file string) func(s durabletest.State, ok bool) error {
	return func(s durabletest.State, ok bool) error {
		repaired, err := durabletest.OldOrNew(s, file, ref.orig, ref.repaired, ok)
		if err != nil {
			return err
		}
		var backups, manifests, quarantines []string
		for _, n := range s.New {
			switch repairArtifact(n) {
			case "backup":
				backups = append(backups, n)
			case "manifest":
				manifests = append(manifests, n)
			case "quarantine":
				quarantines = append(quarantines, n)
			}
		}
		for _, q := range quarantines {
			if !bytes.Equal(s.Files[q], ref.quarantine) {
				return fmt.Errorf("%s is partial (%d bytes, want %d)", q, len(s.Files[q]), len(ref.quarantine))
			}
		}
		for _, m := range manifests {
			var man Manifest
			if err := json.Unmarshal(s.Files[m], &man); err != nil || man.Format != ManifestFormat {
				return fmt.Errorf("%s is not a complete manifest: %v", m, err)
			}
		}
		for _, b := range backups {
			m := strings.TrimSuffix(b, ".zst") + ManifestSuffix
			if _, ok := s.Files[m]; !ok {
				return fmt.Errorf("%s is visible without its manifest", b)
			}
			content, err := decoded(b, s.Files[b])
			if err != nil || !bytes.Equal(content, ref.orig) {
				return fmt.Errorf("%s does not hold the original (%d bytes, %v)", b, len(content), err)
			}
		}
		if repaired && (len(backups) != 1 || len(quarantines) != 1) {
			return fmt.Errorf("the file is repaired, but its backup (%v) or quarantine file (%v) is missing", backups, quarantines)
		}
		return nil
	}
}

func TestRepairSuite(t *testing.T) {
	for name, opts := range map[string]ApplyOptions{
		"beside":            {},
		"compressed backup": {Compress: true},
		"backup dir":        {BackupDir: "bk"},
	} {
		t.Run(name, func(t *testing.T) {
			opts.Options.Now = func() time.Time { return suiteNow }
			ref := repairReference(t, opts)
			file := "s1.jsonl"
			if opts.BackupDir != "" {
				file = "s/s1.jsonl"
			}
			durabletest.Run(t, durabletest.Case{
				Setup: func(t *testing.T, dir string) {
					require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, file)), 0o755))
					require.NoError(t, os.WriteFile(filepath.Join(dir, file), ref.orig, 0o640))
				},
				Write: func(ctx context.Context, fsys durable.FS, dir string) error {
					o := opts
					o.FS = fsys
					if o.BackupDir != "" {
						o.BackupDir = filepath.Join(dir, o.BackupDir)
					}
					_, err := ApplyFile(ctx, filepath.Join(dir, file), o)
					return err
				},
				Check:  checkRepairState(ref, file),
				Leaves: func(n string) bool { return repairArtifact(n) != "" },
			})
		})
	}
}

// undoSetup repairs smallDamaged in dir (real file system) and returns the
// file, its repaired bytes and the repair's report.
func undoSetup(t *testing.T, dir string, opts ApplyOptions) (string, []byte, *FileReport) {
	t.Helper()
	file := filepath.Join(dir, "s1.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(smallDamaged), 0o640))
	rep, err := ApplyFile(t.Context(), file, opts)
	require.NoError(t, err)
	require.True(t, rep.Changed)
	repaired, err := os.ReadFile(file)
	require.NoError(t, err)
	return file, repaired, rep
}

// Undo: the file is the repair or the original, whole; the backup and its
// manifest are kept whatever happens.
func TestUndoSuite(t *testing.T) {
	var repaired []byte
	var kept map[string][]byte
	durabletest.Run(t, durabletest.Case{
		Setup: func(t *testing.T, dir string) {
			_, r, _ := undoSetup(t, dir, ApplyOptions{Options: Options{Now: func() time.Time { return suiteNow }}})
			repaired = r
			kept = map[string][]byte{}
			for _, n := range listDir(t, dir) {
				if k := repairArtifact(n); k == "backup" || k == "manifest" || k == "quarantine" {
					kept[n], _ = os.ReadFile(filepath.Join(dir, n))
				}
			}
		},
		Write: func(ctx context.Context, fsys durable.FS, dir string) error {
			_, err := Undo(ctx, filepath.Join(dir, "s1.jsonl"), ApplyOptions{FS: fsys})
			return err
		},
		Check: func(s durabletest.State, ok bool) error {
			if _, err := durabletest.OldOrNew(s, "s1.jsonl", repaired, []byte(smallDamaged), ok); err != nil {
				return err
			}
			for n, b := range kept {
				if !bytes.Equal(s.Files[n], b) {
					return fmt.Errorf("%s changed or vanished", n)
				}
			}
			return nil
		},
		Leaves: func(n string) bool { return repairArtifact(n) == "lock" },
	})
}

// undo --force over a file appended to since the repair: the current
// content is backed up (with its manifest) before the original is put back.
func TestUndoForceSuite(t *testing.T) {
	turn := `{"type":"message","id":"z","parentId":"c","timestamp":"2026-05-12T09:10:00.000Z","message":{"role":"user","content":"new turn"}}` + "\n"
	var current []byte
	durabletest.Run(t, durabletest.Case{
		Setup: func(t *testing.T, dir string) {
			file, r, _ := undoSetup(t, dir, ApplyOptions{Options: Options{Now: func() time.Time { return suiteNow }}})
			current = append(r, turn...)
			require.NoError(t, os.WriteFile(file, current, 0o640))
		},
		Write: func(ctx context.Context, fsys durable.FS, dir string) error {
			_, err := Undo(ctx, filepath.Join(dir, "s1.jsonl"), ApplyOptions{FS: fsys, Force: true, Options: Options{Now: func() time.Time { return suiteNow.Add(time.Hour) }}})
			return err
		},
		Check: func(s durabletest.State, ok bool) error {
			restored, err := durabletest.OldOrNew(s, "s1.jsonl", current, []byte(smallDamaged), ok)
			if err != nil {
				return err
			}
			var pre []string
			for _, n := range s.New {
				switch repairArtifact(n) {
				case "backup":
					pre = append(pre, n)
					if _, ok := s.Files[n+ManifestSuffix]; !ok {
						return fmt.Errorf("%s is visible without its manifest", n)
					}
					if !bytes.Equal(s.Files[n], current) {
						return fmt.Errorf("%s does not hold the content before the undo", n)
					}
				case "manifest":
					var man Manifest
					if err := json.Unmarshal(s.Files[n], &man); err != nil || man.Kind != "undo" {
						return fmt.Errorf("%s is not a complete undo manifest: %v", n, err)
					}
				}
			}
			if restored && len(pre) != 1 {
				return fmt.Errorf("restored over a changed file without keeping it first (%v)", pre)
			}
			return nil
		},
		Leaves: func(n string) bool { return repairArtifact(n) != "" },
	})
}

// Undo races: the backup is replaced between undo's checks and its
// restore, by another file under its name or by bytes written into it.
// Undo refuses and leaves the file as the repair left it: it never
// restores bytes it did not check.
func TestUndoRefusesABackupSwappedAfterItsCheck(t *testing.T) {
	other := strings.Replace(smallDamaged, `"hi"`, `"not what was backed up"`, 1)
	swaps := map[string]func(t *testing.T, backup string){
		"renamed over": func(t *testing.T, backup string) {
			tmp := backup + ".other"
			require.NoError(t, os.WriteFile(tmp, []byte(other), 0o640))
			require.NoError(t, os.Rename(tmp, backup))
		},
		"rewritten in place": func(t *testing.T, backup string) {
			f, err := os.OpenFile(backup, os.O_WRONLY|os.O_TRUNC, 0)
			require.NoError(t, err)
			_, err = f.WriteString(other)
			require.NoError(t, err)
			require.NoError(t, f.Close())
		},
	}
	for name, swap := range swaps {
		for _, legacy := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s legacy=%v", name, legacy), func(t *testing.T) {
				dir := t.TempDir()
				file, repaired, rep := undoSetup(t, dir, ApplyOptions{})
				if legacy {
					require.NoError(t, os.Remove(rep.Manifest))
					old := time.Now().Add(-time.Hour)
					require.NoError(t, os.Chtimes(file, old, old))
				}
				swapped := false
				_, err := undo(t.Context(), file, "", ApplyOptions{beforeRestore: func() {
					swap(t, rep.Backup)
					swapped = true
				}})
				require.True(t, swapped, "the hook ran")
				require.ErrorIs(t, err, ErrBackupDamaged)
				got, _ := os.ReadFile(file)
				assert.Equal(t, string(repaired), string(got), "the file is as the repair left it")
				for _, n := range listDir(t, dir) {
					assert.False(t, durable.IsTempName(n), "left behind: %s", n)
				}
			})
		}
	}
	// Without a swap, the same path restores (the hook proves nothing else).
	dir := t.TempDir()
	file, _, _ := undoSetup(t, dir, ApplyOptions{})
	_, err := undo(t.Context(), file, "", ApplyOptions{beforeRestore: func() {}})
	require.NoError(t, err)
	got, _ := os.ReadFile(file)
	assert.Equal(t, smallDamaged, string(got))
}

// The file undo replaces is judged again in what the swap displaced: a
// writer that replaced it after undo's last check keeps its version.
func TestUndoKeepsAFileReplacedBeforeTheSwap(t *testing.T) {
	dir := t.TempDir()
	file, repaired, _ := undoSetup(t, dir, ApplyOptions{})
	writer := append(bytes.Clone(repaired), `{"type":"message","id":"w","parentId":"c","message":{"role":"user","content":"w"}}`+"\n"...)
	fsys := &swapWindowFS{target: file, write: func() {
		tmp := file + ".writer"
		require.NoError(t, os.WriteFile(tmp, writer, 0o640))
		require.NoError(t, os.Rename(tmp, file))
	}}
	_, err := Undo(t.Context(), file, ApplyOptions{FS: fsys})
	require.True(t, fsys.done, "the writer ran in the window")
	require.True(t, errors.Is(err, ErrFileChanged), "err %v", err)
	got, _ := os.ReadFile(file)
	assert.Equal(t, string(writer), string(got), "the writer's version is kept")
	for _, n := range listDir(t, dir) {
		assert.False(t, durable.IsTempName(n), "left behind: %s", n)
	}
}

// swapWindowFS runs write once, right before the first exchange of target:
// after every check, before the swap.
type swapWindowFS struct {
	durable.OSFS
	target string
	write  func()
	done   bool
}

func (f *swapWindowFS) Exchange(a, b string) error {
	if b == f.target && !f.done {
		f.done = true
		f.write()
	}
	return f.OSFS.Exchange(a, b)
}

// Undo honours OpenClaw's write lock as repair does: while a live process
// holds <file>.lock, neither --undo FILE nor the undo of a run touches the
// file.
func TestUndoHonoursTheLiveLock(t *testing.T) {
	sd, files := stateWithDamaged(t, "a.jsonl")
	recordedRun(t, sd, files, ApplyOptions{})
	repaired, _ := os.ReadFile(files[0])
	live := fmt.Sprintf(`{"pid":%d,"createdAt":%q}`, os.Getpid(), time.Now().UTC().Format(time.RFC3339Nano))
	require.NoError(t, os.WriteFile(files[0]+".lock", []byte(live), 0o600))
	_, err := Undo(t.Context(), files[0], ApplyOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "locked by a live process")
	u, err := UndoRun(t.Context(), RunsDir(sd), ApplyOptions{})
	require.NoError(t, err)
	require.Equal(t, 1, u.Failed())
	assert.Contains(t, u.Errors[0], "locked by a live process")
	got, _ := os.ReadFile(files[0])
	assert.Equal(t, string(repaired), string(got), "the file is untouched")
	lock, _ := os.ReadFile(files[0] + ".lock")
	assert.Equal(t, live, string(lock), "the live lock is untouched")
}

// A writer that replaces the transcript after repair's last check, right
// before the swap, loses nothing: the exchange displaced its version, so it
// is put back and the file planned again from it.
func TestRepairKeepsAFileReplacedBeforeTheSwap(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s1.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(smallDamaged), 0o640))
	turn := `{"type":"message","id":"w","parentId":"c","timestamp":"2026-05-12T09:10:00.000Z","message":{"role":"user","content":"written meanwhile"}}` + "\n"
	fsys := &swapWindowFS{target: file, write: func() {
		tmp := file + ".writer"
		require.NoError(t, os.WriteFile(tmp, []byte(smallDamaged+turn), 0o640))
		require.NoError(t, os.Rename(tmp, file))
	}}
	rep, err := ApplyFile(t.Context(), file, ApplyOptions{FS: fsys})
	require.True(t, fsys.done, "the writer ran in the window")
	require.NoError(t, err)
	require.True(t, rep.Changed)
	got, _ := os.ReadFile(file)
	assert.Contains(t, string(got), "written meanwhile", "the writer's turn is in the repaired file")
	backup, _ := os.ReadFile(rep.Backup)
	assert.Equal(t, smallDamaged+turn, string(backup), "the backup is what was repaired: the writer's version")
}
