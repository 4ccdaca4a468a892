package durable

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestRemoveStaleTempsKnowsEveryTempName(t *testing.T) {
	dir := t.TempDir()
	base := "s1.jsonl"
	ours := []string{".s1.jsonl" + TempPrefix + "1", ".s1.jsonl.rejected-20261130T230500Z" + TempPrefix + "2",
		".s1.jsonl.bak-oc-20261130T230500Z" + TempPrefix + "3", ".s1.jsonl.bak-oc-20261130T230500Z.manifest.json" + TempPrefix + "4"}
	others := []string{".s1.jsonl2" + TempPrefix + "1", ".s2.jsonl" + TempPrefix + "1", "s1.jsonl.rejected-20261130T230500Z"}
	for _, n := range append(append([]string{}, ours...), others...) {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	removed := RemoveStaleTemps(filepath.Join(dir, base), 0, time.Now().Add(time.Minute))
	if len(removed) != len(ours) {
		t.Fatalf("removed %v, want %v", removed, ours)
	}
	for _, n := range others {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s removed", n)
		}
	}
}

func TestOpenRegularRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadRegular(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a FIFO was read")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("hung on a FIFO")
	}
}
