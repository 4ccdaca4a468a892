package repair

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// ErrChangedSinceRepair: the file is no longer what the repair wrote (the
// gateway appended turns, someone edited it). Undo refuses without Force.
var ErrChangedSinceRepair = errors.New("changed since the repair")

// ErrBackupDamaged: the backup is not what its manifest records (a partial
// copy, or bytes written into it later). Undo refuses, even with Force.
var ErrBackupDamaged = errors.New("backup is incomplete or changed")

// UndoReport says what Undo did.
type UndoReport struct {
	Path string `json:"path"`
	// RealPath is the file restored when Path is a symlink.
	RealPath     string `json:"realPath,omitempty"`
	RestoredFrom string `json:"restoredFrom,omitempty"`
	Manifest     string `json:"manifest,omitempty"`
	// Legacy: the backup came from an oc without manifests; Checked lists
	// what could be verified.
	Legacy  bool     `json:"legacy,omitempty"`
	Checked []string `json:"checked,omitempty"`
	// AlreadyRestored: the file already held the backup's content.
	AlreadyRestored bool `json:"alreadyRestored,omitempty"`
	// Changed describes how the file differed from what the repair wrote
	// (restored anyway with Force, after PreUndoBackup was made).
	Changed       string `json:"changedSinceRepair,omitempty"`
	PreUndoBackup string `json:"preUndoBackup,omitempty"`
	// OtherSources counts backups with the file's name that belong to
	// another file (a shared --backup-dir) and were left alone.
	OtherSources int `json:"otherSources,omitempty"`
}

// undoCandidate is a backup and its manifest (nil: legacy).
type undoCandidate struct {
	backup string
	m      *Manifest
	// verified is the digest of the content the checks accepted: the
	// manifest's Original, or for a legacy backup the digest of what its
	// check decoded. The restore writes exactly that or nothing.
	verified durable.Digest
}

// findOwnBackup returns the newest backup of real that is its own: one whose
// manifest names real, or a legacy backup without a manifest.
func findOwnBackup(real, dir string) (undoCandidate, int, error) {
	all, err := durable.FindBackups(real, dir)
	if err != nil {
		return undoCandidate{}, 0, err
	}
	others := 0
	for i := len(all) - 1; i >= 0; i-- {
		m, err := ReadManifest(all[i])
		if err != nil {
			return undoCandidate{}, others, err
		}
		if m != nil && (m.Source != real || m.SourceID != SourceID(real)) {
			others++
			continue
		}
		return undoCandidate{backup: all[i], m: m}, others, nil
	}
	if others > 0 {
		return undoCandidate{}, others, fmt.Errorf("%s: %w (%s with this name %s to other files)", real, durable.ErrNoBackup, countNoun(others, "backup", "backups"), plural(others, "belongs", "belong"))
	}
	return undoCandidate{}, 0, fmt.Errorf("%s: %w", real, durable.ErrNoBackup)
}

// Undo restores the newest backup of path that belongs to it, atomically,
// under the write lock (of the name given and of the real file behind a
// symlink; the real file is replaced, the link stays a link), and only when
// it is safe:
//   - the backup is verified first: size and SHA-256 against its manifest
//     (ErrBackupDamaged otherwise, even with Force);
//   - the file must still be exactly what the repair wrote (the manifest's
//     digest); otherwise ErrChangedSinceRepair names the change ("N bytes
//     appended since the repair"), and with Force the current file is first
//     backed up (with its own manifest) and then restored over;
//   - the restored bytes are checked against the original's digest before
//     the rename.
//
// Backups of an oc without manifests ("legacy") are checked as well as their
// files allow, see checkLegacy. The backup itself is kept.
func Undo(ctx context.Context, path string, opts ApplyOptions) (*UndoReport, error) {
	return undo(ctx, path, "", opts)
}

