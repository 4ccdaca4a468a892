package doctor

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// writeFileAtomic replaces path with data the way the brief asks and OpenClaw
// does: a temp file in the same directory (OpenClaw's name pattern
// <file>.<pid>.<16 hex>.tmp), fsync, rename over the target, fsync the
// directory. The file gets mode perm. On any failure the target is untouched
// and the temp file removed.
//
// TODO(lead): pkg/jsonl/atomic.go is planned to hold the shared atomic replace;
// when it lands this should call it.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := fmt.Sprintf("%s.%d.%s.tmp", path, os.Getpid(), hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// backupStamp is the UTC stamp used in backup and report names.
func backupStamp(t time.Time) string { return t.UTC().Format("20060102T150405Z") }

// backupFile copies path to <path>.pre-oc-doctor.<stamp> (or .<stamp>.N when
// taken) with mode 0600, synced, and returns the backup's path.
func backupFile(path string, now time.Time) (string, error) {
	base := fmt.Sprintf("%s.pre-oc-doctor.%s", path, backupStamp(now))
	src, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("backup %s: %w", path, err)
	}
	defer src.Close()
	for n := 1; n < 1000; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s.%d", base, n)
		}
		dst, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("backup %s: %w", path, err)
		}
		_, err = io.Copy(dst, src)
		if err == nil {
			err = dst.Sync()
		}
		if cerr := dst.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(name)
			return "", fmt.Errorf("backup %s: %w", path, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("backup %s: too many backups named %s*", path, base)
}
