package upgrade

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/repair"
)

// TestRepairCheckFlagsEveryUpgradeLoss: `oc repair --check` (the default rule
// set) fails on every file whose entries the upgrade would leave behind, and
// the doctor wording names the stop line and the last message imported.
// Transcripts not in sessions.json get the recovery hints `oc repair` gives
// them (RecoveryHints).
//
// The files that lose entries are the prediction's, which
// TestPredictionMatchesOracleOnDamagedCorpus compares with the 9.6 oracle's
// import of the same state dirs; here each must also be one the stored oracle
// answers list with valid lines not imported. want: every predicted loss,
// each counted only when repair --check flags it and the finding text holds.
func TestRepairCheckFlagsEveryUpgradeLoss(t *testing.T) {
	corpus := corpusTranscripts(t)
	b, err := os.ReadFile(storedAnswers)
	if err != nil {
		t.Fatalf("stored oracle answers: %v (regenerate with OC_UPGRADE_ORACLE=write)", err)
	}
	var stored []storedSeed
	if err := json.Unmarshal(b, &stored); err != nil {
		t.Fatal(err)
	}
	checked, want, utf8, deferred := 0, 0, 0, 0
	for si, seed := range damageSeeds {
		root := t.TempDir()
		files := buildDamagedStateDir(t, corpus, seed, root, false)
		if si >= len(stored) || stored[si].Seed != seed || fmt.Sprint(stored[si].Files) != fmt.Sprint(withoutSources(files)) {
			t.Fatalf("seed %d: the damaged state dir differs from the one the stored answers describe: regenerate with OC_UPGRADE_ORACLE=write", seed)
		}
		notImported := map[string]bool{}
		for _, src := range stored[si].Sources {
			if len(src.NotImported) > 0 {
				notImported[filepath.Clean(src.File)] = true
			}
		}
		rep, err := PredictStateDir(root)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, s := range rep.Sessions {
			paths = append(paths, s.Path)
		}
		hints, err := RecoveryHints(paths)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range rep.Losses() {
			want++
			if rel, err := filepath.Rel(root, s.Path); err != nil || !notImported[rel] {
				t.Errorf("%s: predicted to lose entries, but the oracle's import left no valid line of it behind", filepath.Base(s.Path))
				continue
			}
			p, err := repair.PlanFile(s.Path, repair.Options{Recovery: hints[s.Path]})
			if err != nil {
				t.Fatalf("%s: %v", s.Path, err)
			}
			if s.Outcome == Deferred && (strings.Contains(s.Reason, "not entries") || strings.Contains(s.Reason, "header id differs")) {
				deferred++
			}
			ok := p.NeedsAttention()
			if !ok {
				t.Errorf("%s: the upgrade would leave %d entries behind (stop at line %d) but repair --check passes it",
					filepath.Base(s.Path), len(s.Result.LeftBehind), s.Result.StopLine)
			}
			if s.Result.StopReason == StopUTF8 {
				utf8++
			}
			msg := LossText(s)
			if !strings.Contains(msg, s.SessionKey) || !strings.Contains(msg, "stay behind") {
				t.Errorf("finding text %q", msg)
				ok = false
			}
			if ok {
				checked++
			}
		}
		if n, m := rep.LostEntries(); m == 0 || !strings.Contains(rep.Summary(), "would leave") || n < m {
			t.Errorf("summary %q", rep.Summary())
		}
	}
	oracletest.Compared(t, "repair --check flags every session the 9.6 import leaves entries of behind (predicted losses, each in the oracle's answers, x 3 seeds)", checked, want)
	if utf8 == 0 {
		t.Fatal("no loss to invalid UTF-8 was checked")
	}
	if deferred < 10 {
		t.Fatalf("only %d unregistered transcripts with non-object lines or a mismatched header id", deferred)
	}
	t.Logf("%d lossy sessions flagged by repair --check (%d by invalid UTF-8, %d unregistered with non-object lines or a mismatched header id)", checked, utf8, deferred)
}
