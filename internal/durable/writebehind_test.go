package durable

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A file several times writeBehindBytes arrives whole and in order, and the
// write-out was started for all but less than writeBehindBytes of it.
func TestWriteBehindKeepsEveryByte(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "big.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := make([]byte, 3*writeBehindBytes+12345)
	for i := range want {
		want[i] = byte('a' + i%26)
	}
	wb := newWriteBehind(f)
	if wb.raw == nil {
		t.Fatal("an *os.File has a descriptor")
	}
	for p := want; len(p) > 0; {
		n := min(len(p), 100_000)
		if k, err := wb.Write(p[:n]); err != nil || k != n {
			t.Fatalf("write: %d, %v", k, err)
		}
		p = p[n:]
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the file differs from what was written (%d bytes, want %d)", len(got), len(want))
	}
	if wb.off != int64(len(want)) || wb.started < 2*writeBehindBytes || wb.off-wb.started >= writeBehindBytes {
		t.Fatalf("wrote %d, write-out started for %d: want all %d, and less than %d not started", wb.off, wb.started, len(want), writeBehindBytes)
	}
}

// A File without a descriptor (a test's fake) is written to as is.
func TestWriteBehindWithoutDescriptor(t *testing.T) {
	var buf bytes.Buffer
	wb := newWriteBehind(fakeFile{&buf})
	if wb.raw != nil {
		t.Fatal("a fake file has no descriptor")
	}
	p := bytes.Repeat([]byte("x"), writeBehindBytes+1)
	if n, err := wb.Write(p); err != nil || n != len(p) || buf.Len() != len(p) {
		t.Fatalf("wrote %d (%v), buffer %d, want %d", n, err, buf.Len(), len(p))
	}
}

type fakeFile struct{ *bytes.Buffer }

func (fakeFile) Name() string             { return "fake" }
func (fakeFile) Sync() error              { return nil }
func (fakeFile) Close() error             { return nil }
func (fakeFile) Chmod(os.FileMode) error  { return nil }
func (fakeFile) Chown(uid, gid int) error { return nil }
