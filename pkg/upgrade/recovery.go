package upgrade

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw-tools/oc/pkg/repair"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// RecoveryHints marks, among paths, the primary transcripts of a state dir's
// sessions folders (<state>/agents/<id>/sessions) that no sessions.json
// entry names: the files OpenClaw 2026.9.6's import recovers as
// agent:<id>:recovered:<sessionId> or, when it cannot claim them, archives
// without importing. `oc repair` passes the hints to the planner
// (repair.RunOptions.Recovery), which makes such a file claimable where that
// loses nothing and reports what it cannot fix. Files outside a sessions
// folder of an agents folder get no hint.
func RecoveryHints(paths []string) (map[string]*repair.Recovery, error) {
	out := map[string]*repair.Recovery{}
	regs := map[string]*registration{}
	for _, p := range paths {
		dir := filepath.Dir(p)
		name := filepath.Base(p)
		if filepath.Base(dir) != "sessions" || filepath.Base(filepath.Dir(filepath.Dir(dir))) != "agents" {
			continue
		}
		if !isPrimary(name) || oldQuarantineRE().MatchString(name) || strings.HasSuffix(name, ".lock") {
			continue
		}
		rg := regs[dir]
		if rg == nil {
			a := transcript.Agent{ID: filepath.Base(filepath.Dir(dir)), SessionsDir: dir}
			if idx := filepath.Join(dir, "sessions.json"); fileExists(idx) {
				a.IndexPath = idx
			}
			r, err := readRegistration(filepath.Dir(filepath.Dir(filepath.Dir(dir))), Options{}, a)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", dir, err)
			}
			rg = &r
			regs[dir] = rg
		}
		if _, ok := rg.byPath[p]; ok {
			continue
		}
		id := FileSessionID(name)
		h := &repair.Recovery{SessionID: id}
		switch {
		case !primaryIDRE().MatchString(id):
			h.Unrepairable = fmt.Sprintf("its file name gives no session id OpenClaw 2026.8+ accepts (%q: letters, digits, _ and -, at most 128): it keeps the file in its import archive without importing it; rename the file to <session id>.jsonl by hand", printable(id, 60))
		case rg.ids[id]:
			h.Unrepairable = fmt.Sprintf("a session in sessions.json already has the id %s: OpenClaw 2026.8+ keeps this extra file in its import archive without importing it; compare the two by hand (oc inspect) and keep what you need", id)
		}
		out[p] = h
	}
	return out, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
