package repair

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/gatewaylock"
	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// corpusMatching lists corpus files whose name contains all of parts.
func corpusMatching(t *testing.T, parts ...string) []string {
	t.Helper()
	dir := oracletest.CorpusDir(t)
	es, err := os.ReadDir(dir)
	if err != nil {
		oracletest.Unavailable(t, fmt.Sprintf("corpus: %v", err))
	}
	var out []string
next:
	for _, e := range es {
		for _, p := range parts {
			if !strings.Contains(e.Name(), p) {
				continue next
			}
		}
		out = append(out, filepath.Join(dir, e.Name()))
	}
	return out
}

// Item 1: cron run logs and trajectories are not transcripts: planned as
// such, never written, an error when named, skipped in a folder.
func TestNotATranscriptIsNeverWritten(t *testing.T) {
	files := append(corpusMatching(t, "__cron__runs__", ".jsonl"), corpusMatching(t, ".trajectory.jsonl")...)
	require.GreaterOrEqual(t, len(files), 6, "the corpus has cron run logs and a trajectory")
	for _, src := range files {
		p, err := PlanFile(src, Options{}) // read in place
		require.NoError(t, err)
		assert.Equal(t, SkipNotTranscript, p.Skipped, filepath.Base(src))
		p56, err := PlanFile(src, Options{Rules: RuleSetOpenClaw})
		require.NoError(t, err)
		assert.Equal(t, SkipNotTranscript, p56.Skipped, "%s: with the 2026.5.6 rules too", filepath.Base(src))
		assert.False(t, p.Changed(), filepath.Base(src))
		assert.False(t, p.NeedsAttention(), "%s: not a transcript is not a finding of --check", filepath.Base(src))

		dir := t.TempDir()
		orig, err := os.ReadFile(src)
		require.NoError(t, err)
		file := filepath.Join(dir, filepath.Base(src))
		require.NoError(t, os.WriteFile(file, orig, 0o600))
		named := Run(t.Context(), []string{file}, RunOptions{Explicit: map[string]bool{file: true}})
		require.Len(t, named.Files, 1)
		assert.Contains(t, named.Files[0].Error, "not an OpenClaw transcript")
		assert.Equal(t, 1, named.Totals.Errors, "named explicitly: an error (exit 3)")
		walked := Run(t.Context(), []string{file}, RunOptions{})
		assert.Empty(t, walked.Files[0].Error, "found in a folder: skipped, not an error")
		assert.Equal(t, SkipNotTranscript, walked.Files[0].Skipped)
		got, _ := os.ReadFile(file)
		assert.True(t, bytes.Equal(orig, got), "%s: never written", filepath.Base(src))
		assert.Equal(t, []string{filepath.Base(file)}, listDir(t, dir), "no backup, no quarantine")
	}
	// A transcript whose header is gone still gets one (the body is evidently a transcript).
	body := `{"type":"message","id":"a","parentId":null,"timestamp":"2026-05-12T09:00:01.000Z","message":{"role":"user","content":"hi"}}` + "\n"
	p, err := PlanReader(strings.NewReader("{\"ty\n"+body), "x.jsonl", Options{})
	require.NoError(t, err)
	assert.Equal(t, 1, p.Counts[RuleHeaderRebuild])
}

func repairSmall(t *testing.T, dir, name string, opts ApplyOptions) (string, *FileReport) {
	t.Helper()
	file := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(file, []byte(smallDamaged), 0o640))
	rep, err := ApplyFile(t.Context(), file, opts)
	require.NoError(t, err)
	require.True(t, rep.Changed)
	return file, rep
}

