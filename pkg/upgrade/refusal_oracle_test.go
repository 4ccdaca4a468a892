package upgrade

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// Issue 13, the refused migration: a transcript read to its end that repeats
// an entry id for a different entry makes 2026.9.6's doctor --fix fail with
// sqlite_transcript_count_mismatch and import and archive nothing, for every
// session. testdata/refused/source is a crafted state dir: one such
// transcript (line 4 repeats line 2's id "m1") and one whose repeat is a
// byte-identical copy (harmless: 9.6 drops it); the same state dir with the
// first transcript not in sessions.json (recovered) is refused too. The
// oracle's answers (the failed imports' issues, the import after `oc
// repair`) are stored in
// testdata/refused/oracle.json; OC_UPGRADE_ORACLE=write regenerates them,
// OC_UPGRADE_ORACLE=live or OC_LIVE_ORACLE=1 asks the oracle (about a minute).

const (
	refusedSource = "testdata/refused/source"
	refusedStored = "testdata/refused/oracle.json"
	refusedFile   = "a1a1a1a1-0000-4000-8000-000000000001.jsonl"
	exactRepeat   = "b2b2b2b2-0000-4000-8000-000000000002.jsonl"
)

type storedRefusal struct {
	// SourceDigests: the transcripts the answers are for.
	SourceDigests map[string]string `json:"sourceDigests"`
	// BeforeIssues: the failure report's count-mismatch issues.
	BeforeIssues []string `json:"beforeIssues"`
	// BeforeLeft: the transcripts still in the sessions folder after the
	// failed import (nothing archived).
	BeforeLeft []string `json:"beforeLeft"`
	// After: the import of the repaired state dir; AfterDigests its transcripts.
	After        []storedSource    `json:"after"`
	AfterDigests map[string]string `json:"afterDigests"`
	// RecoveredIssues: the failed import of the same state dir with the
	// refused transcript not in sessions.json (9.6 recovers it as
	// agent:main:recovered:<id> and refuses the same way).
	RecoveredIssues []string `json:"recoveredIssues"`
	RecoveredLeft   []string `json:"recoveredLeft"`
}

