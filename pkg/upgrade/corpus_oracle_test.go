package upgrade

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The 9.6 oracle's import of the damaged corpus state dirs (seeds below) is
// stored in testdata/oracle-import-damaged.json: per file only its generated
// name, damage kind and the oracle's counts and line numbers, no corpus text.
// Regenerate with OC_UPGRADE_ORACLE=write (about 30 s a seed); with
// OC_UPGRADE_ORACLE=live the test imports with the oracle instead of reading
// the stored answers.

var damageSeeds = []int64{1, 2, 3}

const storedAnswers = "testdata/oracle-import-damaged.json"

type storedSeed struct {
	Seed    int64          `json:"seed"`
	Files   []damagedFile  `json:"files"`
	Sources []oracleSource `json:"sources"`
}

// oracleImportDir runs `oracle import root out` and returns its report.
func oracleImportDir(t *testing.T, root string) oracleImport {
	t.Helper()
	script := filepath.Join(sharedDir(t), "oracle-2026.9.6", "oracle")
	if _, err := os.Stat(script); err != nil {
		t.Skipf("SKIP: the 9.6 oracle is not installed: %v", err)
	}
	out := filepath.Join(t.TempDir(), "imported")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "import", root, out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("oracle import %s: %v\n%s", root, err, lastLines(stderr.String(), 20))
	}
	var o oracleImport
	if err := json.Unmarshal(stdout.Bytes(), &o); err != nil {
		t.Fatalf("oracle import output: %v", err)
	}
	o.out = out
	return o
}

func lastLines(s string, n int) string {
	lines := bytes.Split([]byte(s), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// TestPredictionMatchesOracleOnDamagedCorpus: for every damaged copy of every
// corpus transcript (3 seeds), the predicted imported-event count and lines
// not imported equal the 9.6 oracle's.
func TestPredictionMatchesOracleOnDamagedCorpus(t *testing.T) {
	corpus := corpusTranscripts(t)
	mode := os.Getenv("OC_UPGRADE_ORACLE")
	var stored []storedSeed
	if mode == "" {
		b, err := os.ReadFile(storedAnswers)
		if err != nil {
			t.Fatalf("stored oracle answers: %v (regenerate with OC_UPGRADE_ORACLE=write)", err)
		}
		if err := json.Unmarshal(b, &stored); err != nil {
			t.Fatal(err)
		}
	}
	var write []storedSeed
	if mode == "write" {
		defer func() {
			// written even when the comparison fails: the answers are the oracle's
			b, err := json.MarshalIndent(write, "", " ")
			if err == nil {
				err = os.WriteFile(storedAnswers, append(b, '\n'), 0o644)
			}
			if err != nil {
				t.Error(err)
			}
		}()
	}
	total, lossy := 0, 0
	for si, seed := range damageSeeds {
		root := t.TempDir()
		files := buildDamagedStateDir(t, corpus, seed, root, false)
		var oracle oracleImport
		if mode == "" {
			if si >= len(stored) || stored[si].Seed != seed {
				t.Fatalf("stored answers lack seed %d (regenerate with OC_UPGRADE_ORACLE=write)", seed)
			}
			if fmt.Sprint(stored[si].Files) != fmt.Sprint(withoutSources(files)) {
				t.Fatalf("seed %d: the damaged state dir differs from the one the stored answers describe (corpus or generator changed): regenerate with OC_UPGRADE_ORACLE=write", seed)
			}
			oracle.Sources = stored[si].Sources
		} else {
			oracle = oracleImportDir(t, root)
			write = append(write, storedSeed{Seed: seed, Files: files, Sources: stripSources(oracle.Sources)})
		}
		rep, err := PredictStateDir(root)
		if err != nil {
			t.Fatal(err)
		}
		n := compareWithOracle(t, root, rep, oracle)
		if n < len(files)/2 {
			t.Errorf("seed %d: compared %d imported sessions of %d files", seed, n, len(files))
		}
		total += n
		lossy += len(rep.Losses())
	}
	if total < 300 || lossy < 50 {
		t.Fatalf("compared %d sessions (%d with losses): too few", total, lossy)
	}
	t.Logf("compared %d sessions, %d of them losing entries", total, lossy)
}

// stripSources keeps the fields the comparison reads: counts, line numbers,
// session keys and file names (generated), never entry text.
func stripSources(in []oracleSource) []oracleSource {
	out := make([]oracleSource, len(in))
	for i, s := range in {
		out[i] = oracleSource{File: s.File, Status: s.Status, ImportedEvents: s.ImportedEvents, LeftInPlace: s.LeftInPlace, ImportedAs: s.ImportedAs}
		for _, l := range s.ValidLinesNotImported {
			out[i].ValidLinesNotImported = append(out[i].ValidLinesNotImported, struct {
				Line int64 `json:"line"`
			}{l.Line})
		}
		if s.Archive != nil {
			out[i].Archive = s.Archive
		}
	}
	return out
}

// withoutSources drops the corpus paths (never stored).
func withoutSources(files []damagedFile) []damagedFile {
	out := make([]damagedFile, len(files))
	for i, f := range files {
		f.Source = ""
		out[i] = f
	}
	return out
}
