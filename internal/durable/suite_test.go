package durable_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/internal/durable/durabletest"
)

// Every write path of durable runs the recording file system's suite:
// order of the calls, a failure of each call, a crash before each call.

var (
	oldContent = []byte("{\"type\":\"session\",\"id\":\"old\"}\n" + strings.Repeat("old line\n", 50))
	newContent = []byte("{\"type\":\"session\",\"id\":\"new\"}\n" + strings.Repeat("new line\n", 70))
)

func writeFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o640); err != nil {
		t.Fatal(err)
	}
}

func writeBytes(b []byte) func(io.Writer) error {
	return func(w io.Writer) error { _, err := w.Write(b); return err }
}

// replaceCase: a file replaced in place, old or new in every state.
func replaceCase(write func(ctx context.Context, fsys durable.FS, file string) error) durabletest.Case {
	return durabletest.Case{
		Setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "s.jsonl"), oldContent) },
		Write: func(ctx context.Context, fsys durable.FS, dir string) error {
			return write(ctx, fsys, filepath.Join(dir, "s.jsonl"))
		},
		Check: func(s durabletest.State, ok bool) error {
			_, err := durabletest.OldOrNew(s, "s.jsonl", oldContent, newContent, ok)
			return err
		},
	}
}

func TestSuiteReplaceAtomic(t *testing.T) {
	durabletest.Run(t, replaceCase(func(ctx context.Context, fsys durable.FS, file string) error {
		return durable.ReplaceAtomic(ctx, file, durable.AtomicOptions{FS: fsys}, writeBytes(newContent))
	}))
}

func TestSuiteReplaceAtomicExchange(t *testing.T) {
	durabletest.Run(t, replaceCase(func(ctx context.Context, fsys durable.FS, file string) error {
		st, err := os.Stat(file)
		if err != nil {
			return err
		}
		return durable.ReplaceAtomic(ctx, file, durable.AtomicOptions{FS: fsys, KeepFrom: st, Displaced: func(name string) error {
			if now, err := os.Stat(name); err != nil || !os.SameFile(now, st) {
				return fmt.Errorf("displaced another file")
			}
			return nil
		}}, writeBytes(newContent))
	}))
}

func TestSuiteCompareAndSwap(t *testing.T) {
	durabletest.Run(t, replaceCase(func(ctx context.Context, fsys durable.FS, file string) error {
		return durable.CompareAndSwap(ctx, file, sha256.Sum256(oldContent), newContent, durable.CASOptions{FS: fsys})
	}))
}

// newCase: a file that must not exist yet, absent or whole in every state.
func newCase(write func(ctx context.Context, fsys durable.FS, file string) error) durabletest.Case {
	return durabletest.Case{
		Setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "other.jsonl"), oldContent) },
		Write: func(ctx context.Context, fsys durable.FS, dir string) error {
			return write(ctx, fsys, filepath.Join(dir, "out.jsonl"))
		},
		Check: func(s durabletest.State, ok bool) error {
			if !bytes.Equal(s.Files["other.jsonl"], oldContent) {
				return fmt.Errorf("other.jsonl changed")
			}
			_, err := durabletest.OldOrNew(s, "out.jsonl", nil, newContent, ok)
			return err
		},
		Leaves: func(n string) bool { return n == "out.jsonl" },
	}
}

func TestSuiteWriteNew(t *testing.T) {
	durabletest.Run(t, newCase(func(ctx context.Context, fsys durable.FS, file string) error {
		_, err := durable.WriteNew(ctx, fsys, file, 0o600, nil, writeBytes(newContent))
		return err
	}))
}

func TestSuiteWriteTempThenPublish(t *testing.T) {
	durabletest.Run(t, newCase(func(ctx context.Context, fsys durable.FS, file string) error {
		tmp, _, err := durable.WriteBackupTemp(ctx, fsys, bytes.NewReader(newContent), file, 0o600, false, nil)
		return publishOrRemove(fsys, tmp, file, err)
	}))
}

