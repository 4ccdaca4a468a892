package upgrade

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/repair"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// The transcripts no sessions.json entry names: OpenClaw 2026.9.6's import
// recovers them as agent:main:recovered:<id>, or archives them without
// importing a line. buildRecoveryStateDir writes one unregistered copy of a
// corpus transcript per way the import refuses one (and a few it accepts,
// and registered controls); its undamaged twin holds the same transcripts as
// 9.6 would recover them. The oracle's answers (the import of the damaged
// state dir, of the same dir after `oc repair`, of the twin, and the context
// message counts of every recovered session) are stored in
// testdata/oracle-import-recovery.json: generated names, counts and line
// numbers only. OC_UPGRADE_ORACLE=write regenerates them, OC_UPGRADE_ORACLE=live
// or OC_LIVE_ORACLE=1 asks the oracle instead (about 2 minutes).

const storedRecovery = "testdata/oracle-import-recovery.json"

// recoveryFile is one file of the recovery state dir and what the test
// expects of it.
type recoveryFile struct {
	Name       string `json:"file"`
	Kind       string `json:"kind"`
	Registered bool   `json:"registered,omitempty"`
	// Lossy: the import of the damaged state dir leaves its messages behind.
	Lossy bool `json:"lossy,omitempty"`
	// Unrepairable: oc repair cannot make the import take it (exit 3).
	Unrepairable bool `json:"unrepairable,omitempty"`
	// Digest of the damaged file (the stored answers are for these bytes).
	Digest string `json:"sha256"`
}

func rid(n int) string { return fmt.Sprintf("c0000000-0000-4000-8000-%012d", n) }

// recoveryCorpus picks three corpus transcripts with a version-3 header and
// messages, split into lines.
func recoveryCorpus(t *testing.T) [][][]byte {
	t.Helper()
	var out [][][]byte
	for _, src := range corpusTranscripts(t) {
		if !strings.HasSuffix(src, ".jsonl") {
			continue
		}
		raw, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		ls := bytes.Split(bytes.TrimRight(raw, "\n"), []byte("\n"))
		if len(ls) < 6 || len(raw) > 400<<10 || !bytes.Contains(ls[0], []byte(`"type":"session","version":3`)) || !bytes.Contains(raw, []byte(`"type":"message"`)) {
			continue
		}
		// only transcripts oc repair leaves alone: what --check flags is then the recovery alone
		if p, err := repair.PlanFile(src, repair.Options{}); err != nil || p.NeedsAttention() {
			continue
		}
		out = append(out, ls)
		if len(out) == 3 {
			return out
		}
	}
	oracletest.Unavailable(t, "corpus: too few transcripts with a version-3 header and messages")
	return nil
}