// Item 3: turns appended after the repair are never dropped by --undo.
func TestUndoRefusesWhenAppendedAndForceKeepsIt(t *testing.T) {
	dir := t.TempDir()
	file, rep := repairSmall(t, dir, "s1.jsonl", ApplyOptions{})
	repaired, _ := os.ReadFile(file)
	turn := `{"type":"message","id":"z","parentId":"c","timestamp":"2026-05-12T09:10:00.000Z","message":{"role":"user","content":"new turn"}}` + "\n"
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(turn)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	_, err = Undo(t.Context(), file, ApplyOptions{})
	require.ErrorIs(t, err, ErrChangedSinceRepair)
	assert.Contains(t, err.Error(), fmt.Sprintf("%d bytes appended since the repair", len(turn)))
	now, _ := os.ReadFile(file)
	assert.Equal(t, string(repaired)+turn, string(now), "refused: the file is untouched")

	u, err := Undo(t.Context(), file, ApplyOptions{Force: true})
	require.NoError(t, err)
	require.NotEmpty(t, u.PreUndoBackup)
	kept, _ := os.ReadFile(u.PreUndoBackup)
	assert.Equal(t, string(repaired)+turn, string(kept), "--force backs up the current file first")
	now, _ = os.ReadFile(file)
	assert.Equal(t, smallDamaged, string(now), "restored")
	assert.Equal(t, rep.Backup, u.RestoredFrom)
	// The pre-undo backup is itself undoable (the file is what the undo wrote).
	u2, err := Undo(t.Context(), file, ApplyOptions{})
	require.NoError(t, err)
	assert.Equal(t, u.PreUndoBackup, u2.RestoredFrom)
	now, _ = os.ReadFile(file)
	assert.Equal(t, string(repaired)+turn, string(now))
}

// Item 3: a shared --backup-dir never mixes up two files with one name.
func TestUndoSharedBackupDirTakesOnlyItsOwn(t *testing.T) {
	root := t.TempDir()
	bdir := filepath.Join(root, "backups")
	a, b := filepath.Join(root, "A"), filepath.Join(root, "B")
	require.NoError(t, os.MkdirAll(a, 0o755))
	require.NoError(t, os.MkdirAll(b, 0o755))
	fa, _ := repairSmall(t, a, "X.jsonl", ApplyOptions{BackupDir: bdir})
	other := strings.Replace(smallDamaged, `"hi"`, `"B's conversation"`, 1)
	fb := filepath.Join(b, "X.jsonl")
	require.NoError(t, os.WriteFile(fb, []byte(other), 0o640))
	rb, err := ApplyFile(t.Context(), fb, ApplyOptions{BackupDir: bdir})
	require.NoError(t, err)
	require.True(t, rb.Changed)

	u, err := Undo(t.Context(), fa, ApplyOptions{BackupDir: bdir})
	require.NoError(t, err)
	got, _ := os.ReadFile(fa)
	assert.Equal(t, smallDamaged, string(got), "A gets A's original, not B's")
	assert.Equal(t, 1, u.OtherSources)
	_, err = Undo(t.Context(), fb, ApplyOptions{BackupDir: bdir})
	require.NoError(t, err)
	got, _ = os.ReadFile(fb)
	assert.Equal(t, other, string(got))
}

// Item 3: a partial or altered backup is never restored.
func TestUndoRefusesDamagedBackup(t *testing.T) {
	for _, compress := range []bool{false, true} {
		dir := t.TempDir()
		file, rep := repairSmall(t, dir, "s1.jsonl", ApplyOptions{BackupDir: filepath.Join(dir, "bk"), Compress: compress})
		repaired, _ := os.ReadFile(file)
		bk, _ := os.ReadFile(rep.Backup)
		require.NoError(t, os.Remove(rep.Backup)) // not through the link: a fresh, cut copy
		require.NoError(t, os.WriteFile(rep.Backup, bk[:len(bk)/2], 0o640))
		_, err := Undo(t.Context(), file, ApplyOptions{BackupDir: filepath.Join(dir, "bk"), Force: true})
		require.ErrorIs(t, err, ErrBackupDamaged, "compress=%v", compress)
		got, _ := os.ReadFile(file)
		assert.Equal(t, string(repaired), string(got), "the file is untouched")
	}
}

