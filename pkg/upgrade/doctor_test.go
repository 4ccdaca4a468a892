package upgrade_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/doctor"
	"github.com/openclaw-tools/oc/pkg/repair"
)

// copyDir copies a small fixture tree.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDoctorNamesEveryUpgradeLoss: `oc doctor` on the 9.6 oracle's damaged
// fixture has one upgrade-loss finding per session the oracle imported only
// in part or not at all (while valid entries existed), and the summary line.
func TestDoctorNamesEveryUpgradeLoss(t *testing.T) {
	src := filepath.Join(oracletest.SharedDir(t), "oracle-2026.9.6", "fixtures", "damaged", "source")
	if _, err := os.Stat(src); err != nil {
		oracletest.Unavailable(t, fmt.Sprintf("the 9.6 oracle's damaged fixture: %v", err))
	}
	root := t.TempDir()
	copyDir(t, src, root)
	rep, err := doctor.Run(context.Background(), doctor.Options{StateDir: root, Env: func(string) string { return "" }, GatewayLockDir: t.TempDir(),
		Transcripts: []doctor.TranscriptCheck{doctor.UpgradeCheck}})
	if err != nil {
		t.Fatal(err)
	}
	var lossy []string
	summary := ""
	for _, f := range rep.Findings {
		switch f.ID {
		case "upgrade-loss":
			lossy = append(lossy, filepath.Base(f.Path))
			if f.Severity != doctor.SevWarning || !strings.HasPrefix(f.Fix, "oc repair ") || !strings.Contains(f.Message, "stay behind") {
				t.Errorf("finding %+v", f)
			}
		case "upgrade-summary":
			summary = f.Message
		}
	}
	sort.Strings(lossy)
	// the oracle's import.json: partial (2, 3) and header damaged (5, 6); the
	// cut last line (4, 19) loses only the damaged line itself
	want := []string{
		"d0000000-0000-4000-8000-000000000002.jsonl", "d0000000-0000-4000-8000-000000000003.jsonl",
		"d0000000-0000-4000-8000-000000000005.jsonl", "d0000000-0000-4000-8000-000000000006.jsonl",
	}
	if strings.Join(lossy, " ") != strings.Join(want, " ") {
		t.Fatalf("upgrade-loss on %v, want %v", lossy, want)
	}
	if summary != "the upgrade would leave 30 entries of 4 sessions behind; run `oc repair` first" {
		t.Fatalf("summary %q", summary)
	}
	if rep.Remaining < len(want) {
		t.Fatalf("remaining %d: check mode must exit 1", rep.Remaining)
	}
	// after the upgrade (an agent database exists) nothing is predicted
	if err := os.MkdirAll(filepath.Join(root, "agents", "main", "agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "agents", "main", "agent", "openclaw-agent.sqlite"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fs, err := doctor.UpgradeCheck(root)
	if err != nil || len(fs) != 0 {
		t.Fatalf("SQLite era: %v %v", fs, err)
	}
}

// TestDoctorUpgradeLossOfUnregisteredTranscripts: a transcript not in
// sessions.json that 9.6 would archive unimported is an upgrade-loss with the
// `oc repair` fix when repair makes it recoverable, without it (and with the
// reason) when repair cannot; one without messages is no loss.
func TestDoctorUpgradeLossOfUnregisteredTranscripts(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	hdr := func(id string) string {
		return `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-05-17T06:45:00.000Z","cwd":"/w"}`
	}
	user := `{"type":"message","id":"m1","parentId":null,"timestamp":"2026-05-17T06:45:01.000Z","message":{"role":"user","content":"hi"}}`
	files := map[string]string{
		"0197e000-0000-7000-8000-000000000001.jsonl": hdr("elsewhere") + "\n" + user + "\n",                                              // fixable
		"0197e000-0000-7000-8000-000000000002.jsonl": hdr("0197e000-0000-7000-8000-000000000002") + "\n" + user + "\n" + hdr("b") + "\n", // unrepairable
		"0197e000-0000-7000-8000-000000000003.jsonl": hdr("elsewhere-too") + "\n[1,2]\n",                                                 // no message
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "sessions.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	fs, err := doctor.UpgradeCheck(root)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]doctor.Finding{}
	for _, f := range fs {
		if f.ID == "upgrade-loss" {
			got[filepath.Base(f.Path)] = f
		}
	}
	if len(got) != 2 {
		t.Fatalf("upgrade-loss on %v, want the first two files", got)
	}
	if f := got["0197e000-0000-7000-8000-000000000001.jsonl"]; !strings.HasPrefix(f.Fix, "oc repair ") || strings.Contains(f.Message, "cannot") {
		t.Errorf("fixable: %+v", f)
	}
	if f := got["0197e000-0000-7000-8000-000000000002.jsonl"]; f.Fix != "" || !strings.Contains(f.Message, "cannot change that") || !strings.Contains(f.Message, "second session header") {
		t.Errorf("unrepairable: %+v", f)
	}
}

// TestDoctorUpgradeRefused: a transcript that repeats an entry id with other
// content (testdata/refused) is an upgrade-refused error naming the file and
// line, the summary says the whole upgrade would be refused, `oc repair
// --check` flags exactly that file, and after `oc repair` doctor predicts a
// whole import.
func TestDoctorUpgradeRefused(t *testing.T) {
	root := t.TempDir()
	copyDir(t, filepath.Join("testdata", "refused", "source"), root)
	check := func() (refused []doctor.Finding, summary string) {
		fs, err := doctor.UpgradeCheck(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			switch f.ID {
			case "upgrade-refused":
				refused = append(refused, f)
			case "upgrade-summary":
				summary = f.Message
			}
		}
		return refused, summary
	}
	refused, summary := check()
	if len(refused) != 1 {
		t.Fatalf("upgrade-refused findings %+v, want one", refused)
	}
	f := refused[0]
	if filepath.Base(f.Path) != "a1a1a1a1-0000-4000-8000-000000000001.jsonl" || f.Severity != doctor.SevError ||
		!strings.HasPrefix(f.Fix, "oc repair ") || !strings.Contains(f.Message, "line 4 of agent:main:main repeats the id \"m1\" of line 2") ||
		!strings.Contains(f.Message, "for every session") || !strings.Contains(f.Message, "stores 4 of its 5 events") {
		t.Errorf("finding %+v", f)
	}
	if !strings.HasPrefix(summary, "the upgrade would be refused: 1 transcript holds an event") {
		t.Errorf("summary %q", summary)
	}
	dir := filepath.Join(root, "agents", "main", "sessions")
	var flagged []string
	var paths []string
	for _, name := range []string{"a1a1a1a1-0000-4000-8000-000000000001.jsonl", "b2b2b2b2-0000-4000-8000-000000000002.jsonl"} {
		p, err := repair.PlanFile(filepath.Join(dir, name), repair.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if p.NeedsAttention() {
			flagged = append(flagged, name)
		}
		paths = append(paths, filepath.Join(dir, name))
	}
	if len(flagged) != 1 || flagged[0] != "a1a1a1a1-0000-4000-8000-000000000001.jsonl" {
		t.Fatalf("repair --check flags %v, want the refused file only", flagged)
	}
	rep := repair.Run(t.Context(), paths, repair.RunOptions{})
	if e := rep.FirstError(); e != "" {
		t.Fatal(e)
	}
	if refused, summary := check(); len(refused) != 0 || summary != "the upgrade to OpenClaw 2026.8+ would import all 2 transcripts whole" {
		t.Fatalf("after oc repair: %+v, summary %q", refused, summary)
	}
}
