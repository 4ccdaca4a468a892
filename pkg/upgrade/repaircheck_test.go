package upgrade

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/pkg/repair"
)

// TestRepairCheckFlagsEveryUpgradeLoss: `oc repair --check` (the default rule
// set) fails on every file whose entries the upgrade would leave behind, and
// the doctor wording names the stop line and the last message imported.
// Transcripts not in sessions.json get the recovery hints `oc repair` gives
// them (RecoveryHints).
func TestRepairCheckFlagsEveryUpgradeLoss(t *testing.T) {
	corpus := corpusTranscripts(t)
	checked, utf8, deferred := 0, 0, 0
	for _, seed := range damageSeeds {
		root := t.TempDir()
		buildDamagedStateDir(t, corpus, seed, root, false)
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
			p, err := repair.PlanFile(s.Path, repair.Options{Recovery: hints[s.Path]})
			if err != nil {
				t.Fatalf("%s: %v", s.Path, err)
			}
			if s.Outcome == Deferred && (strings.Contains(s.Reason, "not entries") || strings.Contains(s.Reason, "header id differs")) {
				deferred++
			}
			if !p.NeedsAttention() {
				t.Errorf("%s: the upgrade would leave %d entries behind (stop at line %d) but repair --check passes it",
					filepath.Base(s.Path), len(s.Result.LeftBehind), s.Result.StopLine)
			}
			if s.Result.StopReason == StopUTF8 {
				utf8++
			}
			msg := LossText(s)
			if !strings.Contains(msg, s.SessionKey) || !strings.Contains(msg, "stay behind") {
				t.Errorf("finding text %q", msg)
			}
			checked++
		}
		if n, m := rep.LostEntries(); m == 0 || !strings.Contains(rep.Summary(), "would leave") || n < m {
			t.Errorf("summary %q", rep.Summary())
		}
	}
	if checked < 100 {
		t.Fatalf("checked only %d lossy sessions", checked)
	}
	if utf8 == 0 {
		t.Fatal("no loss to invalid UTF-8 was checked")
	}
	if deferred < 10 {
		t.Fatalf("only %d unregistered transcripts with non-object lines or a mismatched header id", deferred)
	}
	t.Logf("%d lossy sessions flagged by repair --check (%d by invalid UTF-8, %d unregistered with non-object lines or a mismatched header id)", checked, utf8, deferred)
}
