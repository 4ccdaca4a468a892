package upgrade

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/repair"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// isOcFile: oc's backups and quarantine files (old and new quarantine names).
func isOcFile(name string) bool {
	return strings.Contains(name, ".bak-oc-") || strings.Contains(name, ".rejected-")
}

// repairStateDir is `oc repair --state-dir root`.
func repairStateDir(t *testing.T, root string) {
	t.Helper()
	files, err := transcript.Discover([]string{root}, false)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Path
	}
	hints, err := RecoveryHints(names)
	if err != nil {
		t.Fatal(err)
	}
	rep := repair.Run(t.Context(), names, repair.RunOptions{Recovery: hints})
	if e := rep.FirstError(); e != "" {
		t.Fatalf("repair: %s", e)
	}
}

// contextLengths asks the 9.6 oracle for the context of each session key in
// the imported state dir out (one batch) and returns the message counts.
func contextLengths(t *testing.T, out string, keys []string) map[string]int {
	t.Helper()
	script := filepath.Join(sharedDir(t), "oracle-2026.9.6", "oracle")
	db := filepath.Join(out, "agents", "main", "agent", "openclaw-agent.sqlite")
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, k := range keys {
		_ = enc.Encode(map[string]any{"id": k, "mode": "context", "args": []string{db, k}})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := oracletest.Command(ctx, script, "batch")
	cmd.Stdin = &in
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("oracle batch: %v\n%s", err, lastLines(stderr.String(), 20))
	}
	res := map[string]int{}
	for _, l := range bytes.Split(bytes.TrimSpace(stdout.Bytes()), []byte("\n")) {
		var r struct {
			ID  string `json:"id"`
			OK  bool   `json:"ok"`
			Out struct {
				Messages []json.RawMessage `json:"messages"`
			} `json:"out"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatalf("oracle batch output: %v", err)
		}
		if !r.OK {
			t.Errorf("context %s: %s", r.ID, r.Error)
			continue
		}
		res[r.ID] = len(r.Out.Messages)
	}
	return res
}

// TestRepairMakesImportLossless: after `oc repair` on a damaged state dir,
// 9.6's import leaves no valid line of a transcript behind, never imports or
// archives an oc backup or quarantine file, and every session's imported
// context equals its undamaged twin's (same repair, same import) less at
// most the entry the damage destroyed. It runs the oracle three times
// (about 6 minutes on 2 cores): it runs with the live oracle runs
// (OC_LIVE_ORACLE=1, as CI sets it) or with OC_UPGRADE_ORACLE=live.
// Unregistered copies with non-object lines or a mismatched header id are
// included (the recovery rules). The oracle's lines not imported must be exactly the
// lines whose id 9.6 rewrites (a header id replaced by sessions.json's), never
// a line left behind.
func TestRepairMakesImportLossless(t *testing.T) {
	if os.Getenv("OC_UPGRADE_ORACLE") != "live" {
		oracletest.RequireLive(t, "runs the 9.6 oracle for minutes (or set OC_UPGRADE_ORACLE=live)")
	}
	all := corpusTranscripts(t)
	var corpus []string // every other transcript: two imports stay within a few minutes
	for i := 0; i < len(all); i += 2 {
		corpus = append(corpus, all[i])
	}
	const seed = 1
	damaged, twin := t.TempDir(), t.TempDir()
	files := buildDamagedStateDir(t, corpus, seed, damaged, false)
	buildDamagedStateDir(t, corpus, seed, twin, true)
	destroys := map[string]bool{}
	unregisteredFixed := 0
	for _, f := range files {
		// an unregistered transcript with non-object lines or a header id
		// that differs from its file name: 9.6 would archive it without
		// importing it; oc repair's recovery rules make it recoverable
		if !f.Registered && (f.Kind == "non-object" || f.Kind == "header-id-mismatch") {
			unregisteredFixed++
		}
		for _, k := range damageKinds {
			if k.name == f.Kind && k.destroys {
				destroys[f.Name] = true
			}
		}
	}
	repairStateDir(t, damaged)
	repairStateDir(t, twin)
	// the backups and quarantine files repair wrote: 9.6 must leave each alone
	wantOcFiles := 0
	entries, err := os.ReadDir(filepath.Join(damaged, "agents", "main", "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if isOcFile(e.Name()) {
			wantOcFiles++
		}
	}
	// the repaired state dir is predicted lossless
	rep, err := PredictStateDir(damaged)
	if err != nil {
		t.Fatal(err)
	}
	if l := rep.Losses(); len(l) > 0 {
		t.Errorf("after repair %d sessions are still predicted to lose entries, e.g. %s", len(l), LossText(l[0]))
	}
	rewritten := map[string]string{}
	for _, s := range rep.Sessions {
		if s.Result != nil {
			rewritten[filepath.Base(s.Path)] = fmt.Sprint(s.Result.Unmatched)
		}
	}
	got := oracleImportDir(t, damaged)
	want := oracleImportDir(t, twin)
	ocFiles, compared := 0, 0
	keysDamaged, keysTwin := map[string]string{}, map[string]string{}
	for _, s := range got.Sources {
		name := filepath.Base(s.File)
		if isOcFile(name) {
			ocFiles++
			if !s.LeftInPlace || s.ImportedAs != nil || s.Archive != nil {
				t.Errorf("%s: oc's file was imported or archived by 9.6 (%s)", name, s.Status)
			}
			continue
		}
		if n := len(s.ValidLinesNotImported); n > 0 && fmt.Sprint(s.notImported()) != rewritten[name] {
			t.Errorf("%s: after repair 9.6 still leaves %d valid lines behind (%s): lines %v, of which only %s are rewritten ids",
				name, n, s.Status, s.notImported(), rewritten[name])
		}
		if s.ImportedAs != nil && len(s.ImportedAs.SessionKeys) > 0 {
			keysDamaged[name] = s.ImportedAs.SessionKeys[0]
		}
	}
	for _, s := range want.Sources {
		if !isOcFile(filepath.Base(s.File)) && s.ImportedAs != nil && len(s.ImportedAs.SessionKeys) > 0 {
			keysTwin[filepath.Base(s.File)] = s.ImportedAs.SessionKeys[0]
		}
	}
	var kd, kt []string
	for _, k := range keysDamaged {
		kd = append(kd, k)
	}
	for _, k := range keysTwin {
		kt = append(kt, k)
	}
	lenDamaged := contextLengths(t, got.out, kd)
	lenTwin := contextLengths(t, want.out, kt)
	for name, kTwin := range keysTwin {
		kDmg, ok := keysDamaged[name]
		if !ok {
			t.Errorf("%s: the twin is imported as %s, the repaired copy is not imported", name, kTwin)
			continue
		}
		compared++
		d, w := lenDamaged[kDmg], lenTwin[kTwin]
		allowed := 0
		if destroys[name] {
			allowed = 1
		}
		if d > w || w-d > allowed {
			t.Errorf("%s: imported context has %d messages, its undamaged twin %d (at most %d may be lost)", name, d, w, allowed)
		}
	}
	// every damaged copy has an undamaged twin; each pair is one comparison
	oracletest.Compared(t, "9.6 import of repaired copies vs their undamaged twins (one per damaged file)", compared, len(files))
	oracletest.Compared(t, "9.6 import leaves every backup and quarantine file of oc repair alone", ocFiles, wantOcFiles)
	t.Logf("%d unregistered copies with non-object lines or a mismatched header id included", unregisteredFixed)
}