// undo is Undo from the backup named backup ("" : the newest that belongs
// to the file), which must belong to the file.
func undo(ctx context.Context, path, backup string, opts ApplyOptions) (*UndoReport, error) {
	fsys := opts.fs()
	real := realAbs(path)
	rep := &UndoReport{Path: path}
	if abs, _ := filepath.Abs(path); abs != real {
		rep.RealPath = real
	}
	if st, err := os.Lstat(real); err == nil && !st.Mode().IsRegular() {
		return rep, fmt.Errorf("%s: %w", real, durable.ErrNotRegular)
	}
	lockOpts := opts.Lock
	lockOpts.FS = fsys
	release, _, err := lockAll(ctx, []string{path, real}, lockOpts)
	if err != nil {
		return rep, err
	}
	defer release()

	var cand undoCandidate
	if backup == "" {
		var others int
		cand, others, err = findOwnBackup(real, opts.BackupDir)
		rep.OtherSources = others
	} else {
		cand, err = namedBackup(real, backup)
	}
	if err != nil {
		return rep, err
	}
	rep.RestoredFrom = cand.backup

	// 1. The backup must be complete and unchanged.
	if err := checkUndoBackup(rep, real, opts.BackupDir, &cand); err != nil {
		return rep, err
	}

	// 2. The file must still be what the repair wrote.
	cur, curErr := os.Stat(real)
	if curErr != nil && !errors.Is(curErr, os.ErrNotExist) {
		return rep, curErr
	}
	changed := "the file was deleted since the repair"
	if curErr == nil {
		if changed, err = checkUndoFile(rep, real, opts.BackupDir, cand, cur); err != nil || rep.AlreadyRestored {
			return rep, err
		}
	}
	if changed != "" {
		rep.Changed = changed
		if !opts.Force {
			return rep, fmt.Errorf("%s: %w: %s; not restored (the backup %s and the current file are both kept; `oc repair --undo --force` restores after backing up the current file)",
				path, ErrChangedSinceRepair, changed, cand.backup)
		}
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}

	// 3. With Force over a changed file: back the current file up first.
	if changed != "" && curErr == nil {
		pre, err := backupCurrent(ctx, opts, real, cur, cand)
		if err != nil {
			return rep, fmt.Errorf("backing up the current file before undo: %w", err)
		}
		rep.PreUndoBackup = pre
	}

	// 4. Restore exactly the bytes the checks accepted.
	if curErr != nil {
		cur = nil // deleted: nothing to check before the rename
	}
	if opts.beforeRestore != nil {
		opts.beforeRestore()
	}
	return rep, restoreBackup(ctx, fsys, real, cand, cur)
}

// namedBackup is the backup a run manifest names for real: its manifest
// must say it is real's.
func namedBackup(real, backup string) (undoCandidate, error) {
	m, err := ReadManifest(backup)
	if err != nil {
		return undoCandidate{}, err
	}
	if m == nil {
		if _, err := os.Lstat(backup); err != nil {
			return undoCandidate{}, fmt.Errorf("%s: %w (%s is gone)", real, durable.ErrNoBackup, backup)
		}
		return undoCandidate{}, fmt.Errorf("%s: %w (%s has no manifest)", real, durable.ErrNoBackup, backup)
	}
	if m.Source != real || m.SourceID != SourceID(real) {
		return undoCandidate{}, fmt.Errorf("%s: %w (%s belongs to %s)", real, durable.ErrNoBackup, backup, m.Source)
	}
	return undoCandidate{backup: backup, m: m}, nil
}

// checkUndoBackup checks that the backup is complete and unchanged: against
// its manifest, or for a legacy backup against what can still be checked.
func checkUndoBackup(rep *UndoReport, real, backupDir string, cand *undoCandidate) error {
	if cand.m == nil {
		rep.Legacy = true
		checked, d, err := checkLegacyBackup(real, backupDir, cand.backup)
		rep.Checked = append(rep.Checked, checked...)
		cand.verified = d
		return err
	}
	cand.verified = cand.m.Original
	rep.Manifest = ManifestPath(cand.backup)
	d, _, err := durable.DigestFile(cand.backup, -1)
	if err != nil {
		return err
	}
	if !d.Equal(cand.m.Backup) {
		return fmt.Errorf("%s: %w: %s, its manifest records %s; not restored",
			cand.backup, ErrBackupDamaged, d.Short(), cand.m.Backup.Short())
	}
	rep.Checked = append(rep.Checked, "backup size and digest match the manifest")
	return nil
}

