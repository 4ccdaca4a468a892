package doctor

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// writeFileAtomic replaces path with data through the shared atomic writer
// (pkg/jsonl: temp file in the same directory, fsync, rename, fsync of the
// directory), with mode perm as OpenClaw gives its cron files (0600). On any
// failure the target is untouched and the temp file removed.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) error {
	return jsonl.ReplaceAtomic(path, jsonl.AtomicOptions{Mode: perm}, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
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
