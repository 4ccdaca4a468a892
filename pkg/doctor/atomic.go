package doctor

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// The write mechanics are pkg/jsonl's (ReplaceAtomic, WriteBackup); only the
// names of doctor's backups are its own.

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

// backupFile copies path to <path>.pre-oc-doctor.<stamp> (or .<stamp>.N when
// taken) with mode 0600, made durable by jsonl.WriteBackup (fsync of the copy
// and its folder; a partial copy is removed), and returns the backup's path.
func backupFile(path string, now time.Time) (string, error) {
	base := fmt.Sprintf("%s.pre-oc-doctor.%s", path, jsonl.Stamp(now))
	for n := 1; n < 1000; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s.%d", base, n)
		}
		err := jsonl.WriteBackup(nil, path, name, 0o600, false)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("backup %s: %w", path, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("backup %s: too many backups named %s*", path, base)
}