// Item 3: undo of a repair made by the previous oc (legacy quarantine name,
// no manifest) still works, and its checks still refuse what they can see.
func TestUndoLegacyRepair(t *testing.T) {
	setup := func(t *testing.T) (dir, file, backup, quarantine string) {
		dir = t.TempDir()
		file = filepath.Join(dir, "s1.jsonl")
		require.NoError(t, os.WriteFile(file, []byte(smallDamaged), 0o640))
		p, err := PlanFile(file, Options{})
		require.NoError(t, err)
		stamp := "20260101T000000Z"
		backup = file + durable.BackupInfix + stamp
		quarantine = LegacyQuarantinePath(file, "", stamp)
		var out, q bytes.Buffer
		f, _ := os.Open(file)
		require.NoError(t, p.Render(f, &out, &q))
		f.Close()
		require.NoError(t, os.Rename(file, backup))
		require.NoError(t, os.WriteFile(file, out.Bytes(), 0o640))
		require.NoError(t, os.WriteFile(quarantine, q.Bytes(), 0o640))
		// the repair happened a while ago
		old, qt := time.Now().Add(-time.Hour), time.Now().Add(-59*time.Minute)
		require.NoError(t, os.Chtimes(file, old, old))
		require.NoError(t, os.Chtimes(quarantine, qt, qt))
		return
	}
	t.Run("restores", func(t *testing.T) {
		_, file, _, _ := setup(t)
		u, err := Undo(t.Context(), file, ApplyOptions{})
		require.NoError(t, err)
		assert.True(t, u.Legacy)
		assert.NotEmpty(t, u.Checked)
		got, _ := os.ReadFile(file)
		assert.Equal(t, smallDamaged, string(got))
	})
	t.Run("cut backup refused", func(t *testing.T) {
		_, file, backup, _ := setup(t)
		require.NoError(t, os.Truncate(backup, int64(len(smallDamaged)/2)))
		_, err := Undo(t.Context(), file, ApplyOptions{Force: true})
		require.ErrorIs(t, err, ErrBackupDamaged)
	})
	t.Run("another file's backup refused", func(t *testing.T) {
		_, file, backup, _ := setup(t)
		// the same name in a shared backup dir: B's original, stamped later
		other := strings.Replace(smallDamaged, `"id":"s1"`, `"id":"s2"`, 1)
		otherBackup := strings.Replace(backup, "20260101T000000Z", "20260101T000009Z", 1)
		require.NoError(t, os.WriteFile(otherBackup, []byte(other), 0o640))
		require.NoError(t, os.WriteFile(LegacyQuarantinePath(file, "", "20260101T000009Z"), nil, 0o640))
		_, err := Undo(t.Context(), file, ApplyOptions{})
		require.ErrorIs(t, err, ErrChangedSinceRepair)
		assert.Contains(t, err.Error(), "another file's")
	})
	t.Run("appended refused", func(t *testing.T) {
		_, file, _, _ := setup(t)
		f, _ := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
		_, _ = f.WriteString(`{"type":"message","id":"z","parentId":"c","message":{"role":"user","content":"x"}}` + "\n")
		f.Close()
		_, err := Undo(t.Context(), file, ApplyOptions{})
		require.ErrorIs(t, err, ErrChangedSinceRepair)
	})
}

// Item 3: a backup or quarantine file never exists under its final name
// before it is complete (a kill mid-copy cannot leave a partial backup that
// undo would take for a whole one).
type watchFS struct {
	durable.OSFS
	dir    string
	bad    atomic.Value
	noLink bool
}

type watchFile struct {
	*os.File
	fs *watchFS
}

func (w watchFile) Write(p []byte) (int, error) {
	n := filepath.Base(w.Name())
	if strings.Contains(n, ".bak-oc-") && !strings.Contains(n, ManifestSuffix) {
		if !strings.Contains(n, durable.TempPrefix) {
			w.fs.bad.Store(n + " is written under its final name")
		} else if es, _ := filepath.Glob(filepath.Join(w.fs.dir, "s1.jsonl.bak-oc-*")); len(es) > 0 {
			w.fs.bad.Store(filepath.Base(es[0]) + " exists while its content is being written")
		}
	}
	return w.File.Write(p)
}

func (w *watchFS) CreateTemp(dir, pattern string) (durable.File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return watchFile{f, w}, nil
}

