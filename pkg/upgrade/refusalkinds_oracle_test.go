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

// Issue 33: every way a transcript read to its end makes 2026.9.6's
// `openclaw doctor --fix` promise an event it does not store, so that it
// fails with sqlite_transcript_count_mismatch and refuses the whole
// migration (refusal.go). testdata/refusal-kinds/<kind> is a state dir with
// one such transcript each (and header-other-id a control: a second header
// with another id, which 9.6 stores). The 9.6 oracle's answers (its
// refusals before, and for the kinds oc repair fixes the import after) are
// stored in testdata/refusal-kinds/oracle.json; OC_UPGRADE_ORACLE=write
// regenerates them, OC_UPGRADE_ORACLE=live or OC_LIVE_ORACLE=1 asks the
// oracle (about ten minutes).

const refusalKindsDir = "testdata/refusal-kinds"

// refusalKinds: each fixture and the conflict oc predicts ("" for none);
// repaired: oc repair fixes it (the import after keeps every entry).
var refusalKinds = []struct {
	name, kind string
	line       int64
	repaired   bool
}{
	{"repeated-header", ConflictHeader, 4, true},
	{"session-id", ConflictSessionID, 4, true},
	{"duplicate-custom", ConflictDuplicate, 5, true},
	{"duplicate-opaque", ConflictDuplicate, 5, true},
	{"duplicate-noid", ConflictDuplicate, 5, true},
	{"header-other-id", "", 0, false},
}

type storedKind struct {
	Digests map[string]string `json:"digests"`
	// Refusals: the count-mismatch messages of the oracle's import
	Refusals []string `json:"refusals"`
	// After (repaired kinds): the import of the repaired state dir
	After         []storedSource    `json:"after,omitempty"`
	AfterDigests  map[string]string `json:"afterDigests,omitempty"`
	AfterRefusals []string          `json:"afterRefusals,omitempty"`
}

func countMismatches(o oracleImport) []string {
	var out []string
	for _, r := range o.Refusals {
		for _, i := range r.Issues {
			if i.Code == "sqlite_transcript_count_mismatch" {
				out = append(out, i.Code+": "+i.Message)
			}
		}
	}
	sort.Strings(out)
	return out
}

func TestRefusalKinds(t *testing.T) {
	mode := os.Getenv("OC_UPGRADE_ORACLE")
	if mode == "" && os.Getenv(oracletest.LiveEnv) != "" {
		mode = "live"
	}
	stored := map[string]storedKind{}
	storedPath := filepath.Join(refusalKindsDir, "oracle.json")
	b, err := os.ReadFile(storedPath)
	if err != nil && mode == "" {
		t.Fatalf("stored oracle answers: %v (regenerate with OC_UPGRADE_ORACLE=write)", err)
	}
	if err == nil {
		// write mode keeps the answers of the kinds -run leaves out
		if err := json.Unmarshal(b, &stored); err != nil {
			t.Fatal(err)
		}
	}
	compared, want := 0, 0
	for _, k := range refusalKinds {
		t.Run(k.name, func(t *testing.T) {
			want++
			if k.repaired {
				want++
			}
			root := t.TempDir()
			copyTree(t, filepath.Join(refusalKindsDir, k.name), root)
			s := stored[k.name]
			digests := transcriptDigests(t, root)
			if mode == "" && fmt.Sprint(s.Digests) != fmt.Sprint(digests) {
				t.Fatal("the fixture differs from the state dir the stored answers describe: regenerate with OC_UPGRADE_ORACLE=write")
			}
			pred, err := PredictStateDir(root)
			if err != nil {
				t.Fatal(err)
			}
			refusals := pred.Refusals()
			if mode != "" {
				o := oracleImportDir(t, root)
				s = storedKind{Digests: digests, Refusals: countMismatches(o)}
			}
			if k.kind == "" {
				if len(refusals) != 0 || len(s.Refusals) != 0 {
					t.Fatalf("predicted %+v, the oracle %q: want no refusal", refusals, s.Refusals)
				}
				compared++
				stored[k.name] = s
				return
			}
			if len(refusals) != 1 || len(s.Refusals) != 1 {
				t.Fatalf("predicted %d refusals, the oracle %q: want one each", len(refusals), s.Refusals)
			}
			c := refusals[0].Result.Conflict
			if c.Kind != k.kind || c.Line != k.line {
				t.Errorf("conflict %+v, want %s at line %d", c, k.kind, k.line)
			}
			want := fmt.Sprintf("sqlite_transcript_count_mismatch: SQLite transcript has %d events; verified import expects %d.", c.Stored, c.Rows)
			if s.Refusals[0] != want {
				t.Errorf("the oracle: %q; predicted %q", s.Refusals[0], want)
			}
			if msg := RefusalText(refusals[0]); !strings.Contains(msg, fmt.Sprintf("line %d", k.line)) {
				t.Errorf("finding %q does not name line %d", msg, k.line)
			}
			compared++
			if k.repaired {
				compared += checkRepairedKind(t, root, mode, &s)
			}
			stored[k.name] = s
		})
	}
	oracletest.Compared(t, "refusal kinds: 9.6 imports before and after oc repair", compared, want)
	if mode == "write" {
		b, err := json.MarshalIndent(stored, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(storedPath, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkRepairedKind runs oc repair on root: no refusal is predicted after,
// and the oracle's import of the repaired state dir refuses nothing and
// imports every line of the transcript (the quarantined repeat is gone from
// it, and kept in the quarantine file).
func checkRepairedKind(t *testing.T, root, mode string, s *storedKind) int {
	t.Helper()
	rep := repairWithHints(t, root)
	if e := rep.FirstError(); e != "" {
		t.Fatalf("repair: %s", e)
	}
	if rep.Totals.Changed != 1 {
		t.Fatalf("oc repair changed %d files, want 1", rep.Totals.Changed)
	}
	after, err := PredictStateDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if r := after.Refusals(); len(r) != 0 {
		t.Fatalf("after oc repair still refused: %+v", r[0].Result.Conflict)
	}
	afterDigests := transcriptDigests(t, root)
	var o oracleImport
	if mode == "" {
		if fmt.Sprint(s.AfterDigests) != fmt.Sprint(afterDigests) {
			t.Fatal("the repaired state dir differs from the one the stored answers describe: regenerate with OC_UPGRADE_ORACLE=write")
		}
		o = sourcesOf(s.After)
	} else {
		o = oracleImportDir(t, root)
		s.After, s.AfterDigests, s.AfterRefusals = stripSources(o.Sources), afterDigests, countMismatches(o)
	}
	if len(s.AfterRefusals) != 0 {
		t.Fatalf("the oracle still refuses after oc repair: %q", s.AfterRefusals)
	}
	n := 0
	for _, src := range o.Sources {
		if !strings.HasSuffix(src.File, ".jsonl") || isOcFile(filepath.Base(src.File)) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(src.File)))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Count(string(b), "\n")
		if src.ImportedEvents != lines || len(src.ValidLinesNotImported) != 0 {
			t.Errorf("%s after oc repair: %d events imported of %d lines, not imported %v", src.File, src.ImportedEvents, lines, src.notImported())
		}
		n++
	}
	if n != 1 {
		t.Fatalf("the oracle reported %d transcripts, want 1", n)
	}
	return compareWithOracle(t, root, after, o)
}