func TestSuiteStreamedTempThenPublish(t *testing.T) {
	durabletest.Run(t, newCase(func(ctx context.Context, fsys durable.FS, file string) error {
		tmp, err := durable.CreateTemp(ctx, fsys, file, 0o600, nil)
		if err != nil {
			return err
		}
		for _, line := range bytes.SplitAfter(newContent, []byte("\n")) {
			if _, err := tmp.Write(line); err != nil {
				tmp.Discard()
				return err
			}
		}
		if _, err := tmp.Commit(); err != nil {
			tmp.Discard()
			return err
		}
		return publishOrRemove(fsys, tmp.Name(), file, nil)
	}))
}

// publishOrRemove gives the temporary file tmp (made with the error err)
// the name file, and removes it when that fails.
func publishOrRemove(fsys durable.FS, tmp, file string, err error) error {
	if err != nil {
		return err
	}
	if err := durable.PublishNew(fsys, tmp, file); err != nil {
		_ = fsys.Remove(tmp)
		return err
	}
	return nil
}

// A hard-linked backup: a second name of a file already on disk.
func TestSuiteLinkThenPublish(t *testing.T) {
	c := newCase(func(ctx context.Context, fsys durable.FS, file string) error {
		src := filepath.Join(filepath.Dir(file), "src.jsonl")
		tmp, err := durable.LinkTemp(fsys, src, file)
		return publishOrRemove(fsys, tmp, file, err)
	})
	setup := c.Setup
	c.Setup = func(t *testing.T, dir string) {
		setup(t, dir)
		writeFile(t, filepath.Join(dir, "src.jsonl"), newContent)
	}
	durabletest.Run(t, c)
}

// Doctor's backups and reports: the first free name of a numbered series.
func TestSuiteWriteNewNumbered(t *testing.T) {
	c := newCase(func(ctx context.Context, fsys durable.FS, file string) error {
		name, _, err := durable.WriteNewNumbered(ctx, fsys, func(n int) string {
			if n == 1 {
				return filepath.Join(filepath.Dir(file), "other.jsonl")
			}
			return file
		}, 0o600, nil, writeBytes(newContent))
		if err == nil && filepath.Base(name) != "out.jsonl" {
			return fmt.Errorf("wrote %s", name)
		}
		return err
	})
	durabletest.Run(t, c)
}

// A removal oc reports done stays done: the folder is fsynced.
func TestSuiteRemove(t *testing.T) {
	durabletest.Run(t, durabletest.Case{
		Setup: func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "s.jsonl.bak-oc-20260101T000000Z"), oldContent)
		},
		Write: func(ctx context.Context, fsys durable.FS, dir string) error {
			return durable.Remove(fsys, filepath.Join(dir, "s.jsonl.bak-oc-20260101T000000Z"))
		},
		Check: func(s durabletest.State, ok bool) error {
			b, present := s.Files["s.jsonl.bak-oc-20260101T000000Z"]
			switch {
			case ok && present:
				return fmt.Errorf("removed, but back after a crash")
			case present && !bytes.Equal(b, oldContent):
				return fmt.Errorf("changed, not removed")
			}
			return nil
		},
	})
}

func TestSuiteMoveNoReplace(t *testing.T) {
	durabletest.Run(t, durabletest.Case{
		Setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "a"), oldContent) },
		Write: func(ctx context.Context, fsys durable.FS, dir string) error {
			return durable.MoveNoReplace(fsys, filepath.Join(dir, "a"), filepath.Join(dir, "b"))
		},
		Check: func(s durabletest.State, ok bool) error {
			a, b := s.Files["a"] != nil, s.Files["b"] != nil
			switch {
			case a == b:
				return fmt.Errorf("a present %v, b present %v", a, b)
			case ok && !b:
				return fmt.Errorf("moved, but back after a crash")
			}
			return nil
		},
		Leaves: func(n string) bool { return path.Base(n) == "b" },
	})
}