func (w *watchFS) CreateExcl(path string, mode os.FileMode) (durable.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return nil, err
	}
	return watchFile{f, w}, nil
}

func (w *watchFS) Link(o, n string) error {
	if w.noLink {
		return &os.LinkError{Op: "link", Old: o, New: n, Err: syscall.EXDEV}
	}
	return os.Link(o, n)
}

func TestBackupNeverVisiblePartial(t *testing.T) {
	for _, compress := range []bool{false, true} {
		dir := t.TempDir()
		big := smallDamaged + strings.Repeat(`{"type":"message","id":"p","parentId":"c","message":{"role":"user","content":"padding padding padding"}}`+"\n", 20000)
		file := filepath.Join(dir, "s1.jsonl")
		require.NoError(t, os.WriteFile(file, []byte(big), 0o640))
		fs := &watchFS{dir: dir, noLink: true}
		rep, err := ApplyFile(t.Context(), file, ApplyOptions{FS: fs, Compress: compress})
		require.NoError(t, err)
		require.True(t, rep.Changed)
		assert.Nil(t, fs.bad.Load(), "compress=%v", compress)
		u, err := Undo(t.Context(), file, ApplyOptions{})
		require.NoError(t, err)
		assert.Equal(t, rep.Backup, u.RestoredFrom)
		got, _ := os.ReadFile(file)
		assert.Equal(t, big, string(got))
	}
}

// Item 4: a lock on the real file stops a repair through a symlink; undo
// through the link restores the real file and keeps the link.
func TestSymlinkLockAndUndo(t *testing.T) {
	dir := t.TempDir()
	realDir := filepath.Join(dir, "volume")
	sessions := filepath.Join(dir, "sessions")
	require.NoError(t, os.MkdirAll(realDir, 0o755))
	require.NoError(t, os.MkdirAll(sessions, 0o755))
	target := filepath.Join(realDir, "real.jsonl")
	require.NoError(t, os.WriteFile(target, []byte(smallDamaged), 0o640))
	link := filepath.Join(sessions, "link.jsonl")
	require.NoError(t, os.Symlink(target, link))

	held, err := gatewaylock.AcquireLock(t.Context(), target, gatewaylock.LockOptions{})
	require.NoError(t, err)
	_, err = ApplyFile(t.Context(), link, ApplyOptions{})
	require.ErrorIs(t, err, gatewaylock.ErrLocked, "the gateway's lock on the real file counts")
	got, _ := os.ReadFile(target)
	assert.Equal(t, smallDamaged, string(got))
	require.NoError(t, held.Release())

	rep, err := ApplyFile(t.Context(), link, ApplyOptions{})
	require.NoError(t, err)
	require.True(t, rep.Changed)
	_, err = Undo(t.Context(), link, ApplyOptions{})
	require.NoError(t, err)
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the link is still a link")
	got, _ = os.ReadFile(target)
	assert.Equal(t, smallDamaged, string(got), "the real file is restored")
	for _, p := range []string{gatewaylock.LockPath(link), gatewaylock.LockPath(target)} {
		_, err := os.Stat(p)
		assert.ErrorIs(t, err, os.ErrNotExist, "lock %s released", p)
	}
}

// Item 4: a hard-linked transcript is repaired with a warning.
func TestHardLinkWarning(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s1.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(smallDamaged), 0o640))
	require.NoError(t, os.Link(file, filepath.Join(dir, "other-name")))
	check := Run(t.Context(), []string{file}, RunOptions{ReadOnly: true})
	require.Len(t, check.Files[0].Warnings, 1, "--check warns too")
	rep, err := ApplyFile(t.Context(), file, ApplyOptions{})
	require.NoError(t, err)
	require.Len(t, rep.Warnings, 1)
	assert.Contains(t, rep.Warnings[0], "hard-linked")
	assert.Contains(t, rep.Warnings[0], "2 names")
	p, err := PlanFile(file, Options{})
	require.NoError(t, err)
	assert.False(t, p.Changed())
}

// appendFS simulates a writer that ignores the lock: it appends a turn to
// the transcript whenever oc creates a temporary file (times times).
type appendFS struct {
	durable.OSFS
	file  string
	times int
	done  int
}

