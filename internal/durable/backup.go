package durable

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
)

// BackupInfix is what oc puts between a transcript's name and the stamp of
// its backup: "<file>.bak-oc-<UTC yyyymmddThhmmssZ>[.zst]". It is not
// OpenClaw's ".bak-<pid>-<ms>", which cleanup scripts delete freely.
const BackupInfix = ".bak-oc-"

// StampLayout is the UTC time stamp used in backup and quarantine names.
const StampLayout = "20060102T150405Z"

// Stamp formats t as a backup stamp.
func Stamp(t time.Time) string { return t.UTC().Format(StampLayout) }

// BackupPath is where the backup of file with the given stamp goes: beside the
// file, or in dir when dir is not empty. compress adds ".zst".
func BackupPath(file, dir, stamp string, compress bool) string {
	p := file + BackupInfix + stamp
	if dir != "" {
		p = filepath.Join(dir, filepath.Base(file)+BackupInfix+stamp)
	}
	if compress {
		p += ".zst"
	}
	return p
}

// WriteBackupTemp writes a backup of what it reads from r (zstd-compressed
// when compress is set) for dst, and leaves it complete and fsynced under its
// temporary name (see WriteTemp), to be published as dst with PublishNew once
// its manifest is written. It stops when ctx is cancelled and returns the
// temporary name and the digest of the bytes stored.
func WriteBackupTemp(ctx context.Context, fsys FS, r io.Reader, dst string, mode os.FileMode, compress bool, chown func(File) error) (string, Digest, error) {
	return WriteTemp(ctx, fsys, dst, mode, chown, backupWriter(r, compress))
}

// backupWriter copies r, zstd-compressed when compress is set.
func backupWriter(r io.Reader, compress bool) func(w io.Writer) error {
	return func(w io.Writer) error {
		if !compress {
			_, err := io.Copy(w, r)
			return err
		}
		zw, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return err
		}
		if _, err := io.Copy(zw, r); err != nil {
			zw.Close()
			return err
		}
		return zw.Close()
	}
}

// FindBackups lists oc's backups of file (beside it, or in dir when set),
// oldest first (the stamp sorts by time).
func FindBackups(file, dir string) ([]string, error) {
	searchDir := filepath.Dir(file)
	if dir != "" {
		searchDir = dir
	}
	prefix := filepath.Base(file) + BackupInfix
	entries, err := os.ReadDir(searchDir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || e.IsDir() {
			continue
		}
		stamp := strings.TrimSuffix(strings.TrimPrefix(name, prefix), ".zst")
		if _, err := time.Parse(StampLayout, stamp); err != nil {
			continue
		}
		out = append(out, filepath.Join(searchDir, name))
	}
	sort.Slice(out, func(i, j int) bool { return stampOf(out[i]) < stampOf(out[j]) })
	return out, nil
}

func stampOf(p string) string {
	name := filepath.Base(p)
	i := strings.LastIndex(name, BackupInfix)
	return strings.TrimSuffix(name[i+len(BackupInfix):], ".zst")
}

// ErrNoBackup is returned (wrapped) when a file has no oc backup to undo from.
var ErrNoBackup = errors.New("no oc backup found")

// UniqueStamp returns the stamp of now, moved forward one second at a time
// until none of the paths it names already exists, so that a backup is never
// overwritten even when two runs fall in the same second.
func UniqueStamp(now time.Time, exists func(stamp string) bool) string {
	t := now.UTC().Truncate(time.Second)
	for i := 0; i < 3600; i++ {
		s := Stamp(t)
		if !exists(s) {
			return s
		}
		t = t.Add(time.Second)
	}
	return Stamp(t)
}