// checkUndoFile checks that the existing file cur is still what the repair
// wrote, and says how it changed since ("" when it did not). A file that
// already holds the original sets rep.AlreadyRestored.
func checkUndoFile(rep *UndoReport, real, backupDir string, cand undoCandidate, cur os.FileInfo) (string, error) {
	if !cur.Mode().IsRegular() {
		return "", fmt.Errorf("%s: %w", real, durable.ErrNotRegular)
	}
	if cand.m == nil {
		changed, checked := checkLegacyFile(real, backupDir, cand.backup, cur)
		rep.Checked = append(rep.Checked, checked...)
		if changed == "" {
			c, checked := checkLegacyOwner(real, backupDir, cand.backup)
			rep.Checked = append(rep.Checked, checked...)
			changed = c
		}
		return changed, nil
	}
	whole, head, err := durable.DigestFile(real, cand.m.Written.Size)
	if err != nil {
		return "", err
	}
	switch {
	case whole.Equal(cand.m.Written):
		rep.Checked = append(rep.Checked, "file size and digest are what the repair wrote")
	case whole.Equal(cand.m.Original):
		rep.AlreadyRestored = true
	default:
		return describeChange(whole, head, cand.m.Written), nil
	}
	return "", nil
}

// restoreBackup replaces real with the backup's content, checked against
// the original's digest; cur is the file being replaced (nil when it was
// deleted), which must not change before the rename.
func restoreBackup(ctx context.Context, fsys durable.FS, real string, cand undoCandidate, cur os.FileInfo) error {
	compressed := strings.HasSuffix(cand.backup, ".zst")
	keep := cur
	if cur == nil {
		var err error
		if keep, err = os.Stat(cand.backup); err != nil {
			return err
		}
	}
	src, err := jsonl.Open(cand.backup, nil)
	if err != nil {
		return err
	}
	defer src.Close()
	if !compressed && src.Compression != jsonl.Plain {
		return fmt.Errorf("%s: unexpected %s content in an uncompressed backup", cand.backup, src.Compression)
	}
	// The file being replaced is held open: its inode number stays its own
	// until the swap is judged (Displaced).
	if cur != nil {
		f, st, err := durable.OpenRegular(real)
		if err != nil {
			return err
		}
		defer f.Close()
		if !sameVersion(st, cur) {
			return fmt.Errorf("%s: %w", real, ErrFileChanged)
		}
	}
	unchanged := func(name string) error {
		now, err := os.Lstat(name)
		if err != nil || !sameVersion(now, cur) {
			return fmt.Errorf("%s: %w", real, ErrFileChanged)
		}
		return nil
	}
	opts := durable.AtomicOptions{FS: fsys, KeepFrom: keep}
	h := durable.NewCheckingHasher()
	opts.BeforeRename = func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !h.Digest().Equal(cand.verified) {
			return fmt.Errorf("%s: %w: what it holds now is not what was checked (%s, checked %s); not restored", cand.backup, ErrBackupDamaged, h.Digest().Short(), cand.verified.Short())
		}
		if cur != nil {
			return unchanged(real)
		}
		return nil
	}
	if cur != nil {
		opts.Displaced = unchanged
	}
	return durable.ReplaceAtomic(ctx, real, opts, func(w io.Writer) error {
		_, err := io.Copy(durable.NewContextWriter(ctx, io.MultiWriter(w, h)), src)
		return err
	})
}

