package upgrade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

const storedSessionFiles = "testdata/oracle-import-sessionfiles.json"

// sessionFileTranscript is a small generated transcript of n messages whose
// text names its file, so the imported rows show which file they came from.
func sessionFileTranscript(id, name string, n int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":%q,"timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}`+"\n", id)
	parent := "null"
	for i := 1; i <= n; i++ {
		role, content := "user", fmt.Sprintf("%q", name+" "+fmt.Sprint(i))
		if i%2 == 0 {
			role, content = "assistant", fmt.Sprintf(`[{"type":"text","text":%q}],"api":"openai-responses","provider":"openai","model":"gpt-5","stopReason":"stop"`, name)
		}
		fmt.Fprintf(&b, `{"type":"message","id":"%s-%d","parentId":%s,"timestamp":"2026-01-01T00:00:0%d.000Z","message":{"role":%q,"content":%s,"timestamp":%d}}`+"\n", name, i, parent, i, role, content, i)
		parent = fmt.Sprintf(`"%s-%d"`, name, i)
	}
	return b.Bytes()
}

// buildSessionFileStateDir: registered sessions whose sessionFile names a
// Telegram topic transcript `<id>-topic-<n>.jsonl`. In the "migrated" state
// dir the sessionFile of agent main is relative, so doctor --fix's legacy
// state migration runs and drops every sessionFile of that store (see
// sessionfile.go); agent ops has the same files and is not migrated. In the
// "kept" state dir agent main's sessionFile is absolute and nothing is
// migrated. In the "legacy-keys" state dir the sessionFiles are absolute
// and each store also holds keys doctor --fix canonicalizes, which rewrites
// (and drops the sessionFiles of) every agent's store. Each store holds a
// session with both `<id>.jsonl` and its topic file, and one with only the
// topic file.
func buildSessionFileStateDir(t *testing.T, root, variant string) []damagedFile {
	t.Helper()
	var files []damagedFile
	for ai, agent := range []string{"main", "ops"} {
		dir := filepath.Join(root, "agents", agent, "sessions")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		both := fmt.Sprintf("e0000000-0000-4000-8000-%012d", 10*ai+1)
		only := fmt.Sprintf("e0000000-0000-4000-8000-%012d", 10*ai+2)
		write := func(name, kind string, b []byte, registered bool) {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, damagedFile{Name: agent + "/" + name, Kind: kind, Registered: registered})
		}
		write(both+"-topic-7.jsonl", "topic", sessionFileTranscript(both, "topic", 4), true)
		write(both+".jsonl", "plain-unregistered", sessionFileTranscript(both, "plain", 2), false)
		write(only+"-topic-3.jsonl", "topic-only", sessionFileTranscript(only, "only", 4), true)
		sessionFile := func(name string) string {
			if variant != "migrated" {
				return filepath.Join(dir, name)
			}
			return name
		}
		index := map[string]any{
			"agent:" + agent + ":telegram:group:-100:topic:7": map[string]any{"sessionId": both, "updatedAt": 1767225600000, "sessionFile": sessionFile(both + "-topic-7.jsonl")},
			"agent:" + agent + ":telegram:group:-100:topic:3": map[string]any{"sessionId": only, "updatedAt": 1767225600001, "sessionFile": sessionFile(only + "-topic-3.jsonl")},
		}
		if variant == "legacy-keys" {
			// keys migrateOrphanedSessionKeys rewrites, in every agent's store
			direct := fmt.Sprintf("e0000000-0000-4000-8000-%012d", 10*ai+3)
			channel := fmt.Sprintf("e0000000-0000-4000-8000-%012d", 10*ai+4)
			write(direct+".jsonl", "legacy-key", sessionFileTranscript(direct, "direct", 2), true)
			write(channel+".jsonl", "legacy-key", sessionFileTranscript(channel, "channel", 2), true)
			index["direct-"+agent] = map[string]any{"sessionId": direct, "updatedAt": 1767225600002}
			index["agent:"+agent+":Discord:Channel:ABC"] = map[string]any{"sessionId": channel, "updatedAt": 1767225600003}
		}
		ib, _ := json.MarshalIndent(index, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, "sessions.json"), ib, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// TestPredictionMatchesOracleOnSessionFiles: which file 9.6's doctor --fix
// imports for a registered session whose sessionFile is not
// `<sessionId>.jsonl`, with and without its legacy state migration. The
// oracle's answers are stored (generated names and counts only);
// OC_UPGRADE_ORACLE=write regenerates them, =live asks the oracle.
func TestPredictionMatchesOracleOnSessionFiles(t *testing.T) {
	variants := []string{"migrated", "kept", "legacy-keys"}
	stored := readStoredSeeds(t, storedSessionFiles, len(variants))
	var write []storedSeed
	compared := 0
	imported := map[string]string{} // variant/agent -> which file of the "both" session was imported
	for vi, variant := range variants {
		root := t.TempDir()
		files := buildSessionFileStateDir(t, root, variant)
		var oracle oracleImport
		if stored != nil {
			if fmt.Sprint(stored[vi].Files) != fmt.Sprint(files) {
				t.Fatalf("the %s state dir differs from the stored one: regenerate with OC_UPGRADE_ORACLE=write", variant)
			}
			for _, s := range stored[vi].Sources {
				oracle.Sources = append(oracle.Sources, s.source())
			}
		} else {
			oracle = oracleImportDir(t, root)
			write = append(write, storedSeed{Seed: int64(vi), Files: files, Sources: stripSources(oracle.Sources)})
		}
		rep, err := PredictStateDir(root)
		if err != nil {
			t.Fatal(err)
		}
		compared += compareSessionFiles(t, root, rep, oracle)
		for _, s := range rep.Sessions {
			if s.SessionKey != "" && strings.HasSuffix(s.SessionKey, ":topic:7") {
				imported[variant+"/"+s.Agent] = filepath.Base(s.Path)
			}
		}
	}
	writeStoredSeeds(t, storedSessionFiles, write)
	oracletest.Compared(t, "upgrade: sessionFile of a registered session (which file 9.6 imports)", compared, 22)
	// the behaviour itself, beside the oracle's numbers: only the migrated
	// store of the default agent loses its sessionFile
	for k, want := range map[string]string{"migrated/main": ".jsonl", "migrated/ops": "-topic-7.jsonl", "kept/main": "-topic-7.jsonl", "kept/ops": "-topic-7.jsonl",
		"legacy-keys/main": ".jsonl", "legacy-keys/ops": ".jsonl"} {
		got := imported[k]
		if got == "" || !strings.HasSuffix(got, want) || want == ".jsonl" && strings.Contains(got, "-topic-") {
			t.Errorf("%s: predicted import of %q for the session with two files, want the file ending in %s", k, got, want)
		}
	}
}

// compareSessionFiles compares per file the lines the oracle found in the
// database. A file predicted imported must have every line there and the
// predicted event count; a file predicted kept out must have none of its
// message lines there (its header line is the imported twin's, so the
// oracle counts it as found).
func compareSessionFiles(t *testing.T, root string, rep *Report, oracle oracleImport) int {
	t.Helper()
	bySrc := map[string]oracleSource{}
	for _, s := range oracle.Sources {
		bySrc[s.File] = s
	}
	n := 0
	for _, s := range rep.Sessions {
		rel, _ := filepath.Rel(root, s.Path)
		o, ok := bySrc[filepath.ToSlash(rel)]
		if !ok {
			t.Errorf("%s: not in the oracle's sources", rel)
			continue
		}
		n++
		notImported := fmt.Sprint(o.notImported())
		if s.SessionKey != "" && s.Outcome != Deferred {
			if notImported != "[]" || s.Result.Keys != o.ImportedEvents {
				t.Errorf("%s: predicted %d events imported whole, the oracle %d with lines %s not imported", rel, s.Result.Keys, o.ImportedEvents, notImported)
			}
			if o.ImportedAs == nil || !contains(o.ImportedAs.SessionKeys, s.SessionKey) {
				t.Errorf("%s: predicted key %s, the oracle %+v", rel, s.SessionKey, o.ImportedAs)
			}
			continue
		}
		var messages []int64
		for l := int64(2); l <= int64(len(s.Result.LeftBehind)); l++ {
			messages = append(messages, l)
		}
		if len(messages) == 0 || notImported != fmt.Sprint(messages) {
			t.Errorf("%s: predicted kept out (%s: %s), the oracle did not import lines %s", rel, s.Outcome, s.Reason, notImported)
		}
	}
	return n
}

const storedPartialRepeat = "testdata/oracle-import-partial-repeat.json"

// TestPartialRepeatIsNotRefused: an entry id repeated with other content
// inside the readable prefix of a damaged transcript does not make 9.6
// refuse the migration (countTranscriptEventsForPath stops at the damaged
// line, so the count check never runs): the prefix is imported without the
// repeat. Two damage kinds after the repeat: NUL bytes and a cut line. The
// differential fuzzer once took such a file
// (seed 2, fz-0011) for a refusal because it matched the failure report's
// numbers to the wrong file; this pins what the oracle does with it alone.
func TestPartialRepeatIsNotRefused(t *testing.T) {
	id := "d0000000-0000-4000-8000-000000000001"
	lines := bytes.Split(bytes.TrimRight(sessionFileTranscript(id, "rep", 4), "\n"), []byte("\n"))
	repeat := bytes.Replace(lines[3], []byte(`"id":"rep-3"`), []byte(`"id":"rep-1"`), 1) // line 4 gives rep-1's id to another entry
	variants := map[string][][]byte{
		"nul-after": {lines[0], lines[1], lines[2], repeat, []byte("\x00\x00\x00\x00"), lines[4]},
		"cut-after": {lines[0], lines[1], lines[2], repeat, lines[4][:40], lines[4]},
	}
	// (a repeat after the damaged line is never read; the oracle's report
	// matches lines by id, so it would count that line as imported)
	names := []string{"cut-after", "nul-after"}
	stored := readStoredSeeds(t, storedPartialRepeat, len(names))
	var write []storedSeed
	compared := 0
	for vi, name := range names {
		root := t.TempDir()
		dir := filepath.Join(root, "agents", "main", "sessions")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		text := append(bytes.Join(variants[name], []byte("\n")), '\n')
		if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), text, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "sessions.json"), []byte(`{"agent:main:main":{"sessionId":"`+id+`","updatedAt":1767225600000}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		files := []damagedFile{{Name: id + ".jsonl", Kind: name, Registered: true}}
		var oracle oracleImport
		if stored != nil {
			if fmt.Sprint(stored[vi].Files) != fmt.Sprint(files) {
				t.Fatalf("the %s state dir differs from the stored one: regenerate with OC_UPGRADE_ORACLE=write", name)
			}
			for _, s := range stored[vi].Sources {
				oracle.Sources = append(oracle.Sources, s.source())
			}
		} else {
			// oracleImportDir fails the test when 9.6 refuses the migration
			oracle = oracleImportDir(t, root)
			write = append(write, storedSeed{Seed: int64(vi), Files: files, Sources: stripSources(oracle.Sources)})
		}
		rep, err := PredictStateDir(root)
		if err != nil {
			t.Fatal(err)
		}
		if r := rep.Refusals(); len(r) != 0 {
			t.Errorf("%s: predicted a refused migration over %s; 9.6 imports the readable prefix", name, r[0].Path)
		}
		if rep.Sessions[0].Outcome != Partial {
			t.Errorf("%s: predicted %s, want partial", name, rep.Sessions[0].Outcome)
		}
		compared += compareWithOracle(t, root, rep, oracle)
	}
	writeStoredSeeds(t, storedPartialRepeat, write)
	oracletest.Compared(t, "upgrade: a repeated id inside a damaged transcript's readable prefix (not refused)", compared, len(names))
}