// buildRecoveryStateDir writes the damaged state dir (or, with twin, every
// transcript the way 9.6 would recover it) to root.
func buildRecoveryStateDir(t *testing.T, corpus [][][]byte, root string, twin bool) []recoveryFile {
	t.Helper()
	dir := filepath.Join(root, "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	a, b, c := corpus[0], corpus[1], corpus[2]
	with := func(ls [][]byte, id string) [][]byte {
		out := make([][]byte, len(ls))
		copy(out, ls)
		out[0] = setHeaderID(ls[0], id)
		return out
	}
	insert := func(ls [][]byte, at int, extra ...string) [][]byte {
		out := append([][]byte(nil), ls[:at]...)
		if !twin {
			for _, e := range extra {
				out = append(out, []byte(e))
			}
		}
		return append(out, ls[at:]...)
	}
	header := func(ls [][]byte, id, damagedID string) [][]byte {
		if twin {
			return with(ls, id)
		}
		return with(ls, damagedID)
	}
	index := map[string]any{}
	var files []recoveryFile
	write := func(name, kind string, ls [][]byte, registered, lossy, unrepairable bool) {
		body := append(bytes.Join(ls, []byte("\n")), '\n')
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(body)
		files = append(files, recoveryFile{Name: name, Kind: kind, Registered: registered, Lossy: lossy && !twin, Unrepairable: unrepairable && !twin, Digest: hex.EncodeToString(sum[:8])})
	}
	register := func(key, id, file string) {
		index["agent:main:"+key] = map[string]any{"sessionId": id, "updatedAt": 1770000000000 + len(index), "sessionFile": file}
	}
	// fixable by oc repair
	write(rid(1)+".jsonl", "non-object-lines", insert(with(a, rid(1)), 3, `[1,2]`, `42`, `"text"`, `true`), false, true, false)
	write(rid(2)+".jsonl", "header-id-mismatch", header(a, rid(2), rid(99)), false, true, false)
	write(rid(3)+".jsonl", "header-id-of-registered-session", header(a, rid(3), rid(10)), false, true, false)
	write(rid(4)+".jsonl", "trajectory-record", insert(with(a, rid(4)), 2, `{"traceSchema":1,"type":"run.start","ts":1}`), false, true, false)
	write(rid(5)+".jsonl", "unrecognized-record", insert(with(a, rid(5)), 3, `{"type":"note","text":"no id, no parent"}`), false, true, false)
	write(rid(6)+".jsonl", "non-object-and-header-id", insert(header(c, rid(6), rid(98)), 4, `[{"a":1}]`, `3.5`), false, true, false)
	// unrepairable: the import still will not take them
	if !twin {
		write(rid(7)+".jsonl", "second-header", append(with(a, rid(7)), with(c, rid(97))...), false, true, true)
		v4 := with(a, rid(8))
		v4[0] = bytes.Replace(v4[0], []byte(`"version":3`), []byte(`"version":4`), 1)
		write(rid(8)+".jsonl", "header-version-4", v4, false, true, true)
		v25 := with(a, rid(9))
		v25[0] = bytes.Replace(v25[0], []byte(`"version":3`), []byte(`"version":2.5`), 1)
		write(rid(9)+".jsonl", "header-version-2.5", v25, false, true, true)
		write("notes.v2.jsonl", "name-without-session-id", with(b, "notes.v2"), false, true, true)
	}
	// taken as they are: no finding, no change
	write(rid(10)+".jsonl", "registered", with(b, rid(10)), true, false, false)
	register("reg", rid(10), rid(10)+".jsonl")
	write(rid(12)+"-topic-42.jsonl", "unregistered-topic-name", with(b, rid(12)), false, false, false)
	var noMsg [][]byte
	for _, l := range with(a, rid(13)) {
		if !bytes.Contains(l, []byte(`"type":"message"`)) {
			noMsg = append(noMsg, l)
		}
	}
	write(rid(13)+".jsonl", "no-message", insert(noMsg, 1, `[1,2]`), false, false, false)
	write(rid(14)+".jsonl", "registered-non-object-lines", insert(with(c, rid(14)), 3, `[1,2]`, `7`), true, false, false)
	register("reg-nonobject", rid(14), rid(14)+".jsonl")
	write(rid(15)+".jsonl", "registered-header-id-mismatch", with(c, rid(96)), true, false, false)
	register("reg-mismatch", rid(15), rid(15)+".jsonl")
	write(rid(16)+".jsonl", "unregistered-clean", with(c, rid(16)), false, false, false)
	ib, _ := json.MarshalIndent(index, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "sessions.json"), ib, 0o644); err != nil {
		t.Fatal(err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files
}

// storedRecoveryAnswers are the oracle's answers for the recovery state dir.
type storedRecoveryAnswers struct {
	Files         []recoveryFile `json:"files"`
	Before        []storedSource `json:"before"`
	After         []storedSource `json:"after"`
	Twin          []storedSource `json:"twin"`
	ContextRepair map[string]int `json:"contextRepaired"`
	ContextTwin   map[string]int `json:"contextTwin"`
	// AfterDigests: the repaired files the "after" answers are for
	AfterDigests map[string]string `json:"afterDigests"`
}

// digests of the transcripts (not oc's files) of a sessions folder.
func transcriptDigests(t *testing.T, root string) map[string]string {
	t.Helper()
	dir := filepath.Join(root, "agents", "main", "sessions")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		if isOcFile(e.Name()) || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		out[e.Name()] = hex.EncodeToString(sum[:8])
	}
	return out
}

func sourcesOf(ss []storedSource) oracleImport {
	var o oracleImport
	for _, s := range ss {
		o.Sources = append(o.Sources, s.source())
	}
	return o
}

// repairWithHints is `oc repair --state-dir root` with a fixed clock (the
// stored answers describe the repaired bytes): it returns the file reports.
func repairWithHints(t *testing.T, root string) *repair.Report {
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
	now := func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }
	n := 0
	newID := func() string { n++; return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }
	return repair.Run(t.Context(), names, repair.RunOptions{Recovery: hints, Jobs: 1,
		ApplyOptions: repair.ApplyOptions{Options: repair.Options{Now: now, NewID: newID}}})
}

