package doctor

import (
	"os"
	"path/filepath"

	"github.com/openclaw-tools/oc/internal/shellquote"
	"github.com/openclaw-tools/oc/pkg/repair"
	"github.com/openclaw-tools/oc/pkg/upgrade"
)

// UpgradeCheck predicts OpenClaw 2026.9.6's import of a JSONL-era state dir
// (pkg/upgrade): an upgrade-loss finding for every session whose entries the
// import would leave behind, and one summary line. A state dir that already
// has agent databases is past the import and is not predicted.
func UpgradeCheck(stateDir string) ([]Finding, error) {
	if dbs, _ := filepath.Glob(filepath.Join(stateDir, "agents", "*", "agent", "openclaw-agent.sqlite")); len(dbs) > 0 {
		return nil, nil
	}
	if _, err := os.Stat(filepath.Join(stateDir, "agents")); err != nil {
		return nil, nil
	}
	// the default agent's store is the one doctor --fix migrates first; a
	// config that does not load is reported by the config check, and the
	// prediction then assumes "main"
	cfg, _ := LoadConfig(stateDir, os.Getenv)
	rep, err := upgrade.Predict(stateDir, upgrade.Options{DoctorAgent: cfg.defaultAgent()})
	if err != nil {
		return nil, err
	}
	var out []Finding
	losses := rep.Losses()
	paths := make([]string, len(losses))
	for i, s := range losses {
		paths[i] = s.Path
	}
	hints, err := upgrade.RecoveryHints(paths)
	if err != nil {
		return nil, err
	}
	for _, s := range losses {
		f := Finding{ID: "upgrade-loss", Severity: SevWarning, Path: s.Path, Section: SectionTranscripts,
			Message: upgrade.LossText(s), Fix: "oc repair " + shellquote.Quote(s.Path)}
		if h := hints[s.Path]; h != nil {
			// a transcript not in sessions.json: say so when oc repair cannot make the import take it
			if p, err := repair.PlanFile(s.Path, repair.Options{Recovery: h}); err == nil && p.Unrepairable() != "" {
				f.Message += "; `oc repair` cannot change that: " + p.Unrepairable()
				f.Fix = ""
			}
		}
		out = append(out, f)
	}
	for _, s := range rep.Sessions {
		if s.SessionKey == "" || s.Outcome == upgrade.Deferred || s.Result == nil || s.Result.RewriteCount == 0 {
			continue
		}
		out = append(out, Finding{ID: "upgrade-reserialised", Severity: SevInfo, Path: s.Path, Section: SectionTranscripts,
			Message: upgrade.RewriteText(s)})
	}
	refusals := rep.Refusals()
	for _, s := range refusals {
		out = append(out, Finding{ID: "upgrade-refused", Severity: SevError, Path: s.Path, Section: SectionTranscripts,
			Message: upgrade.RefusalText(s), Fix: "oc repair " + shellquote.Quote(s.Path)})
	}
	if len(rep.Sessions) > 0 {
		fix := ""
		if len(out) > 0 || len(refusals) > 0 {
			fix = "oc repair --state-dir " + shellquote.Quote(stateDir)
		}
		out = append(out, Finding{ID: "upgrade-summary", Severity: SevInfo, Path: stateDir, Section: SectionTranscripts,
			Message: rep.Summary(), Fix: fix})
	}
	return out, nil
}
