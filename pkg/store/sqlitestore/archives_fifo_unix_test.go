//go:build unix

package sqlitestore_test

import (
	"database/sql"
	"os"
	"syscall"
	"testing"
	"time"
)

// A FIFO where the derived file should be is reported, never opened for a
// blocking read (a FIFO without a writer would hang oc), also through a
// symlink.
func TestArchiveDerivedFileFIFO(t *testing.T) {
	_, db := editArchives(t, func(*sql.DB) {})
	archives, err := db.TranscriptArchives(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range archives {
		if a.SessionID != opsMain {
			continue
		}
		path := db.CheckDerivedFile(a).Path
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		fifo := path + ".fifo"
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		if err := os.Symlink(fifo, path); err != nil {
			t.Fatal(err)
		}
		done := make(chan string, 1)
		go func() { f := db.CheckDerivedFile(a); done <- f.State + ": " + f.Detail }()
		select {
		case got := <-done:
			if got != "not-regular: not a regular file (a FIFO)" {
				t.Errorf("a FIFO at the derived file's name: %q", got)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("CheckDerivedFile hangs on a FIFO")
		}
	}
}
