package oracletest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ImportedState96 rebuilds in dst (empty or missing) a state dir as
// 2026.9.6's upgrade left it, from one of the 9.6 oracle's fixtures: the
// databases its import wrote (db/*.gz) and the import archive, whose
// originals are the fixture's source files verbatim (the oracle README: "the
// archived original (verbatim)"). Without a manifest the archive names are
// import.json's archivedTo. With manifest (a migration-run manifest of a
// real 9.6 run of the same fixture, its state dir written @STATE@) the
// manifest is installed under session-sqlite-migration-runs/ with dst for
// @STATE@, and the archives get the names it records.
func ImportedState96(t testing.TB, fixture, dst, manifest string) string {
	t.Helper()
	dir := filepath.Join(SharedDir(t), "oracle-2026.9.6", "fixtures", fixture)
	if _, err := os.Stat(dir); err != nil {
		Unavailable(t, fmt.Sprintf("no 2026.9.6 fixtures: %v", err))
	}
	err := filepath.Walk(filepath.Join(dir, "db"), func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(p, ".gz") {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join(dir, "db"), strings.TrimSuffix(p, ".gz"))
		return gunzipTo(p, filepath.Join(dst, rel))
	})
	if err != nil {
		t.Fatalf("unpack fixture %s: %v", fixture, err)
	}
	place := func(src, archive string) {
		data, err := os.ReadFile(filepath.Join(dir, "source", src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(archive), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(archive, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if manifest == "" {
		var rep struct {
			Sources []struct {
				File    string `json:"file"`
				Archive *struct {
					ArchivedTo string `json:"archivedTo"`
				} `json:"archive"`
			} `json:"sources"`
		}
		data, err := os.ReadFile(filepath.Join(dir, "import.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Fatal(err)
		}
		for _, s := range rep.Sources {
			if s.Archive != nil && s.Archive.ArchivedTo != "" {
				place(s.File, filepath.Join(dst, s.Archive.ArchivedTo))
			}
		}
		return dst
	}
	raw, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	raw = []byte(strings.ReplaceAll(string(raw), "@STATE@", dst))
	var m struct {
		RunID   string `json:"runId"`
		Targets []struct {
			CompletedMoves []struct {
				ArchivePath string `json:"archivePath"`
				SourcePath  string `json:"sourcePath"`
				Kind        string `json:"kind"`
			} `json:"completedMoves"`
		} `json:"targets"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", manifest, err)
	}
	runs := filepath.Join(dst, "session-sqlite-migration-runs")
	if err := os.MkdirAll(runs, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runs, m.RunID+".json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tg := range m.Targets {
		for _, mv := range tg.CompletedMoves {
			if mv.Kind == "transcript" {
				rel, _ := filepath.Rel(dst, mv.SourcePath)
				place(rel, mv.ArchivePath)
			}
		}
	}
	return dst
}
