package upgrade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

const storedSiblings = "testdata/oracle-import-siblings.json"

// buildSiblingsStateDir: two registered transcripts and an unregistered one
// (generated ids), with every kind of sibling file a sessions folder holds:
// OpenClaw's .reset./.deleted./.bak archives, a compaction checkpoint, a
// trajectory, oc's backup and its quarantine files (new and old name).
func buildSiblingsStateDir(t *testing.T, corpus []string, root string) []damagedFile {
	t.Helper()
	dir := filepath.Join(root, "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var files []damagedFile
	write := func(name, kind string, b []byte, registered bool) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, damagedFile{Name: name, Kind: kind, Registered: registered})
	}
	index := map[string]any{}
	var live [][]byte
	for i, src := range corpus {
		raw, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		ls := bytes.Split(bytes.TrimRight(raw, "\n"), []byte("\n"))
		if len(ls) < 4 || !bytes.Contains(ls[0], []byte(`"type":"session"`)) || !bytes.Contains(raw, []byte(`"type":"message"`)) {
			continue
		}
		id := fmt.Sprintf("f0000000-0000-4000-8000-%012d", i)
		ls[0] = setHeaderID(ls[0], id)
		live = append(live, append(bytes.Join(ls, []byte("\n")), '\n'))
		if len(live) == 3 {
			break
		}
	}
	if len(live) < 3 {
		oracletest.Unavailable(t, "corpus: too few transcripts with a header and messages")
	}
	ids := []string{"f0000000-0000-4000-8000-00000000000a", "f0000000-0000-4000-8000-00000000000b", "f0000000-0000-4000-8000-00000000000c"}
	for i := range live {
		var h map[string]any
		_ = json.Unmarshal(bytes.SplitN(live[i], []byte("\n"), 2)[0], &h)
		old, _ := h["id"].(string)
		live[i] = bytes.Replace(live[i], []byte(`"id":"`+old+`"`), []byte(`"id":"`+ids[i]+`"`), 1)
	}
	a, b, c := ids[0], ids[1], ids[2]
	write(a+".jsonl", "live", live[0], true)
	write(b+".jsonl", "live", live[1], true)
	write(c+".jsonl", "unregistered", live[2], false)
	index["agent:main:sib-a"] = map[string]any{"sessionId": a, "updatedAt": 1770000000001, "sessionFile": a + ".jsonl"}
	index["agent:main:sib-b"] = map[string]any{"sessionId": b, "updatedAt": 1770000000002, "sessionFile": b + ".jsonl"}
	write(a+".jsonl.reset.2026-03-26T00-38-22.322Z", "reset", live[0], false)
	write(a+".jsonl.deleted.2026-03-27T00-38-22.322Z", "deleted", live[0], false)
	write(a+".jsonl.bak-4242-1770000000000", "openclaw-repair-backup", live[0], false)
	write(a+".checkpoint.0e7f8a9b-1c2d-4e3f-8a4b-5c6d7e8f9a0b.jsonl", "checkpoint", live[0], false)
	write(a+".trajectory.jsonl", "trajectory", []byte(`{"traceSchema":1,"type":"run.start","ts":1}`+"\n"), false)
	write(b+".jsonl.bak-oc-20261130T101500Z", "oc-backup", live[1], false)
	q := []byte(`{"line":5,"rule":"malformed-line","reason":"cut off","text":"{\"type\":\"mess"}` + "\n")
	write(b+".jsonl.rejected-20261130T101500Z", "oc-quarantine", q, false)
	write(b+".jsonl.rejected-20261129T101500Z.jsonl", "oc-quarantine-old-name", q, false)
	ib, _ := json.MarshalIndent(index, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "sessions.json"), ib, 0o644); err != nil {
		t.Fatal(err)
	}
	return files
}

// TestPredictionMatchesOracleOnSiblings: archives and oc's files are left in
// place, checkpoints and trajectories archived without import, the old-name
// quarantine file archived (not imported), an unregistered clean transcript
// recovered; the oracle's answers are stored (generated names and counts).
func TestPredictionMatchesOracleOnSiblings(t *testing.T) {
	corpus := corpusTranscripts(t)
	root := t.TempDir()
	files := buildSiblingsStateDir(t, corpus, root)
	var oracle oracleImport
	switch os.Getenv("OC_UPGRADE_ORACLE") {
	case "":
		b, err := os.ReadFile(storedSiblings)
		if err != nil {
			t.Fatalf("stored oracle answers: %v (regenerate with OC_UPGRADE_ORACLE=write)", err)
		}
		var stored []storedSeed
		if err := json.Unmarshal(b, &stored); err != nil || len(stored) != 1 {
			t.Fatalf("%s: %v", storedSiblings, err)
		}
		if fmt.Sprint(stored[0].Files) != fmt.Sprint(files) {
			t.Fatalf("the siblings state dir differs from the stored one: regenerate with OC_UPGRADE_ORACLE=write")
		}
		for _, s := range stored[0].Sources {
			oracle.Sources = append(oracle.Sources, s.source())
		}
	default:
		oracle = oracleImportDir(t, root)
		if os.Getenv("OC_UPGRADE_ORACLE") == "write" {
			var buf bytes.Buffer
			if err := writeStored(&buf, []storedSeed{{Files: files, Sources: stripSources(oracle.Sources)}}); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(storedSiblings, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	rep, err := PredictStateDir(root)
	if err != nil {
		t.Fatal(err)
	}
	oracletest.Compared(t, "9.6 import prediction vs the oracle's stored import of sibling transcripts", compareWithOracle(t, root, rep, oracle), 3)
	outcomes := map[Outcome]int{}
	for _, s := range rep.Sessions {
		outcomes[s.Outcome]++
	}
	if outcomes[LeftInPlace] != 5 || outcomes[ArchivedOnly] != 3 || outcomes[Whole] != 3 {
		t.Fatalf("outcomes %v, want 5 left in place, 3 archived only, 3 imported whole", outcomes)
	}
}
