package upgrade

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// oracleImport is the part of the 9.6 oracle's `import` output the tests
// compare with (../shared/oracle-2026.9.6/README.md).
type oracleImport struct {
	Sources []oracleSource `json:"sources"`
	// Refusals: the migrations 9.6 refused (their failure files' issues)
	Refusals []struct {
		Issues []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"issues"`
	} `json:"refusals"`
	out string // where the oracle imported to (live runs)
}

type oracleSource struct {
	File                  string `json:"file"`
	Status                string `json:"status"`
	ImportedEvents        int    `json:"importedEvents"`
	LeftInPlace           bool   `json:"leftInPlace"`
	ValidLinesNotImported []struct {
		Line int64 `json:"line"`
	} `json:"validLinesNotImported"`
	ImportedAs *struct {
		SessionID   string   `json:"sessionId"`
		SessionKeys []string `json:"sessionKeys"`
	} `json:"importedAs"`
	Archive            *oracleArchive `json:"archive"`
	FirstMalformedLine int64          `json:"firstMalformedLine"`
}

type oracleArchive struct {
	Classification string `json:"classification"`
	ArchivedTo     string `json:"archivedTo"`
}

func (s oracleSource) notImported() []int64 {
	out := make([]int64, 0, len(s.ValidLinesNotImported))
	for _, l := range s.ValidLinesNotImported {
		out = append(out, l.Line)
	}
	return out
}

// compareWithOracle checks the prediction for the state dir root against the
// oracle's import report of the same state dir and returns how many
// imported sessions it compared. Files are matched by their path relative to
// the state dir.
func compareWithOracle(t *testing.T, root string, rep *Report, oracle oracleImport) (compared int) {
	t.Helper()
	bySrc := map[string]oracleSource{}
	for _, s := range oracle.Sources {
		bySrc[s.File] = s
	}
	if len(rep.Sessions) != len(oracle.Sources) {
		t.Errorf("%s: predicted %d files, the oracle lists %d", root, len(rep.Sessions), len(oracle.Sources))
	}
	for _, s := range rep.Sessions {
		rel, err := filepath.Rel(root, s.Path)
		if err != nil {
			t.Fatal(err)
		}
		o, ok := bySrc[filepath.ToSlash(rel)]
		if !ok {
			t.Errorf("%s: not in the oracle's sources", rel)
			continue
		}
		switch s.Outcome {
		case LeftInPlace:
			if !o.LeftInPlace {
				t.Errorf("%s: predicted left in place, the oracle moved it (%s)", rel, o.Status)
			}
			continue
		case ArchivedOnly:
			if o.LeftInPlace || o.ImportedAs != nil && o.ImportedAs.SessionID == strings.TrimSuffix(filepath.Base(rel), ".jsonl") {
				t.Errorf("%s: predicted archived and not imported, the oracle: %s", rel, o.Status)
			}
			continue
		}
		compared++
		r := s.Result
		if o.LeftInPlace {
			t.Errorf("%s: predicted %s, the oracle left it in place", rel, s.Outcome)
			continue
		}
		if r.Keys != o.ImportedEvents {
			t.Errorf("%s: predicted %d imported events, the oracle %d", rel, r.Keys, o.ImportedEvents)
		}
		if got, want := fmt.Sprint(r.Unmatched), fmt.Sprint(o.notImported()); got != want {
			t.Errorf("%s: predicted lines not imported %s, the oracle %s", rel, got, want)
		}
		// every line predicted left behind is one the oracle finds missing
		missing := map[int64]bool{}
		for _, l := range o.notImported() {
			missing[l] = true
		}
		for _, l := range r.LeftBehind {
			if !missing[l] {
				t.Errorf("%s: line %d predicted left behind, the oracle imported it", rel, l)
			}
		}
		if o.ImportedAs != nil && len(o.ImportedAs.SessionKeys) > 0 {
			keys := append([]string(nil), o.ImportedAs.SessionKeys...)
			sort.Strings(keys)
			if !contains(keys, s.SessionKey) {
				t.Errorf("%s: predicted session key %s, the oracle %v", rel, s.SessionKey, keys)
			}
		} else if r.Keys > 0 {
			t.Errorf("%s: predicted %s as %s, the oracle imported nothing", rel, s.Outcome, s.SessionKey)
		}
	}
	return compared
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// sharedDir is ../shared (or $OC_SHARED_DIR): without it the test fails in
// CI and is a recorded skip elsewhere (oracletest.Unavailable).
func sharedDir(t *testing.T) string {
	t.Helper()
	return oracletest.SharedDir(t)
}

func readOracleImport(t *testing.T, path string) oracleImport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		oracletest.Unavailable(t, fmt.Sprintf("the 9.6 oracle's stored import: %v", err))
	}
	var o oracleImport
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return o
}

// TestPredictionMatchesOracleFixtures: the 9.6 oracle's own import of its
// fixtures/damaged state dir (20 variants of one transcript) is predicted
// exactly: imported-event counts, the lines it did not import, session keys.
func TestPredictionMatchesOracleFixtures(t *testing.T) {
	dir := filepath.Join(sharedDir(t), "oracle-2026.9.6", "fixtures", "damaged")
	oracle := readOracleImport(t, filepath.Join(dir, "import.json"))
	root := filepath.Join(dir, "source")
	rep, err := PredictStateDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if n := compareWithOracle(t, root, rep, oracle); !oracletest.Compared(t, "9.6 import prediction vs the oracle's import of fixtures/damaged (imported sessions: every one of its 20 variants)", n, 20) {
		t.FailNow()
	}
	// the kinds the issue names are all present
	want := map[string]Outcome{
		"d0000000-0000-4000-8000-000000000001.jsonl": Whole,
		"d0000000-0000-4000-8000-000000000002.jsonl": Partial,
		"d0000000-0000-4000-8000-000000000005.jsonl": Nothing,
		"d0000000-0000-4000-8000-000000000015.jsonl": Nothing,
	}
	for _, s := range rep.Sessions {
		name := filepath.Base(s.Path)
		if w, ok := want[name]; ok && s.Outcome != w {
			t.Errorf("%s: outcome %s, want %s", name, s.Outcome, w)
		}
		switch name {
		case "d0000000-0000-4000-8000-000000000021.jsonl":
			if !s.Recovered || s.SessionKey != "agent:main:recovered:d0000000-0000-4000-8000-000000000021" {
				t.Errorf("%s: want recovered, got %+v", name, s)
			}
		case "d0000000-0000-4000-8000-000000000007.jsonl":
			if !s.Result.NoHeader || s.Result.IDsRewritten != 10 {
				t.Errorf("%s: want no header and 10 ids rewritten, got %+v", name, s.Result)
			}
		case "d0000000-0000-4000-8000-000000000017.jsonl":
			if !s.Result.HeaderRewritten {
				t.Errorf("%s: want the header id rewritten", name)
			}
		case "d0000000-0000-4000-8000-000000000011.jsonl":
			if s.Result.Duplicates != 1 {
				t.Errorf("%s: want 1 duplicate, got %d", name, s.Result.Duplicates)
			}
		case "d0000000-0000-4000-8000-000000000002.jsonl":
			if got := s.Result; got.StopLine != 6 || len(got.LeftBehind) != 5 || got.LastMessage == nil {
				t.Errorf("%s: want stop at line 6 with 5 entries behind, got %+v", name, got)
			}
		}
	}
}

// TestPredictionMatchesOracleCorpusFixture: the oracle's fixtures/corpus (4
// real transcripts, one of them Codex, and an unreferenced one recovered).
func TestPredictionMatchesOracleCorpusFixture(t *testing.T) {
	dir := filepath.Join(sharedDir(t), "oracle-2026.9.6", "fixtures", "corpus")
	oracle := readOracleImport(t, filepath.Join(dir, "import.json"))
	root := filepath.Join(dir, "source")
	rep, err := PredictStateDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if n := compareWithOracle(t, root, rep, oracle); !oracletest.Compared(t, "9.6 import prediction vs the oracle's import of fixtures/corpus (imported sessions)", n, 5) {
		t.FailNow()
	}
	codex, recovered := 0, 0
	for _, s := range rep.Sessions {
		codex += s.Result.CodexTurns
		if s.Recovered {
			recovered++
		}
		if s.Outcome != Whole {
			t.Errorf("%s: %s, want imported whole", filepath.Base(s.Path), s.Outcome)
		}
	}
	if codex == 0 || recovered != 1 {
		t.Fatalf("codex turns %d (want some), recovered %d (want 1)", codex, recovered)
	}
}