func (a *appendFS) CreateTemp(dir, pattern string) (durable.File, error) {
	if strings.HasPrefix(pattern, "."+filepath.Base(a.file)+durable.TempPrefix) && a.done < a.times {
		a.done++
		f, err := os.OpenFile(a.file, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			fmt.Fprintf(f, `{"type":"message","id":"w%d","parentId":"c","timestamp":"2026-05-12T09:20:00.000Z","message":{"role":"user","content":"written meanwhile"}}`+"\n", a.done)
			f.Close()
		}
	}
	return os.CreateTemp(dir, pattern)
}

// Item 5: a file that changes during the repair is planned again (the
// writer's turn is kept), or given up with ErrFileChanged; never a panic,
// never an orphan file, never a lock left.
func TestFileChangedDuringRepair(t *testing.T) {
	t.Run("replanned", func(t *testing.T) {
		dir := t.TempDir()
		file := filepath.Join(dir, "s1.jsonl")
		require.NoError(t, os.WriteFile(file, []byte(smallDamaged), 0o640))
		rep, err := ApplyFile(t.Context(), file, ApplyOptions{FS: &appendFS{file: file, times: 1}})
		require.NoError(t, err)
		require.True(t, rep.Changed)
		got, _ := os.ReadFile(file)
		assert.Contains(t, string(got), `"id":"w1"`, "the turn written meanwhile is kept")
		bk, _ := os.ReadFile(rep.Backup)
		assert.Contains(t, string(bk), `"id":"w1"`, "the backup is what was repaired")
	})
	t.Run("given up", func(t *testing.T) {
		dir := t.TempDir()
		file := filepath.Join(dir, "s1.jsonl")
		require.NoError(t, os.WriteFile(file, []byte(smallDamaged), 0o640))
		_, err := ApplyFile(t.Context(), file, ApplyOptions{FS: &appendFS{file: file, times: 100}})
		require.ErrorIs(t, err, ErrFileChanged)
		got, _ := os.ReadFile(file)
		assert.True(t, strings.HasPrefix(string(got), smallDamaged), "nothing of the original lost")
		assert.Equal(t, []string{"s1.jsonl"}, listDir(t, dir), "no backup, quarantine, temp or lock left")
	})
	t.Run("appended while waiting for the lock", func(t *testing.T) {
		dir := t.TempDir()
		file := filepath.Join(dir, "s1.jsonl")
		require.NoError(t, os.WriteFile(file, []byte(smallDamaged), 0o640))
		held, err := gatewaylock.AcquireLock(t.Context(), file, gatewaylock.LockOptions{})
		require.NoError(t, err)
		go func() {
			time.Sleep(150 * time.Millisecond)
			f, _ := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(`{"type":"message","id":"g1","parentId":"c","message":{"role":"user","content":"gateway turn"}}` + "\n")
			f.Close()
			_ = held.Release()
		}()
		rep, err := ApplyFile(t.Context(), file, ApplyOptions{Lock: gatewaylock.LockOptions{Wait: 10 * time.Second}})
		require.NoError(t, err)
		require.True(t, rep.Changed)
		got, _ := os.ReadFile(file)
		assert.Contains(t, string(got), `"id":"g1"`)
	})
}

// panicFS panics when oc creates the temporary file of one transcript.
type panicFS struct {
	durable.OSFS
	victim string
}

func (p panicFS) CreateTemp(dir, pattern string) (durable.File, error) {
	if strings.HasPrefix(pattern, "."+p.victim) {
		panic("simulated bug")
	}
	return os.CreateTemp(dir, pattern)
}

// Item 5: with --jobs > 1 one failing file does not kill the run nor leave locks.
func TestRunSurvivesOneFileFailing(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := 0; i < 4; i++ {
		p := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i))
		require.NoError(t, os.WriteFile(p, []byte(smallDamaged), 0o640))
		paths = append(paths, p)
	}
	rep := Run(t.Context(), paths, RunOptions{Jobs: 3, ApplyOptions: ApplyOptions{FS: panicFS{victim: "s2.jsonl"}}})
	assert.Equal(t, 1, rep.Totals.Errors)
	assert.Contains(t, rep.Files[2].Error, "internal error")
	assert.Equal(t, 3, rep.Totals.Changed)
	for _, n := range listDir(t, dir) {
		assert.False(t, strings.HasSuffix(n, ".lock"), "lock left: %s", n)
	}
}

