package cmd

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store"
)

// hashFiles hashes every database file (main, -wal, -journal) under dir.
// -shm is shared memory that every reader updates by design, not database
// content; that it is never created by oc is checked separately.
func hashFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || strings.HasSuffix(p, "-shm") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return err
		}
		out[p] = hex.EncodeToString(h.Sum(nil))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameHashes(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	if len(before) != len(after) {
		t.Errorf("%s: files before %v, after %v", what, keys(before), keys(after))
	}
	for p, h := range before {
		if after[p] != h {
			t.Errorf("%s: %s changed", what, p)
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, filepath.Base(k))
	}
	return out
}

// `oc inspect KEY --state-dir S --json` gives the oracle's context size on
// every session 2026.9.6 wrote, and leaves the databases byte-identical.
func TestInspectSQLiteSessionsMatchOracleContext(t *testing.T) {
	compared := 0
	check := func(state, agent, key string, want int) {
		code, out, stderr := runOC(t, false, nil, "inspect", key, "--state-dir", state, "--json")
		if code != 0 {
			t.Errorf("%s: exit %d: %s", key, code, stderr)
			return
		}
		var doc struct {
			Key    string `json:"key"`
			Agent  string `json:"agent"`
			Active struct {
				Messages int `json:"messages"`
			} `json:"activeBranch"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if doc.Key != key || doc.Agent != agent {
			t.Errorf("%s: resolved to %s (agent %s)", key, doc.Key, doc.Agent)
		}
		if doc.Active.Messages != want {
			t.Errorf("%s: activeBranch.messages %d, oracle 2026.9.6 context %d", key, doc.Active.Messages, want)
		}
		compared++
	}
	// Every session of the databases 2026.9.6 wrote (read with SQL of the
	// test's own) is compared with its stored answer; a session without one
	// fails, and so does an answer without a session.
	want := 0
	each := func(name, state string, answers map[string]oracletest.ContextAnswer96, id func(oracletest.SessionRow96) string) {
		rows := oracletest.Sessions96(t, state)
		want += len(rows)
		for _, s := range rows {
			ans, ok := answers[id(s)]
			if !ok {
				t.Errorf("%s %s: no stored 2026.9.6 context answer", name, id(s))
				continue
			}
			check(state, s.Agent, s.Key, len(ans.Messages))
		}
		if len(answers) != len(rows) {
			t.Errorf("%s: %d stored context answers for %d sessions", name, len(answers), len(rows))
		}
	}
	for _, fx := range oracletest.Fixtures96() {
		state := oracletest.Fixture96State(t, fx)
		before := hashFiles(t, state)
		each(fx, state, oracletest.FixtureContexts96(t, fx), func(s oracletest.SessionRow96) string { return s.Agent + "/" + s.Key })
		code, _, stderr := runOC(t, false, nil, "inspect", "--state-dir", state, "--json")
		if code != 0 {
			t.Errorf("%s: inspect of the state dir: exit %d: %s", fx, code, stderr)
		}
		sameHashes(t, fx, before, hashFiles(t, state))
	}
	state, _ := oracletest.Corpus96State(t)
	each("corpus", state, oracletest.CorpusContexts96(t), func(s oracletest.SessionRow96) string { return s.Key })
	oracletest.Compared(t, "oc inspect --json activeBranch.messages equal to the 2026.9.6 context (every fixture and corpus session)", compared, want)
}

func writer(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(100)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func execSQL(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// While another connection holds BEGIN IMMEDIATE and has written, inspect
// and export read a consistent snapshot and change no database byte.
func TestSQLiteReadsLeaveDatabasesIdenticalUnderAWriter(t *testing.T) {
	state := oracletest.Fixture96State(t, "example-state")
	dbPath := filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")
	w := writer(t, dbPath)
	execSQL(t, w, "PRAGMA journal_mode=wal")
	execSQL(t, w, "CREATE TABLE IF NOT EXISTS oc_probe(x)")
	conn, err := w.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), "INSERT INTO oc_probe VALUES (randomblob(100000))"); err != nil {
		t.Fatal(err)
	}
	before := hashFiles(t, state)
	for _, args := range [][]string{
		{"inspect", "--state-dir", state, "--json"},
		{"inspect", "agent:main:main", "--state-dir", state, "--json"},
		{"export", "agent:main:main", "--state-dir", state},
	} {
		code, out, stderr := runOC(t, false, nil, args...)
		if code != 0 || out == "" {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	sameHashes(t, "under BEGIN IMMEDIATE", before, hashFiles(t, state))
	if _, err := conn.ExecContext(t.Context(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
}

// A -wal without -shm: opening in place would create -shm, so oc reads a
// private copy, says so, and leaves no new file behind.
func TestSQLiteNeverCreatesSidecars(t *testing.T) {
	src := oracletest.Fixture96State(t, "example-state")
	dbPath := filepath.Join(src, "agents", "main", "agent", "openclaw-agent.sqlite")
	w := writer(t, dbPath)
	execSQL(t, w, "PRAGMA journal_mode=wal")
	execSQL(t, w, "PRAGMA wal_autocheckpoint=0")
	execSQL(t, w, "CREATE TABLE oc_probe(x)")
	execSQL(t, w, "INSERT INTO oc_probe VALUES (1)")
	state := t.TempDir()
	dst := filepath.Join(state, "agents", "main", "agent")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(dbPath + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if suffix == "-wal" && len(data) == 0 {
			t.Fatal("the writer left an empty -wal; the test needs one with frames")
		}
		if err := os.WriteFile(filepath.Join(dst, "openclaw-agent.sqlite"+suffix), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := hashFiles(t, state)
	code, out, stderr := runOC(t, false, nil, "inspect", "--state-dir", state)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "private copy") {
		t.Errorf("inspect does not say it read a private copy:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dst, "openclaw-agent.sqlite-shm")); err == nil {
		t.Error("inspect created -shm")
	}
	sameHashes(t, "wal without shm", before, hashFiles(t, state))
}

// Databases oc cannot read: one line naming file and cause, exit 3.
func TestSQLiteRefusals(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, db string)
		want   string
	}{
		{"newer schema", func(t *testing.T, db string) {
			w := writer(t, db)
			execSQL(t, w, "PRAGMA user_version=24")
			execSQL(t, w, "UPDATE schema_meta SET schema_version=24")
			w.Close()
		}, "schema version 24 is newer"},
		{"not sqlite", func(t *testing.T, db string) {
			if err := os.WriteFile(db, []byte(strings.Repeat("not a database\n", 100)), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "not an SQLite database"},
		{"truncated", func(t *testing.T, db string) {
			if err := os.Truncate(db, 8192); err != nil {
				t.Fatal(err)
			}
		}, "truncated"},
		{"locked", func(t *testing.T, db string) {
			w := writer(t, db)
			execSQL(t, w, "PRAGMA journal_mode=delete")
			conn, err := w.Conn(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close() })
			if _, err := conn.ExecContext(t.Context(), "BEGIN EXCLUSIVE"); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(t.Context(), "DELETE FROM cache_entries"); err != nil {
				t.Fatal(err)
			}
		}, "locked"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			state := oracletest.Fixture96State(t, "example-state")
			db := filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")
			c.damage(t, db)
			before := hashFiles(t, state)
			for _, args := range [][]string{
				{"inspect", "agent:main:main", "--state-dir", state, "--busy-timeout", "200ms"},
				{"export", "agent:main:main", "--state-dir", state, "--busy-timeout", "200ms"},
			} {
				code, _, stderr := runOC(t, false, nil, args...)
				if code != 3 {
					t.Errorf("%v: exit %d, want 3 (stderr %q)", args, code, stderr)
				}
				oneLineError(t, stderr)
				if !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "openclaw-agent.sqlite") {
					t.Errorf("%v: error %q does not name the file and %q", args, stderr, c.want)
				}
			}
			sameHashes(t, c.name, before, hashFiles(t, state))
		})
	}
}

// replay KEY reads a SQLite session and follows 2026.9.6's rules, the
// install's era, without a flag, and says so.
func TestReplaySQLiteSessionByKey(t *testing.T) {
	state := oracletest.Fixture96State(t, "example-state")
	code, out, stderr := runOC(t, false, nil, "replay", "agent:main:main", "--state-dir", state, "--provider", "anthropic", "--explain", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		OpenClaw       string `json:"openclaw"`
		OpenClawSource string `json:"openclawSource"`
		Source         string `json:"source"`
		Stages         struct {
			Context int `json:"context"`
		} `json:"stages"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenClaw != "2026.9.6" || !strings.Contains(doc.OpenClawSource, "SQLite") {
		t.Errorf("release %q (%q), want 2026.9.6 by the install's era", doc.OpenClaw, doc.OpenClawSource)
	}
	if !strings.Contains(doc.Source, "agent:main:main") || !strings.HasSuffix(doc.Source, ".sqlite") {
		t.Errorf("source %q: want the session and its database", doc.Source)
	}
	if doc.Stages.Context == 0 {
		t.Error("no context messages replayed from the SQLite session")
	}
	code, _, stderr = runOC(t, false, nil, "replay", "0197", "--state-dir", state, "--provider", "anthropic")
	if code != 2 || !strings.Contains(stderr, "ambiguous") {
		t.Errorf("ambiguous prefix: exit %d, %q", code, stderr)
	}
}

// doctor on a SQLite install: the cron fixes as OpenClaw commands, exit 1,
// no database byte changed.
func TestDoctorSQLiteEra(t *testing.T) {
	state := oracletest.Fixture96State(t, "example-state")
	before := hashFiles(t, state)
	code, out, stderr := runOC(t, false, nil, "doctor", "--state-dir", state, "--json")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (findings): %s", code, stderr)
	}
	var doc struct {
		Era  string `json:"era"`
		Cron struct {
			Jobs []struct {
				ID             string   `json:"id"`
				Store          string   `json:"store"`
				Classification string   `json:"classification"`
				Command        []string `json:"command"`
			} `json:"jobs"`
		} `json:"cron"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	cmds := 0
	for _, j := range doc.Cron.Jobs {
		if j.Store != filepath.Join(state, "state", "openclaw.sqlite") {
			t.Errorf("job %s: store %q, want the state database", j.ID, j.Store)
		}
		if len(j.Command) > 0 {
			cmds++
			if strings.Join(j.Command[:3], " ") != "openclaw automations edit" || strings.Join(j.Command[len(j.Command)-2:], " ") != "-- "+j.ID {
				t.Errorf("job %s: command %v", j.ID, j.Command)
			}
		}
	}
	if doc.Era != "sqlite" || len(doc.Cron.Jobs) != 4 || cmds != 2 {
		t.Errorf("era %s, %d jobs, %d commands; want sqlite, 4, 2", doc.Era, len(doc.Cron.Jobs), cmds)
	}
	sameHashes(t, "doctor", before, hashFiles(t, state))
}

// SESSION in the JSONL era: a key or an id prefix resolves to the transcript;
// export of a JSONL file (an archived original included) is its lines.
func TestSessionArgumentJSONLEra(t *testing.T) {
	state := filepath.Join("..", "testdata", "example-state")
	for _, arg := range []string{"agent:main:main", "0197d2a4"} {
		code, out, stderr := runOC(t, false, nil, "inspect", arg, "--state-dir", state, "--json")
		if code != 0 && code != 1 {
			t.Fatalf("inspect %s: exit %d: %s", arg, code, stderr)
		}
		var doc struct {
			Path string `json:"path"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if filepath.Base(doc.Path) != "0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01.jsonl" {
			t.Errorf("inspect %s: resolved to %s", arg, doc.Path)
		}
	}
	src := filepath.Join(state, "agents", "main", "sessions", "0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01.jsonl")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	archived := filepath.Join(t.TempDir(), "agent_main_main.0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01.jsonl.imported-1796075121222")
	if err := os.WriteFile(archived, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{src, archived} {
		code, out, stderr := runOC(t, false, nil, "export", p, "--state-dir", state)
		if code != 0 || out != string(data) {
			t.Errorf("export %s: exit %d (%s), %d bytes, want the file's %d", p, code, stderr, len(out), len(data))
		}
	}
}

// doctor after an upgrade that imported damaged transcripts without repair
// (the 9.6 oracle's fixtures/damaged, with the manifest of a real 9.6 run):
// the import audit names the 4 sessions whose entries stayed behind, with
// OpenClaw's restore, oc repair and OpenClaw's doctor --fix as commands;
// exit 1; no byte of the databases, the archive or the manifest changes.
// Every archived original exports as its own bytes.
func TestDoctorImportAudit(t *testing.T) {
	dir := filepath.Join(os.TempDir(), "oc-doctor-golden", "import-audit")
	_ = os.RemoveAll(dir)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	state := oracletest.ImportedState96(t, "damaged", dir, filepath.Join("..", "testdata", "import-audit", "manifest-damaged-9.6.json"))
	before := hashFiles(t, state)
	env := doctorEnv(t)
	code, out, stderr := runOC(t, false, env, "doctor", "--state-dir", state)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	i := strings.Index(out, "Import audit")
	j := strings.Index(out, "Cron jobs (state/openclaw.sqlite)")
	if i < 0 || j < i {
		t.Fatalf("no import audit section:\n%s", out)
	}
	golden(t, "doctor-import-audit.txt", []byte(normalizeState(out[i:j], state)))
	// 80 columns, but for a path on a line of its own (never broken, so
	// that it can be copied)
	for _, l := range strings.Split(out[i:j], "\n") {
		if len([]rune(l)) > 80 && strings.ContainsRune(strings.TrimSpace(l), ' ') {
			t.Errorf("line of %d columns: %q", len([]rune(l)), l)
		}
	}

	code, out, _ = runOC(t, false, env, "doctor", "--state-dir", state, "--json")
	if code != 1 {
		t.Fatalf("--json: exit %d", code)
	}
	var doc struct {
		Import struct {
			Compared []struct {
				Kind   string  `json:"kind"`
				Path   string  `json:"path"`
				Absent []int64 `json:"absent"`
			} `json:"compared"`
			Commands map[string][][]string `json:"commands"`
		} `json:"import"`
		Findings []struct {
			ID      string `json:"id"`
			Session string `json:"session"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	losses := map[string]bool{}
	for _, f := range doc.Findings {
		if f.ID == "import-loss" {
			losses[f.Session] = len(doc.Import.Commands[f.Session]) == 3
		}
	}
	want := map[string]bool{"agent:main:dmg-cut-middle": true, "agent:main:dmg-garbage-middle": true, "agent:main:dmg-header-cut": true, "agent:main:dmg-header-garbage": true}
	if len(losses) != len(want) {
		t.Errorf("import-loss for %v, want %v", losses, want)
	}
	for k := range want {
		if !losses[k] {
			t.Errorf("%s: no import-loss with 3 commands (%v)", k, losses)
		}
	}
	if n := len(doc.Import.Compared); n != 20 {
		t.Fatalf("compared %d archived originals, want 20", n)
	}
	exported := 0
	for _, c := range doc.Import.Compared {
		data, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		code, out, stderr := runOC(t, false, nil, "export", c.Path, "--state-dir", state)
		// export writes lines: LF ends, a final one added
		want := strings.ReplaceAll(string(data), "\r\n", "\n")
		if want != "" && !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		// An original with no session entry (empty, or garbage only) is not
		// a transcript: export refuses it and writes nothing.
		transcriptLike := false
		for _, line := range strings.Split(want, "\n") {
			transcriptLike = transcriptLike || store.IsSessionEntry([]byte(line))
		}
		if !transcriptLike {
			if code != cli.ExitIncomplete || out != "" || !strings.Contains(stderr, "nothing written") {
				t.Errorf("export %s (no session entry): exit %d (%s), %d bytes", filepath.Base(c.Path), code, stderr, len(out))
			}
		} else if code != 0 || out != want {
			t.Errorf("export %s: exit %d (%s), %d bytes, want the original's %d", filepath.Base(c.Path), code, stderr, len(out), len(data))
		}
		exported++
	}
	if exported != 20 {
		t.Fatalf("exported %d archived originals, want 20", exported)
	}
	sameHashes(t, "doctor and export", before, hashFiles(t, state))
}

// A relative --state-dir reads its databases (the SQLite URI once took the
// first path element for an authority: "invalid uri authority").
func TestSQLiteRelativeStateDir(t *testing.T) {
	state := oracletest.Fixture96State(t, "example-state")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, state)
	if err != nil {
		t.Skip(err)
	}
	for _, args := range [][]string{{"inspect", "--state-dir", rel}, {"doctor", "--state-dir", rel}} {
		code, _, stderr := runOC(t, false, doctorEnv(t), args...)
		if code != 0 && code != 1 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}
