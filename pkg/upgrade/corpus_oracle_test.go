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

	"github.com/openclaw-tools/oc/internal/oracletest"
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
	Sources []storedSource `json:"sources"`
}

// storedSource is an oracleSource in short: counts, line numbers, session
// keys and generated file names only.
type storedSource struct {
	File           string   `json:"file"`
	Status         string   `json:"status"`
	ImportedEvents int      `json:"importedEvents"`
	LeftInPlace    bool     `json:"leftInPlace,omitempty"`
	NotImported    []int64  `json:"notImported,omitempty"`
	SessionID      string   `json:"sessionId,omitempty"`
	SessionKeys    []string `json:"sessionKeys,omitempty"`
	Archive        string   `json:"archive,omitempty"`
}

func (s storedSource) source() oracleSource {
	o := oracleSource{File: s.File, Status: s.Status, ImportedEvents: s.ImportedEvents, LeftInPlace: s.LeftInPlace}
	for _, l := range s.NotImported {
		o.ValidLinesNotImported = append(o.ValidLinesNotImported, struct {
			Line int64 `json:"line"`
		}{l})
	}
	if s.SessionID != "" {
		o.ImportedAs = &struct {
			SessionID   string   `json:"sessionId"`
			SessionKeys []string `json:"sessionKeys"`
		}{s.SessionID, s.SessionKeys}
	}
	if s.Archive != "" {
		o.Archive = &oracleArchive{Classification: s.Archive}
	}
	return o
}

// oracleImportDir runs `oracle import root out` and returns its report.
func oracleImportDir(t *testing.T, root string) oracleImport {
	t.Helper()
	script := filepath.Join(sharedDir(t), "oracle-2026.9.6", "oracle")
	if _, err := os.Stat(script); err != nil {
		oracletest.Unavailable(t, fmt.Sprintf("the 9.6 oracle is not installed: %v", err))
	}
	var out string
	var stdout, stderr bytes.Buffer
	err := oracletest.RunOnceMoreIfHung(t, 5*time.Minute, func(ctx context.Context) *exec.Cmd {
		out = filepath.Join(t.TempDir(), "imported")
		stdout.Reset()
		stderr.Reset()
		cmd := oracletest.Command(ctx, script, "import", root, out)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		return cmd
	})
	if err != nil {
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
			var buf bytes.Buffer
			err := writeStored(&buf, write)
			if err == nil {
				err = os.WriteFile(storedAnswers, buf.Bytes(), 0o644)
			}
			if err != nil {
				t.Error(err)
			}
		}()
	}
	total, wantTotal, lossy := 0, 0, 0
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
			for _, src := range stored[si].Sources {
				oracle.Sources = append(oracle.Sources, src.source())
			}
		} else {
			oracle = oracleImportDir(t, root)
			write = append(write, storedSeed{Seed: seed, Files: withoutSources(files), Sources: stripSources(oracle.Sources)})
		}
		rep, err := PredictStateDir(root)
		if err != nil {
			t.Fatal(err)
		}
		// every damaged copy is imported by 9.6 (none is left in place
		// or archived only), so each file is one comparison
		total += compareWithOracle(t, root, rep, oracle)
		wantTotal += len(files)
		lossy += len(rep.Losses())
	}
	oracletest.Compared(t, "9.6 import prediction vs the oracle's import of the damaged corpus (damaged copies x 3 seeds)", total, wantTotal)
	if lossy < 50 {
		t.Errorf("only %d of the %d sessions lose entries: the damage no longer exercises the prediction of losses", lossy, total)
	}
	t.Logf("%d of the %d sessions lose entries", lossy, total)
}

// stripSources keeps the fields the comparison reads: counts, line numbers,
// session keys and file names (generated), never entry text.
func stripSources(in []oracleSource) []storedSource {
	out := make([]storedSource, len(in))
	for i, s := range in {
		out[i] = storedSource{File: s.File, Status: s.Status, ImportedEvents: s.ImportedEvents, LeftInPlace: s.LeftInPlace, NotImported: s.notImported()}
		if s.ImportedAs != nil {
			out[i].SessionID, out[i].SessionKeys = s.ImportedAs.SessionID, s.ImportedAs.SessionKeys
		}
		if s.Archive != nil {
			out[i].Archive = s.Archive.Classification
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

// writeStored writes the answers as one JSON array with a line per file, so
// that a regenerated file diffs readably.
func writeStored(w *bytes.Buffer, seeds []storedSeed) error {
	w.WriteString("[\n")
	for i, sd := range seeds {
		fmt.Fprintf(w, "{\"seed\":%d,\"files\":[\n", sd.Seed)
		for j, f := range sd.Files {
			b, err := json.Marshal(f)
			if err != nil {
				return err
			}
			w.Write(b)
			if j < len(sd.Files)-1 {
				w.WriteString(",")
			}
			w.WriteString("\n")
		}
		w.WriteString("],\"sources\":[\n")
		for j, s := range sd.Sources {
			b, err := json.Marshal(s)
			if err != nil {
				return err
			}
			w.Write(b)
			if j < len(sd.Sources)-1 {
				w.WriteString(",")
			}
			w.WriteString("\n")
		}
		w.WriteString("]}")
		if i < len(seeds)-1 {
			w.WriteString(",")
		}
		w.WriteString("\n")
	}
	w.WriteString("]\n")
	return nil
}