// Item 6: a cancelled context leaves the file as it was, and nothing behind.
func TestCancelledRepairLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s1.jsonl")
	big := smallDamaged + strings.Repeat(`{"type":"message","id":"p","parentId":"c","message":{"role":"user","content":"padding"}}`+"\n", 50000)
	require.NoError(t, os.WriteFile(file, []byte(big), 0o640))
	ctx, cancel := context.WithCancel(context.Background())
	fs := &cancelFS{cancel: cancel}
	rep := Run(ctx, []string{file, file + ".never"}, RunOptions{Jobs: 1, ApplyOptions: ApplyOptions{FS: fs}})
	assert.True(t, rep.Totals.Interrupted)
	assert.Contains(t, rep.Files[0].Error, "interrupted")
	assert.Contains(t, rep.Files[1].Error, "not started")
	got, _ := os.ReadFile(file)
	assert.Equal(t, big, string(got))
	assert.Equal(t, []string{"s1.jsonl"}, listDir(t, dir))
}

type cancelFS struct {
	durable.OSFS
	cancel func()
}

func (c *cancelFS) CreateTemp(dir, pattern string) (durable.File, error) {
	c.cancel()
	return os.CreateTemp(dir, pattern)
}

// Item 7: FIFOs named like transcripts or locks never hang a command.
func TestFIFOsNeverHang(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f1.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	file := filepath.Join(dir, "s1.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(smallDamaged), 0o640))
	require.NoError(t, syscall.Mkfifo(gatewaylock.LockPath(file), 0o644))

	within := func(name string, fn func() error) error {
		t.Helper()
		ch := make(chan error, 1)
		go func() { ch <- fn() }()
		select {
		case err := <-ch:
			return err
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: hung on a FIFO", name)
			return nil
		}
	}
	err := within("plan", func() error { _, err := PlanFile(fifo, Options{}); return err })
	assert.ErrorIs(t, err, durable.ErrNotRegular)
	assert.Contains(t, err.Error(), fifo)
	err = within("apply", func() error { _, err := ApplyFile(t.Context(), fifo, ApplyOptions{}); return err })
	assert.ErrorIs(t, err, durable.ErrNotRegular)
	err = within("open", func() error { _, err := jsonl.Open(fifo, nil); return err })
	assert.ErrorIs(t, err, durable.ErrNotRegular)
	err = within("lock fifo", func() error { _, err := ApplyFile(t.Context(), file, ApplyOptions{}); return err })
	assert.ErrorIs(t, err, durable.ErrNotRegular)
	assert.Contains(t, err.Error(), ".lock")
	got, _ := os.ReadFile(file)
	assert.Equal(t, smallDamaged, string(got))
	rep := Run(t.Context(), []string{fifo, file}, RunOptions{ReadOnly: true})
	assert.Contains(t, rep.Files[0].Error, "not a regular file")
	assert.Empty(t, rep.Files[1].Error)
}

// Item 8: the damage matrix. Every damage kind × every live corpus
// transcript × 3 seeds (the damage lands at a different place of a
// different prefix of the file): the backup is the original; every original
// line is in the result or the quarantine, as many times as it occurred; a
// second run changes nothing; undo is byte-exact; no file oc made in the
// folder is a session by OpenClaw's naming rule.
func TestDamageMatrix(t *testing.T) {
	var live []string
	for _, p := range oracletest.Transcripts(t) {
		if k, _ := transcript.ClassifyName(filepath.Base(p)); k == transcript.KindLive {
			live = append(live, p)
		}
	}
	require.GreaterOrEqual(t, len(live), 8)
	base := fastTempDir(t)
	cases, changed := 0, 0
	for _, src := range live {
		raw, err := os.ReadFile(src)
		require.NoError(t, err)
		all := splitLines(raw)
		for seed := uint64(1); seed <= 3; seed++ {
			rng := rand.New(rand.NewPCG(seed, uint64(len(raw))))
			n := len(all)
			if n > 4 {
				n = 4 + rng.IntN(len(all)-3)
			}
			ls := all[:n]
			for _, d := range damages {
				orig, _ := d.fn(ls)
				if orig == nil {
					continue
				}
				cases++
				name := fmt.Sprintf("%s-%d-%s", SessionIDFromName(src), seed, d.name)
				dir := filepath.Join(base, name)
				require.NoError(t, os.MkdirAll(dir, 0o755))
				file := filepath.Join(dir, SessionIDFromName(src)+".jsonl")
				require.NoError(t, os.WriteFile(file, orig, 0o600))
				if checkMatrixCase(t, name, file, orig) {
					changed++
				}
			}
		}
	}
	require.GreaterOrEqual(t, cases, 3*len(live)*5, "matrix too small")
	require.GreaterOrEqual(t, changed, cases*3/4, "most damage must be repaired for the checks to mean something")
	t.Logf("%d damage cases (%d transcripts × %d damage kinds × 3 seeds, where the file is long enough)", cases, len(live), len(damages))
}

// fastTempDir is a temporary folder on tmpfs when there is one: the matrix
// checks what ends up in the files, not durability, and fsync on a shared
// disk would make it slow.
func fastTempDir(t *testing.T) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		d, err := os.MkdirTemp("/dev/shm", "oc-matrix-")
		if err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return t.TempDir()
}