// oracleImportFailure runs the oracle's import of root, which must be
// refused: the harness names the refusal in its answer's `refusals` (older
// harnesses crashed reading doctor --fix's failure report instead), and, as
// scripts/difffuzz/openclaw96.go does, the issues are read from
// session-sqlite-migration-runs/*.failure.json.
func oracleImportFailure(t *testing.T, root string) (issues, left []string) {
	t.Helper()
	script := oracletest.Oracle96(t)
	var out string
	var stdout, stderr bytes.Buffer
	// The import takes 10-40 s; a hung one gets a second, logged try.
	err := oracletest.RunOnceMoreIfHung(t, 4*time.Minute, func(ctx context.Context) *exec.Cmd {
		out = filepath.Join(t.TempDir(), "imported")
		stdout.Reset()
		stderr.Reset()
		cmd := oracletest.Command(ctx, script, "import", root, out)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		return cmd
	})
	if err == nil {
		// The current harness reports a refused migration in its answer
		// (`refusals`) and exits 0; older ones failed reading the report.
		var answer struct {
			Refusals []json.RawMessage `json:"refusals"`
		}
		if jerr := json.Unmarshal(stdout.Bytes(), &answer); jerr != nil || len(answer.Refusals) == 0 {
			t.Fatalf("the oracle imported %s; want doctor --fix to refuse the migration", root)
		}
	}
	names, _ := filepath.Glob(filepath.Join(out, "session-sqlite-migration-runs", "*.failure.json"))
	if len(names) == 0 {
		t.Fatalf("the oracle's import failed without a failure report: %s", lastLines(stderr.String(), 5))
	}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Targets []struct {
				Issues []struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"issues"`
			} `json:"targets"`
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		for _, tg := range rep.Targets {
			for _, i := range tg.Issues {
				if i.Code == "sqlite_transcript_count_mismatch" {
					issues = append(issues, i.Code+": "+i.Message)
				}
			}
		}
	}
	ents, err := os.ReadDir(filepath.Join(out, "agents", "main", "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".jsonl") {
			left = append(left, e.Name())
		}
	}
	sort.Strings(issues)
	return issues, left
}

var countMismatchRE = regexp.MustCompile(`^sqlite_transcript_count_mismatch: SQLite transcript has (\d+) events; verified import expects (\d+)\.$`)

func TestRefusedMigrationPredictedAndRepaired(t *testing.T) {
	root := t.TempDir()
	copyTree(t, refusedSource, root)
	mode := os.Getenv("OC_UPGRADE_ORACLE")
	if mode == "" && os.Getenv(oracletest.LiveEnv) != "" {
		mode = "live"
	}
	var stored storedRefusal
	if mode == "" {
		b, err := os.ReadFile(refusedStored)
		if err != nil {
			t.Fatalf("stored oracle answers: %v (regenerate with OC_UPGRADE_ORACLE=write)", err)
		}
		if err := json.Unmarshal(b, &stored); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(stored.SourceDigests) != fmt.Sprint(transcriptDigests(t, root)) {
			t.Fatal("testdata/refused/source differs from the state dir the stored answers describe: regenerate with OC_UPGRADE_ORACLE=write")
		}
	}

	// Before: doctor predicts the refusal, naming the file and the line.
	before, err := PredictStateDir(root)
	if err != nil {
		t.Fatal(err)
	}
	refusals := before.Refusals()
	if len(refusals) != 1 || filepath.Base(refusals[0].Path) != refusedFile {
		t.Fatalf("refusals %+v, want exactly %s", refusals, refusedFile)
	}
	c := refusals[0].Result.Conflict
	if c.ID != "m1" || c.Line != 4 || c.FirstLine != 2 {
		t.Errorf("conflict %+v, want id m1 at line 4 (first at line 2)", c)
	}
	if msg := RefusalText(refusals[0]); !strings.Contains(msg, "line 4") || !strings.Contains(msg, "every session") {
		t.Errorf("finding text %q does not name line 4 and every session", msg)
	}
	if s := before.Summary(); !strings.Contains(s, "would be refused") {
		t.Errorf("summary %q does not say the upgrade would be refused", s)
	}
	issues, left := stored.BeforeIssues, stored.BeforeLeft
	if mode != "" {
		issues, left = oracleImportFailure(t, root)
	}
	// the oracle's numbers are the predicted ones
	if len(issues) != 1 {
		t.Fatalf("the oracle's count-mismatch issues %q, want one", issues)
	}
	m := countMismatchRE.FindStringSubmatch(issues[0])
	if m == nil || m[1] != fmt.Sprint(c.Stored) || m[2] != fmt.Sprint(c.Rows) {
		t.Errorf("the oracle: %q; predicted %d of %d events stored", issues[0], c.Stored, c.Rows)
	}
	// nothing archived, for every session (the clean one too)
	if fmt.Sprint(left) != fmt.Sprint([]string{refusedFile, exactRepeat}) {
		t.Errorf("transcripts left in place by the failed import %v, want both", left)
	}
	sourceDigests := transcriptDigests(t, root)

	// The same with the refused transcript not in sessions.json: recovered
	// as agent:main:recovered:<id>, and refused the same way.
	recRoot := t.TempDir()
	copyTree(t, refusedSource, recRoot)
	index := `{"agent:main:other": {"sessionId": "b2b2b2b2-0000-4000-8000-000000000002", "updatedAt": 1777633201000, "sessionFile": "` + exactRepeat + `"}}`
	if err := os.WriteFile(filepath.Join(recRoot, "agents", "main", "sessions", "sessions.json"), []byte(index), 0o644); err != nil {
		t.Fatal(err)
	}
	recPred, err := PredictStateDir(recRoot)
	if err != nil {
		t.Fatal(err)
	}
	recRefusals := recPred.Refusals()
	if len(recRefusals) != 1 || recRefusals[0].SessionKey != "agent:main:recovered:a1a1a1a1-0000-4000-8000-000000000001" {
		t.Fatalf("recovered: refusals %+v, want the recovered session", recRefusals)
	}
	recIssues, recLeft := stored.RecoveredIssues, stored.RecoveredLeft
	if mode != "" {
		recIssues, recLeft = oracleImportFailure(t, recRoot)
	}
	rc := recRefusals[0].Result.Conflict
	if len(recIssues) != 1 || recIssues[0] != fmt.Sprintf("sqlite_transcript_count_mismatch: SQLite transcript has %d events; verified import expects %d.", rc.Stored, rc.Rows) {
		t.Errorf("recovered: the oracle's issues %q, predicted %d of %d events stored", recIssues, rc.Stored, rc.Rows)
	}
	if fmt.Sprint(recLeft) != fmt.Sprint([]string{refusedFile, exactRepeat}) {
		t.Errorf("recovered: transcripts left in place by the failed import %v, want both", recLeft)
	}

	// oc repair: the refused file is fixed, nothing else is touched.
	rep := repairWithHints(t, root)
	if e := rep.FirstError(); e != "" {
		t.Fatalf("repair: %s", e)
	}
	after, err := PredictStateDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if r := after.Refusals(); len(r) != 0 {
		t.Fatalf("after oc repair still refused: %+v", r)
	}
	afterDigests := transcriptDigests(t, root)
	if afterDigests[exactRepeat] != sourceDigests[exactRepeat] || afterDigests[refusedFile] == sourceDigests[refusedFile] {
		t.Errorf("repair changed %v -> %v; want only %s changed", sourceDigests, afterDigests, refusedFile)
	}
	var oAfter oracleImport
	if mode == "" {
		if fmt.Sprint(stored.AfterDigests) != fmt.Sprint(afterDigests) {
			t.Fatal("the repaired state dir differs from the one the stored answers describe: regenerate with OC_UPGRADE_ORACLE=write")
		}
		oAfter = sourcesOf(stored.After)
	} else {
		oAfter = oracleImportDir(t, root)
	}
	compared := compareWithOracle(t, root, after, oAfter)
	oracletest.Compared(t, "refused migration: sessions after oc repair", compared, 2)
	// every entry of the refused transcript is imported: all 5 lines
	for _, s := range oAfter.Sources {
		if filepath.Base(s.File) == refusedFile {
			if s.ImportedEvents != 5 || len(s.ValidLinesNotImported) != 0 {
				t.Errorf("%s after oc repair: %d events imported, lines not imported %v; want all 5", refusedFile, s.ImportedEvents, s.notImported())
			}
		}
	}
	if mode == "write" {
		out := storedRefusal{SourceDigests: sourceDigests, BeforeIssues: issues, BeforeLeft: left,
			After: stripSources(oAfter.Sources), AfterDigests: afterDigests, RecoveredIssues: recIssues, RecoveredLeft: recLeft}
		b, err := json.MarshalIndent(out, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(refusedStored, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// copyTree copies a small fixture tree.
func copyTree(t *testing.T, src, dst string) {
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