// TestRepairRecoversUnregisteredTranscripts is the differential test of
// issue 13 for transcripts not in sessions.json: (a) the files `oc repair
// --check` flags are exactly the files doctor predicts the upgrade would
// leave messages of behind, and it says which of them repair cannot fix; (b)
// after `oc repair`, 9.6's import (stored or live) recovers every fixable
// one whole, with the context of its undamaged twin, and leaves only the
// unrepairable ones behind, as repair reported (exit 3).
func TestRepairRecoversUnregisteredTranscripts(t *testing.T) {
	corpus := recoveryCorpus(t)
	damaged, twin := t.TempDir(), t.TempDir()
	files := buildRecoveryStateDir(t, corpus, damaged, false)
	twinFiles := buildRecoveryStateDir(t, corpus, twin, true)
	mode := os.Getenv("OC_UPGRADE_ORACLE")
	if mode == "" && os.Getenv("OC_LIVE_ORACLE") != "" {
		mode = "live"
	}
	var stored storedRecoveryAnswers
	if mode == "" {
		b, err := os.ReadFile(storedRecovery)
		if err != nil {
			t.Fatalf("stored oracle answers: %v (regenerate with OC_UPGRADE_ORACLE=write)", err)
		}
		if err := json.Unmarshal(b, &stored); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(stored.Files) != fmt.Sprint(files) {
			t.Fatalf("the recovery state dir differs from the one the stored answers describe (corpus or generator changed): regenerate with OC_UPGRADE_ORACLE=write")
		}
	}
	byName := map[string]recoveryFile{}
	for _, f := range files {
		byName[f.Name] = f
	}

	// The prediction for the damaged state dir is the oracle's.
	before, err := PredictStateDir(damaged)
	if err != nil {
		t.Fatal(err)
	}
	var oBefore oracleImport
	if mode == "" {
		oBefore = sourcesOf(stored.Before)
	} else {
		oBefore = oracleImportDir(t, damaged)
	}
	// The oracle's report attributes a file to the session its header id
	// names: a copy whose header carries a registered session's id shows that
	// session's key and its header line as matched. 9.6 still archives the
	// copy unimported: every other line is not imported, as predicted.
	aliased := map[string]bool{}
	for _, f := range files {
		if f.Kind == "header-id-of-registered-session" {
			aliased[f.Name] = true
		}
	}
	cmpReport := &Report{StateDir: before.StateDir}
	for _, s := range before.Sessions {
		if !aliased[filepath.Base(s.Path)] {
			cmpReport.Sessions = append(cmpReport.Sessions, s)
			continue
		}
		for _, o := range oBefore.Sources {
			if filepath.Base(o.File) == filepath.Base(s.Path) {
				if got, want := fmt.Sprint(o.notImported()), fmt.Sprint(s.Result.Unmatched[1:]); got != want {
					t.Errorf("%s: the oracle did not import lines %s, predicted %s (and the header)", filepath.Base(s.Path), got, want)
				}
			}
		}
	}
	var cmpOracle oracleImport
	for _, o := range oBefore.Sources {
		if !aliased[filepath.Base(o.File)] {
			cmpOracle.Sources = append(cmpOracle.Sources, o)
		}
	}
	if len(aliased) != 1 {
		t.Errorf("%d aliased files, want 1", len(aliased))
	}
	oracletest.Compared(t, "9.6 import prediction vs the oracle's import of unregistered transcripts (files not aliased)", compareWithOracle(t, damaged, cmpReport, cmpOracle), len(files)-len(aliased))

	// (a) repair --check flags exactly the predicted losses.
	var paths []string
	for _, s := range before.Sessions {
		paths = append(paths, s.Path)
	}
	hints, err := RecoveryHints(paths)
	if err != nil {
		t.Fatal(err)
	}
	check := repair.Run(t.Context(), paths, repair.RunOptions{ReadOnly: true, Recovery: hints})
	flagged := map[string]string{}
	for _, r := range check.Files {
		if r.Error != "" {
			t.Fatalf("check: %s", r.Error)
		}
		if r.Plan.NeedsAttention() {
			flagged[filepath.Base(r.Path)] = r.Unrepairable
		}
	}
	// want: the files built lossy (each file's Lossy, set by the generator),
	// and every built file among the predicted sessions.
	lossy, wantLossy, predicted := 0, 0, map[string]bool{}
	for _, f := range files {
		if f.Lossy {
			wantLossy++
		}
	}
	for _, s := range before.Sessions {
		predicted[filepath.Base(s.Path)] = true
		name := filepath.Base(s.Path)
		f := byName[name]
		u, isFlagged := flagged[name]
		if s.Lost() != isFlagged {
			t.Errorf("%s (%s): predicted loss %v, repair --check flags it %v", name, f.Kind, s.Lost(), isFlagged)
		}
		if s.Lost() != f.Lossy {
			t.Errorf("%s (%s): predicted loss %v, want %v (%s)", name, f.Kind, s.Lost(), f.Lossy, s.Reason)
		}
		if (u != "") != f.Unrepairable {
			t.Errorf("%s (%s): unrepairable %q, want unrepairable %v", name, f.Kind, u, f.Unrepairable)
		}
		if s.Lost() {
			lossy++
		}
	}
	for _, f := range files {
		if !predicted[f.Name] {
			t.Errorf("%s (%s): not among the predicted sessions", f.Name, f.Kind)
		}
	}
	if lossy != wantLossy {
		t.Fatalf("%d files with predicted losses, the state dir was built with %d", lossy, wantLossy)
	}

	// (b) after repair: fixable files recovered whole, unrepairable ones reported.
	rep := repairWithHints(t, damaged)
	for _, r := range rep.Files {
		f, ok := byName[filepath.Base(r.Path)]
		if !ok {
			continue
		}
		if r.Error != "" || (r.Unrepairable != "") != f.Unrepairable {
			t.Errorf("%s (%s): repair error %q, unrepairable %q", f.Name, f.Kind, r.Error, r.Unrepairable)
		}
	}
	afterDigests := transcriptDigests(t, damaged)
	if mode == "" && fmt.Sprint(afterDigests) != fmt.Sprint(stored.AfterDigests) {
		t.Fatalf("oc repair now writes other bytes than the stored answers describe: regenerate with OC_UPGRADE_ORACLE=write")
	}
	after, err := PredictStateDir(damaged)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range after.Sessions {
		if f, ok := byName[filepath.Base(s.Path)]; ok && s.Lost() != f.Unrepairable {
			t.Errorf("%s (%s): after repair predicted loss %v (%s)", f.Name, f.Kind, s.Lost(), s.Reason)
		}
	}
	var oAfter, oTwin oracleImport
	var ctxRepaired, ctxTwin map[string]int
	var keysRepaired, keysTwin []string
	for _, f := range twinFiles {
		if !f.Registered && f.Kind != "no-message" {
			keysTwin = append(keysTwin, "agent:main:recovered:"+FileSessionID(f.Name))
		}
	}
	if mode == "" {
		oAfter, oTwin = sourcesOf(stored.After), sourcesOf(stored.Twin)
		ctxRepaired, ctxTwin = stored.ContextRepair, stored.ContextTwin
	} else {
		oAfter, oTwin = oracleImportDir(t, damaged), oracleImportDir(t, twin)
	}
	// want: every file oc repair wrote beside the transcripts (on disk), each
	// in the oracle's report, left in place.
	wantOcFiles := 0
	ents, err := os.ReadDir(filepath.Join(damaged, "agents", "main", "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if isOcFile(e.Name()) {
			wantOcFiles++
		}
	}
	ocFiles := 0
	for _, s := range oAfter.Sources {
		name := filepath.Base(s.File)
		if isOcFile(name) {
			if !s.LeftInPlace || s.ImportedAs != nil {
				t.Errorf("%s: oc's file was imported or archived by 9.6 (%s)", name, s.Status)
				continue
			}
			ocFiles++
			continue
		}
		f, ok := byName[name]
		if !ok {
			t.Errorf("%s: unknown file in the oracle's import", name)
			continue
		}
		recovered := s.ImportedAs != nil && len(s.ImportedAs.SessionKeys) > 0 && strings.Contains(s.ImportedAs.SessionKeys[0], ":recovered:")
		switch {
		case f.Unrepairable:
			if len(s.notImported()) == 0 {
				t.Errorf("%s (%s): reported unrepairable, yet 9.6 imports all of it", name, f.Kind)
			}
		case f.Registered:
		case f.Kind == "no-message":
			if recovered {
				t.Errorf("%s (%s): 9.6 recovered a transcript without messages", name, f.Kind)
			}
		default:
			if !recovered || len(s.notImported()) > 0 {
				t.Errorf("%s (%s): after repair 9.6 %s, %d valid lines not imported", name, f.Kind, s.Status, len(s.notImported()))
			}
			if recovered {
				keysRepaired = append(keysRepaired, s.ImportedAs.SessionKeys[0])
			}
		}
	}
	if mode != "" {
		ctxRepaired = contextLengths(t, oAfter.out, keysRepaired)
		ctxTwin = contextLengths(t, oTwin.out, keysTwin)
	}
	// want: every built file 9.6 must recover after repair (unregistered,
	// repairable, with messages); one not recovered fails above.
	wantRecovered := 0
	for _, f := range files {
		if !f.Registered && !f.Unrepairable && f.Kind != "no-message" {
			wantRecovered++
		}
	}
	compared := 0
	for _, k := range keysRepaired {
		w, ok := ctxTwin[k]
		if !ok {
			t.Errorf("%s: not recovered in the twin", k)
			continue
		}
		if got := ctxRepaired[k]; got != w || w == 0 {
			t.Errorf("%s: the repaired transcript's context has %d messages, its undamaged twin's %d", k, got, w)
			continue
		}
		compared++
	}
	oracletest.Compared(t, "9.6 context of each transcript recovered after oc repair vs its undamaged twin's (every repairable unregistered file)", compared, wantRecovered)
	if ocFiles != wantOcFiles {
		t.Errorf("%d of oc's %d files left in place by 9.6's import", ocFiles, wantOcFiles)
	}
	t.Logf("%d files, %d predicted lossy = flagged by repair --check; after repair %d recovered sessions equal their twins; %d oc files left in place", len(files), lossy, compared, ocFiles)

	if mode == "write" {
		out := storedRecoveryAnswers{Files: files, Before: stripSources(oBefore.Sources), After: stripSources(oAfter.Sources),
			Twin: stripSources(oTwin.Sources), ContextRepair: ctxRepaired, ContextTwin: ctxTwin, AfterDigests: afterDigests}
		b, err := json.MarshalIndent(out, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(storedRecovery, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