func lineMultiset(b []byte) map[string]int {
	m := map[string]int{}
	rd := jsonl.NewReader(bytes.NewReader(b))
	for {
		ln, err := rd.Next()
		if err != nil {
			return m
		}
		m[string(ln.Data)]++
	}
}

func checkMatrixCase(t *testing.T, name, file string, orig []byte) bool {
	t.Helper()
	rep, err := ApplyFile(t.Context(), file, ApplyOptions{})
	require.NoError(t, err, name)
	if !rep.Changed {
		return false // damage that needs nothing (e.g. blank lines only)
	}
	bk, err := os.ReadFile(rep.Backup)
	require.NoError(t, err)
	require.True(t, bytes.Equal(bk, orig), "%s: backup == original", name)
	result, _ := os.ReadFile(file)
	have := lineMultiset(result)
	if rep.Quarantine != "" {
		recs, err := readQuarantineFile(rep.Quarantine)
		require.NoError(t, err)
		for _, r := range recs {
			b, err := r.Original()
			require.NoError(t, err)
			have[string(b)]++
		}
	}
	for l, c := range lineMultiset(orig) {
		if jsonl.IsBlank([]byte(l)) {
			continue
		}
		if have[l] < c {
			t.Errorf("%s: a line occurring %d times is in result+quarantine %d times: %q", name, c, have[l], truncate([]byte(l)))
		}
	}
	rep2, err := ApplyFile(t.Context(), file, ApplyOptions{})
	require.NoError(t, err)
	assert.False(t, rep2.Changed, "%s: second run changed %v", name, rep2.Rules)
	u, err := Undo(t.Context(), file, ApplyOptions{})
	require.NoError(t, err, name)
	assert.False(t, u.Legacy)
	got, _ := os.ReadFile(file)
	require.True(t, bytes.Equal(got, orig), "%s: undo is byte-exact", name)
	for _, n := range listDir(t, filepath.Dir(file)) {
		if n == filepath.Base(file) {
			continue
		}
		assert.False(t, transcript.IsPrimarySessionTranscriptFileName(n), "%s: OpenClaw would count %s as a session", name, n)
		if k, _ := transcript.ClassifyName(n); k == transcript.KindLive {
			t.Errorf("%s: %s classified live", name, n)
		}
	}
	return true
}

// crashAtManifestFS stands for a process killed just before a backup's
// manifest is created: it panics there (deferred clean-ups still run, as
// after a kill they would not; what matters is what was already published).
type crashAtManifestFS struct{ durable.OSFS }