const storedRespelled = "testdata/oracle-import-respelled-repeat.json"

// TestRespelledRepeatIsExact: 9.6 drops a repeated entry when
// JSON.stringify of the two parsed entries is equal, however they are
// spelled (white space, escapes): such a transcript is imported whole, not
// refused. The same id with the keys in another order is a different entry:
// refused. The oracle's answers are stored; a refused variant has none.
func TestRespelledRepeatIsExact(t *testing.T) {
	id := "d0000000-0000-4000-8000-000000000002"
	lines := bytes.Split(bytes.TrimRight(sessionFileTranscript(id, "sp", 3), "\n"), []byte("\n"))
	respell := func(b []byte, old, new string) []byte { return bytes.Replace(b, []byte(old), []byte(new), 1) }
	variants := map[string][]byte{
		"spaces":    respell(lines[1], `"type":"message",`, `"type" : "message" ,  `),
		"escapes":   respell(lines[1], `"role":"user"`, `"role":"\u0075ser"`),
		"key-order": respell(lines[1], `"type":"message","id":"sp-1",`, `"id":"sp-1","type":"message",`),
	}
	names := []string{"escapes", "key-order", "spaces"}
	refused := map[string]bool{"key-order": true}
	stored := readStoredSeeds(t, storedRespelled, len(names))
	var write []storedSeed
	compared := 0
	for vi, name := range names {
		root := t.TempDir()
		dir := filepath.Join(root, "agents", "main", "sessions")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		text := append(bytes.Join([][]byte{lines[0], lines[1], lines[2], variants[name], lines[3]}, []byte("\n")), '\n')
		if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), text, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "sessions.json"), []byte(`{"agent:main:main":{"sessionId":"`+id+`","updatedAt":1767225600000}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		files := []damagedFile{{Name: id + ".jsonl", Kind: name, Registered: true}}
		rep, err := PredictStateDir(root)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(rep.Refusals()) > 0; got != refused[name] {
			t.Errorf("%s: predicted refused=%v, want %v", name, got, refused[name])
		}
		var oracle oracleImport
		switch {
		case stored != nil:
			if fmt.Sprint(stored[vi].Files) != fmt.Sprint(files) {
				t.Fatalf("the %s state dir differs from the stored one: regenerate with OC_UPGRADE_ORACLE=write", name)
			}
			for _, s := range stored[vi].Sources {
				oracle.Sources = append(oracle.Sources, s.source())
			}
		case refused[name]:
			issues, _ := oracleImportFailure(t, root) // fails the test when 9.6 imports it
			if len(issues) != 1 {
				t.Errorf("%s: the oracle's count mismatches %q, want one", name, issues)
			}
		default:
			oracle = oracleImportDir(t, root)
		}
		if stored == nil {
			write = append(write, storedSeed{Seed: int64(vi), Files: files, Sources: stripSources(oracle.Sources)})
		}
		if refused[name] {
			if len(oracle.Sources) != 0 {
				t.Errorf("%s: stored answers for a refused migration", name)
			}
			compared++ // the refusal itself was compared (live), or stored as no import
			continue
		}
		if rep.Sessions[0].Outcome != Whole {
			t.Errorf("%s: predicted %s, want imported whole", name, rep.Sessions[0].Outcome)
		}
		compared += compareWithOracle(t, root, rep, oracle)
	}
	writeStoredSeeds(t, storedRespelled, write)
	oracletest.Compared(t, "upgrade: an entry repeated with other spelling (exact) or key order (refused)", compared, len(names))
}

// readStoredSeeds reads the stored oracle answers for n state dirs, or
// returns nil when OC_UPGRADE_ORACLE asks the oracle instead.
func readStoredSeeds(t *testing.T, path string, n int) []storedSeed {
	t.Helper()
	if os.Getenv("OC_UPGRADE_ORACLE") != "" {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("stored oracle answers: %v (regenerate with OC_UPGRADE_ORACLE=write)", err)
	}
	var stored []storedSeed
	if err := json.Unmarshal(b, &stored); err != nil || len(stored) != n {
		t.Fatalf("%s: %d state dirs, %v", path, len(stored), err)
	}
	return stored
}

// writeStoredSeeds stores the oracle's answers when OC_UPGRADE_ORACLE=write.
func writeStoredSeeds(t *testing.T, path string, seeds []storedSeed) {
	t.Helper()
	if len(seeds) == 0 || os.Getenv("OC_UPGRADE_ORACLE") != "write" {
		return
	}
	var buf bytes.Buffer
	if err := writeStored(&buf, seeds); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