// sameVersion reports whether a and b are one file with the same size and
// modification time.
func sameVersion(a, b os.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// describeChange says how a file differs from what a repair wrote.
func describeChange(now, head, written durable.Digest) string {
	switch {
	case now.Size > written.Size && head.Equal(written):
		return fmt.Sprintf("%d bytes appended since the repair", now.Size-written.Size)
	case now.Size < written.Size:
		return fmt.Sprintf("%d bytes shorter than the repair left it (%d, was %d)", written.Size-now.Size, now.Size, written.Size)
	case now.Size == written.Size:
		return fmt.Sprintf("content changed since the repair (same size, %d bytes)", now.Size)
	}
	return fmt.Sprintf("content changed since the repair (%d bytes, was %d)", now.Size, written.Size)
}

// backupCurrent keeps the file's current content before undo --force
// replaces it: a backup with a manifest of kind "undo" whose Written is what
// the undo is about to write, so that undoing the undo is checked the same way.
func backupCurrent(ctx context.Context, opts ApplyOptions, real string, cur os.FileInfo, restoring undoCandidate) (string, error) {
	fsys := opts.fs()
	var written durable.Digest
	if restoring.m != nil {
		written = restoring.m.Original
	} else {
		d, err := decodedDigest(restoring.backup)
		if err != nil {
			return "", err
		}
		written = d
	}
	stamp := durable.UniqueStamp(opts.now(), func(s string) bool {
		for _, p := range []string{durable.BackupPath(real, opts.BackupDir, s, false), durable.BackupPath(real, opts.BackupDir, s, true), ManifestPath(durable.BackupPath(real, opts.BackupDir, s, false))} {
			if _, err := os.Lstat(p); err == nil {
				return true
			}
		}
		return false
	})
	backup := durable.BackupPath(real, opts.BackupDir, stamp, false)
	src, st, err := durable.OpenRegular(real)
	if err != nil {
		return "", err
	}
	defer src.Close()
	if !os.SameFile(st, cur) {
		return "", fmt.Errorf("%s: %w", real, ErrFileChanged)
	}
	chown := func(f durable.File) error { return chownFileLike(f, st) }
	// Published only after its manifest, as a repair's backup: a
	// manifest-less backup would be taken for an old oc's.
	tmp, d, err := durable.WriteBackupTemp(ctx, fsys, src, backup, st.Mode().Perm(), false, chown)
	if err != nil {
		return "", err
	}
	defer func() { _ = fsys.Remove(tmp) }()
	if d.Size != st.Size() {
		return "", fmt.Errorf("%s: %w (copied %d bytes of %d)", real, ErrFileChanged, d.Size, st.Size())
	}
	m := &Manifest{Kind: "undo", Source: real, Stamp: stamp, Backup: d, Original: d, Written: written}
	mp, err := writeManifest(ctx, fsys, backup, m, chown)
	if err != nil {
		if errors.Is(err, durable.ErrFolderSync) {
			_ = fsys.Remove(mp)
		}
		return "", err
	}
	if err := durable.PublishNew(fsys, tmp, backup); err != nil {
		if errors.Is(err, durable.ErrFolderSync) {
			_ = fsys.Remove(backup) // before its manifest: never one without the other
		}
		_ = fsys.Remove(mp)
		return "", err
	}
	return backup, nil
}

// decodedDigest is the digest of a backup's content (decompressed).
func decodedDigest(backup string) (durable.Digest, error) {
	src, err := jsonl.Open(backup, nil)
	if err != nil {
		return durable.Digest{}, err
	}
	defer src.Close()
	h := durable.NewCheckingHasher()
	if _, err := io.Copy(h, src); err != nil {
		return durable.Digest{}, fmt.Errorf("%s: %w: %v", backup, ErrBackupDamaged, err)
	}
	return h.Digest(), nil
}

// legacyQuarantine finds the quarantine file of a legacy backup (same stamp),
// under the old name or the new one; "" when the repair wrote none.
func legacyQuarantine(real, dir, backup string) string {
	stamp := strings.TrimSuffix(backup[strings.LastIndex(backup, durable.BackupInfix)+len(durable.BackupInfix):], ".zst")
	for _, p := range []string{LegacyQuarantinePath(real, dir, stamp), QuarantinePath(real, dir, stamp)} {
		if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// checkLegacyBackup verifies a backup an oc without manifests made, as well
// as its files allow: it must decode to the end (a cut zstd stream fails),
// end at a line boundary (a copy cut short almost always ends inside a line),
// and hold, at the line number its quarantine file records, every line that
// quarantine holds. It returns the digest of the content it checked.
func checkLegacyBackup(real, dir, backup string) ([]string, durable.Digest, error) {
	var checked []string
	h := durable.NewCheckingHasher()
	src, err := jsonl.Open(backup, nil)
	if err != nil {
		return checked, durable.Digest{}, err
	}
	defer src.Close()
	want := map[int64][]byte{}
	if q := legacyQuarantine(real, dir, backup); q != "" {
		recs, err := readQuarantineFile(q)
		if err != nil {
			return checked, durable.Digest{}, fmt.Errorf("%s: %w", q, err)
		}
		for _, r := range recs {
			b, err := r.Original()
			if err != nil {
				return checked, durable.Digest{}, fmt.Errorf("%s: line %d: %w", q, r.Line, err)
			}
			want[r.Line] = b
		}
	}
	rd := jsonl.NewReader(io.TeeReader(src, h))
	var last jsonl.Line
	matched := 0
	for {
		ln, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return checked, durable.Digest{}, fmt.Errorf("%s: %w: %v", backup, ErrBackupDamaged, err)
		}
		if b, ok := want[ln.Num]; ok {
			if !bytes.Equal(b, ln.Data) {
				return checked, durable.Digest{}, fmt.Errorf("%s: %w: line %d is not the line its quarantine file recorded", backup, ErrBackupDamaged, ln.Num)
			}
			matched++
		}
		last = jsonl.Line{Num: ln.Num, Term: ln.Term, Data: append(last.Data[:0], ln.Data...)}
	}
	if matched != len(want) {
		return checked, durable.Digest{}, fmt.Errorf("%s: %w: it has %s, its quarantine file names later lines", backup, ErrBackupDamaged, countNoun(int(last.Num), "line", "lines"))
	}
	checked = append(checked, "legacy backup decodes to the end")
	if len(want) > 0 {
		checked = append(checked, fmt.Sprintf("legacy backup holds the %s at %s", countNoun(len(want), "quarantined line", "quarantined lines"), plural(len(want), "its line number", "their line numbers")))
	}
	if last.Num > 0 && last.Term == jsonl.TermNone && !jsonl.Valid(bytes.TrimSpace(last.Data)) {
		return checked, durable.Digest{}, fmt.Errorf("%s: %w: it ends inside a line (a copy cut short?)", backup, ErrBackupDamaged)
	}
	checked = append(checked, "legacy backup ends at a line boundary")
	return checked, h.Digest(), nil
}

// checkLegacyFile tells whether a file changed since a legacy repair, from
// its modification time: the repair wrote the file before it closed the
// quarantine file, so a file modified later than its quarantine file was
// changed since; without a quarantine file the bound is the end of the
// backup's stamp second plus one second. (A legacy repair left no digest:
// an edit that keeps the mtime cannot be seen.)
func checkLegacyFile(real, dir, backup string, cur os.FileInfo) (changed string, checked []string) {
	var bound time.Time
	if q := legacyQuarantine(real, dir, backup); q != "" {
		if st, err := os.Stat(q); err == nil {
			bound = st.ModTime()
		}
	}
	what := "its quarantine file"
	if bound.IsZero() {
		name := filepath.Base(backup)
		stamp := strings.TrimSuffix(name[strings.LastIndex(name, durable.BackupInfix)+len(durable.BackupInfix):], ".zst")
		t, err := time.Parse(durable.StampLayout, stamp)
		if err != nil {
			return "the backup's stamp is unreadable, so the file cannot be checked", checked
		}
		bound = t.Add(2 * time.Second)
		what = "the repair's time stamp"
	}
	if cur.ModTime().After(bound) {
		return fmt.Sprintf("modified at %s, after the repair (legacy backup without digest; judged by %s)", cur.ModTime().UTC().Format(time.RFC3339), what), checked
	}
	return "", append(checked, "legacy: file not modified after "+what)
}

// headLines returns up to n first lines of a (possibly compressed) file.
func headLines(path string, n int) ([][]byte, error) {
	src, err := jsonl.Open(path, nil)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	rd := jsonl.NewReader(src)
	var out [][]byte
	for len(out) < n {
		ln, err := rd.Next()
		if err != nil {
			break
		}
		out = append(out, append([]byte(nil), ln.Data...))
	}
	return out, nil
}

// checkLegacyOwner tells, for a legacy backup (no manifest names its file),
// whether it is this file's: a repair keeps the first line, or quarantines it
// (line 1 in the quarantine file), or inserts a header before it. A backup
// whose first line is none of these belongs to another file of the same
// name (a shared --backup-dir).
func checkLegacyOwner(real, dir, backup string) (changed string, checked []string) {
	b, err := headLines(backup, 1)
	if err != nil || len(b) == 0 {
		return "", nil
	}
	if q := legacyQuarantine(real, dir, backup); q != "" {
		if recs, err := readQuarantineFile(q); err == nil {
			for _, r := range recs {
				if r.Line == 1 {
					return "", []string{"legacy: the first line was quarantined by the repair"}
				}
			}
		}
	}
	f, err := headLines(real, 2)
	if err != nil {
		return "", nil
	}
	for _, l := range f {
		if bytes.Equal(l, b[0]) {
			return "", []string{"legacy: the backup's first line is this file's"}
		}
	}
	return "the legacy backup's first line is not in this file: it may be another file's of the same name (a shared --backup-dir)", nil
}

// readQuarantineFile reads the records of a quarantine file.
func readQuarantineFile(path string) ([]QuarantineRecord, error) {
	f, _, err := durable.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []QuarantineRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<30)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r QuarantineRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, sc.Err()
}