func (crashAtManifestFS) CreateTemp(dir, pattern string) (durable.File, error) {
	if strings.Contains(pattern, ".manifest.json") {
		panic("killed before the manifest")
	}
	return os.CreateTemp(dir, pattern)
}

// A backup is visible only with its manifest, for a repair's backup and for
// the one undo --force keeps of the current file: a manifest-less backup is
// taken for an old oc's (checked by mtime only) and shadows older ones.
func TestNoBackupVisibleWithoutManifest(t *testing.T) {
	body := `{"type":"session","version":3,"id":"s","timestamp":"2026-05-12T09:00:00.000Z","cwd":"/"}` + "\n" +
		`{"type":"message","id":"a","parentId":null,"timestamp":"2026-05-12T09:00:01.000Z","message":{"role":"user","content":"hi"}}` + "\n"
	crash := func(t *testing.T, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Fatal("the simulated kill did not happen")
			}
		}()
		f()
	}
	check := func(t *testing.T, file string) {
		t.Helper()
		bks, err := durable.FindBackups(file, "")
		require.NoError(t, err)
		for _, b := range bks {
			_, err := os.Stat(ManifestPath(b))
			assert.NoError(t, err, "%s is visible without its manifest", filepath.Base(b))
		}
	}
	for _, compress := range []bool{false, true} {
		file := filepath.Join(t.TempDir(), "x.jsonl")
		require.NoError(t, os.WriteFile(file, []byte(body+"{\"ty\n"), 0o600))
		crash(t, func() { _, _ = ApplyFile(t.Context(), file, ApplyOptions{FS: crashAtManifestFS{}, Compress: compress}) })
		check(t, file)
	}
	// undo --force over an appended file keeps the current file first.
	file := filepath.Join(t.TempDir(), "x.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(body+"{\"ty\n"), 0o600))
	_, err := ApplyFile(t.Context(), file, ApplyOptions{})
	require.NoError(t, err)
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"type":"message","id":"b","parentId":"a","timestamp":"2026-05-12T09:00:02.000Z","message":{"role":"user","content":"later"}}` + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	crash(t, func() { _, _ = Undo(t.Context(), file, ApplyOptions{FS: crashAtManifestFS{}, Force: true}) })
	check(t, file)
}

// Item 3: undo of a repair whose manifest an older oc wrote (SHA-256
// digests, before BLAKE3) checks the backup and the file by SHA-256, and
// still refuses a backup that does not match.
func TestUndoSHA256Manifest(t *testing.T) {
	for _, damaged := range []bool{false, true} {
		dir := t.TempDir()
		bk := filepath.Join(dir, "bk")
		file, rep := repairSmall(t, dir, "s1.jsonl", ApplyOptions{BackupDir: bk})
		original, _ := os.ReadFile(rep.Backup)
		repaired, _ := os.ReadFile(file)
		raw, err := os.ReadFile(rep.Manifest)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(raw, &m))
		require.NotEmpty(t, m["backup"].(map[string]any)["blake3"], "a new manifest records BLAKE3")
		old := func(b []byte) map[string]any {
			sum := sha256.Sum256(b)
			return map[string]any{"size": len(b), "sha256": hex.EncodeToString(sum[:])}
		}
		m["backup"], m["original"], m["written"] = old(original), old(original), old(repaired)
		if damaged {
			m["backup"] = old(append(bytes.Clone(original), 'x')[1:])
		}
		raw, _ = json.Marshal(m)
		require.NoError(t, os.WriteFile(rep.Manifest, raw, 0o600))
		u, err := Undo(t.Context(), file, ApplyOptions{BackupDir: bk})
		got, _ := os.ReadFile(file)
		if damaged {
			require.ErrorIs(t, err, ErrBackupDamaged)
			assert.Equal(t, string(repaired), string(got), "the file is untouched")
			continue
		}
		require.NoError(t, err)
		assert.Contains(t, u.Checked, "backup size and digest match the manifest")
		assert.Equal(t, string(original), string(got), "the original is back")
	}
}
