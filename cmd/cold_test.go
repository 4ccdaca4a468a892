package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

const coldMainArchive = "agents/main/sessions/cold/6975962ad26e450719fbd19e35dff35ef4c749514ebfb648fd13594b9d79853d.jsonl.zst"

// A state dir whose sessions OpenClaw 2026.9.6 moved to cold storage
// (testdata/sqlite-cold, made by 9.6's own code): `oc inspect` shows the
// archived sessions with their entries (golden), `oc inspect KEY --json`
// says where they came from, and `oc export` writes the whole history,
// the same bytes as after 9.6's restore, saying on stderr that it read the
// cold archive. Nothing is written to the state dir.
func TestColdStorageCLI(t *testing.T) {
	dir := oracletest.ColdFixtureDir(t)
	state := oracletest.ColdState96(t, dir, "file")
	restored := oracletest.ColdState96(t, dir, "restored")
	before := hashFiles(t, state)

	code, out, stderr := runOC(t, false, nil, "inspect", "--state-dir", state)
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, stderr)
	}
	golden(t, "inspect-sqlite-cold.txt", []byte(normalizeState(out, state)))

	code, out, stderr = runOC(t, false, nil, "inspect", "agent:main:main", "--state-dir", state, "--json")
	if code != 0 {
		t.Fatalf("inspect KEY: exit %d: %s", code, stderr)
	}
	var doc struct {
		Events int `json:"events"`
		Active struct {
			Messages int `json:"messages"`
		} `json:"activeBranch"`
		Cold *struct {
			Path     string `json:"path"`
			Events   int    `json:"events"`
			Verified bool   `json:"verified"`
			Archive  struct {
				Storage    string `json:"storage"`
				EventCount int    `json:"eventCount"`
			} `json:"archive"`
		} `json:"cold"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Cold == nil || !doc.Cold.Verified || doc.Cold.Events != 16 || doc.Cold.Archive.EventCount != 16 || doc.Cold.Archive.Storage != "file" ||
		doc.Cold.Path != filepath.Join(state, coldMainArchive) || doc.Events != 16 || doc.Active.Messages != 8 {
		t.Errorf("inspect --json of a cold session: events %d, messages %d, cold %+v", doc.Events, doc.Active.Messages, doc.Cold)
	}

	outFile := filepath.Join(t.TempDir(), "main.jsonl")
	code, _, stderr = runOC(t, false, nil, "export", "agent:main:main", "--state-dir", state, "-o", outFile)
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	if want := "oc: 16 lines from the cold archive " + filepath.Join(state, coldMainArchive) + " (storage file;"; !strings.Contains(stderr, want) {
		t.Errorf("export's stderr does not flag the cold archive: %q", stderr)
	}
	got, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	code, want, stderr := runOC(t, false, nil, "export", "agent:main:main", "--state-dir", restored)
	if code != 0 || strings.Contains(stderr, "cold archive") {
		t.Fatalf("export of the restored session: exit %d: %s", code, stderr)
	}
	if strings.Count(string(got), "\n") != 16 || string(got) != want {
		t.Errorf("export of the cold session (%d lines) differs from the session 9.6 restored (%d lines)", strings.Count(string(got), "\n"), strings.Count(want, "\n"))
	}

	exportDir := filepath.Join(t.TempDir(), "all")
	code, out, stderr = runOC(t, false, nil, "export", "--all", "--agent", "main", "--state-dir", state, "-o", exportDir, "--json")
	if code != 0 {
		t.Fatalf("export --all: exit %d: %s", code, stderr)
	}
	var all struct {
		Files []struct {
			Key         string `json:"key"`
			Lines       int    `json:"lines"`
			ColdArchive string `json:"coldArchive"`
		} `json:"files"`
		Skipped []struct {
			Key string `json:"key"`
		} `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatal(err)
	}
	files := all.Files
	cold := 0
	for _, f := range files {
		if f.ColdArchive != "" {
			cold++
			if f.Lines == 0 {
				t.Errorf("%s: exported 0 lines from %s", f.Key, f.ColdArchive)
			}
		}
	}
	// The third session has no transcript rows: skipped, not written.
	if cold != 2 || len(files) != 2 || len(all.Skipped) != 1 {
		t.Errorf("export --all: %d files, %d from cold archives, %d skipped; want 2, 2 and 1", len(files), cold, len(all.Skipped))
	}
	sameHashes(t, "cold state dir", before, hashFiles(t, state))
}

// A damaged cold archive: `oc export` of its session fails with one line
// naming the file (exit 3, no output file); `oc inspect` reports it as an
// error finding of that session and goes on. Nothing is written.
func TestColdStorageDamagedCLI(t *testing.T) {
	state := oracletest.ColdState96(t, oracletest.ColdFixtureDir(t), "file")
	archive := filepath.Join(state, coldMainArchive)
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	data[40] ^= 0xff
	if err := os.WriteFile(archive, data, 0o644); err != nil {
		t.Fatal(err)
	}
	before := hashFiles(t, state)
	outFile := filepath.Join(t.TempDir(), "main.jsonl")
	code, _, stderr := runOC(t, false, nil, "export", "agent:main:main", "--state-dir", state, "-o", outFile)
	if code != 3 {
		t.Errorf("export of a damaged cold session: exit %d, want 3", code)
	}
	oneLineError(t, stderr)
	if !strings.Contains(stderr, archive+": cold archive of session 0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01 failed verification: sha256 ") {
		t.Errorf("stderr %q does not name the archive and the failed check", stderr)
	}
	if _, err := os.Stat(outFile); err == nil {
		t.Errorf("export left %s behind", outFile)
	}

	code, out, stderr := runOC(t, false, nil, "inspect", "--state-dir", state, "--json")
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, stderr)
	}
	var rep struct {
		Sessions []struct {
			Key      string `json:"key"`
			Events   int    `json:"events"`
			Findings []struct {
				Rule     string `json:"rule"`
				Severity string `json:"severity"`
				Message  string `json:"message"`
			} `json:"findings"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, s := range rep.Sessions {
		for _, f := range s.Findings {
			if f.Rule == "sqlite-cold-archive-damaged" {
				found++
				if s.Key != "agent:main:main" || f.Severity != "error" || !strings.Contains(f.Message, archive) || s.Events != 0 {
					t.Errorf("%s: %+v (events %d)", s.Key, f, s.Events)
				}
			}
		}
	}
	if found != 1 || len(rep.Sessions) != 5 {
		t.Errorf("%d damaged-archive findings in %d sessions; want 1 in 5", found, len(rep.Sessions))
	}
	sameHashes(t, "damaged cold state dir", before, hashFiles(t, state))
}
