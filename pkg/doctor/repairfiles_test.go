package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Doctor counts the files oc repair kept (backups, manifests, quarantine
// files) in one info finding, with their size; none, no finding.
func TestRepairFilesAreCounted(t *testing.T) {
	sd, _ := stateWithStore(t, []byte(`{"version":1,"jobs":[]}`))
	sess := filepath.Join(sd, "agents", "main", "sessions")
	if err := os.MkdirAll(sess, 0o700); err != nil {
		t.Fatal(err)
	}
	opts := fixOpts(sd)
	opts.Fix = false
	r, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if f := findingByID(r, "oc-repair-files"); f != nil {
		t.Fatalf("a state dir without oc's files: %+v", f)
	}
	backup := filepath.Join(sess, "s.jsonl.bak-oc-20250101T000000Z")
	if err := os.WriteFile(backup, []byte(strings.Repeat("x", 3000)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sess, "notes.jsonl.bak-oc-later"), []byte("not oc's"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err = Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	f := findingByID(r, "oc-repair-files")
	if f == nil || f.Severity != SevInfo {
		t.Fatalf("finding %+v, want one info finding", f)
	}
	for _, want := range []string{"1 file kept by oc repair", "3 KiB", "2025-01-01", "--prune-backups"} {
		if !strings.Contains(f.Message+" "+f.Fix, want) {
			t.Errorf("%q: want %q in it", f.Message+" "+f.Fix, want)
		}
	}
}
