package cmd

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/cli"
)

// doctorFixture copies testdata/doctor/<name> into a temp state dir.
func doctorFixture(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("..", "testdata", "doctor", name)
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, r), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, r), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// doctorEnv fixes the clock (SOURCE_DATE_EPOCH = 1771400000) and puts the
// gateway lock dir in a private TMPDIR.
func doctorEnv(t *testing.T) map[string]string {
	return map[string]string{"SOURCE_DATE_EPOCH": "1771400000", "TMPDIR": t.TempDir()}
}

func normalizeState(out, state string) string { return strings.ReplaceAll(out, state, "$STATE") }

func TestDoctorGoldens(t *testing.T) {
	// example8's state/openclaw.sqlite is a stub no SQLite reader opens:
	// cron_jobs cannot be read, so doctor cannot complete (exit 3), as with
	// a jobs.json that does not parse.
	for _, c := range []struct {
		fixture, golden string
		code            int
	}{
		{"example5-topics", "example5", cli.ExitFindings},
		{"example6-era-b", "example6", cli.ExitFindings},
		{"example8-sqlite-era", "example8", cli.ExitIncomplete},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			// A fixed path, so that word wrapping does not depend on a random temp name.
			dir := filepath.Join(os.TempDir(), "oc-doctor-golden", c.golden)
			_ = os.RemoveAll(dir)
			if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(doctorFixture(t, c.fixture), dir); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.RemoveAll(dir) })
			env := doctorEnv(t)
			code, out, errOut := runOC(t, false, env, "doctor", "--state-dir", dir)
			if code != c.code || (code == cli.ExitFindings && errOut != "") {
				t.Fatalf("check: exit %d, stderr %q", code, errOut)
			}
			golden(t, "../doctor/golden/"+c.golden+".check.txt", []byte(normalizeState(out, dir)))
			assertWidth(t, out, 80)

			code, out, _ = runOC(t, false, env, "doctor", "--state-dir", dir, "--json")
			if code != c.code {
				t.Fatalf("check --json: exit %d", code)
			}
			golden(t, "../doctor/golden/"+c.golden+".check.json", []byte(normalizeState(out, dir)))

			code, out, errOut = runOC(t, false, env, "doctor", "--state-dir", dir, "--fix", "--yes")
			if code == cli.ExitIncomplete && c.code != cli.ExitIncomplete {
				t.Fatalf("fix: exit 3: %s", errOut)
			}
			golden(t, "../doctor/golden/"+c.golden+".fix.txt", []byte(normalizeState(out, dir)))
			assertWidth(t, out, 80)
		})
	}
}

func assertWidth(t *testing.T, out string, width int) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > width {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
}

func TestDoctorJSONDocument(t *testing.T) {
	dir := doctorFixture(t, "example4-dm-to-discord")
	code, out, _ := runOC(t, false, doctorEnv(t), "doctor", "--state-dir", dir, "--fix", "--yes", "--json")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, out)
	}
	var doc struct {
		StateDir string `json:"stateDir"`
		Era      string `json:"era"`
		Findings []struct {
			ID, Severity, Path, Message, Fix string
		} `json:"findings"`
		Cron struct {
			Store string `json:"store"`
			Jobs  []struct {
				ID             string  `json:"id"`
				Name           string  `json:"name"`
				SessionTarget  *string `json:"sessionTarget"`
				Classification *string `json:"classification"`
				Reason         *string `json:"reason"`
				Migrated       bool    `json:"migrated"`
			} `json:"jobs"`
		} `json:"cron"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if dec.More() {
		t.Fatal("more than one JSON document")
	}
	if doc.StateDir != dir || doc.Era != "jsonl" || doc.Cron.Store != filepath.Join(dir, "cron", "jobs.json") {
		t.Errorf("%+v", doc)
	}
	j := doc.Cron.Jobs[0]
	if *j.SessionTarget != "session:agent:main:telegram:direct:6445835734" || *j.Classification != "ELSEWHERE" || *j.Reason != "channel-differs" || !j.Migrated {
		t.Errorf("job %+v", j)
	}
	for _, f := range doc.Findings {
		if f.ID == "" || f.Severity == "" {
			t.Errorf("finding without id or severity: %+v", f)
		}
	}
}

func TestDoctorNullClassificationForOtherTargets(t *testing.T) {
	dir := doctorFixture(t, "example1-main-isolated")
	code, out, _ := runOC(t, false, doctorEnv(t), "doctor", "--state-dir", dir, "--json", "--no-transcripts")
	if code != cli.ExitOK {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out, `"classification": null`) || strings.Contains(out, `"classification": "`) {
		t.Errorf("classification not null:\n%s", out)
	}
}

func TestDoctorStyledOnTerminalPlainWhenPiped(t *testing.T) {
	dir := doctorFixture(t, "example4-dm-to-discord")
	_, styled, _ := runOC(t, true, doctorEnv(t), "doctor", "--state-dir", dir)
	_, plain, _ := runOC(t, false, doctorEnv(t), "doctor", "--state-dir", dir)
	if !strings.Contains(styled, "\x1b[") {
		t.Error("no ANSI styling on a terminal")
	}
	if strings.Contains(plain, "\x1b[") {
		t.Error("ANSI codes when piped")
	}
	_, nocolor, _ := runOC(t, true, map[string]string{"NO_COLOR": "1", "SOURCE_DATE_EPOCH": "1771400000", "TMPDIR": t.TempDir()}, "doctor", "--state-dir", dir)
	if nocolor != plain {
		t.Error("NO_COLOR on a terminal differs from piped output")
	}
}

func TestDoctorRefusesWhileGatewayRuns(t *testing.T) {
	dir := doctorFixture(t, "example4-dm-to-discord")
	env := doctorEnv(t)
	lockDir := filepath.Join(env["TMPDIR"], fmt.Sprintf("openclaw-%d", os.Getuid()))
	if err := os.MkdirAll(lockDir, 0o700); err != nil {
		t.Fatal(err)
	}
	lock := fmt.Sprintf(`{"pid":%d,"createdAt":%q,"configPath":%q}`, os.Getpid(), time.Now().UTC().Format(time.RFC3339), filepath.Join(dir, "openclaw.json"))
	if err := os.WriteFile(filepath.Join(lockDir, "gateway.deadbeef.lock"), []byte(lock), 0o600); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "cron", "jobs.json")
	before, _ := os.ReadFile(store)
	code, _, errOut := runOC(t, false, env, "doctor", "--state-dir", dir, "--fix", "--yes")
	if code != cli.ExitBusy {
		t.Fatalf("exit %d, want 11 (busy: retry once the gateway stops)", code)
	}
	oneLineError(t, errOut)
	if !strings.Contains(errOut, "gateway is running") || !strings.Contains(errOut, fmt.Sprint(os.Getpid())) {
		t.Errorf("stderr %q does not say why", errOut)
	}
	if after, _ := os.ReadFile(store); string(after) != string(before) {
		t.Error("store written while the gateway runs")
	}
	code, _, _ = runOC(t, false, env, "doctor", "--state-dir", dir, "--fix", "--yes", "--force")
	if code != cli.ExitOK {
		t.Errorf("--force: exit %d", code)
	}
}

func TestDoctorMissingStateDir(t *testing.T) {
	code, out, errOut := runOC(t, false, doctorEnv(t), "doctor", "--state-dir", filepath.Join(t.TempDir(), "missing"))
	if code != cli.ExitIncomplete || out != "" {
		t.Fatalf("exit %d out %q", code, out)
	}
	oneLineError(t, errOut)
}

func TestDoctorCheckModeNeverWrites(t *testing.T) {
	dir := doctorFixture(t, "example6-era-b")
	sums := func() map[string]string {
		m := map[string]string{}
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				m[p] = string(b)
			}
			return nil
		})
		return m
	}
	before := sums()
	runOC(t, false, doctorEnv(t), "doctor", "--state-dir", dir)
	runOC(t, false, doctorEnv(t), "doctor", "--state-dir", dir, "--json")
	after := sums()
	if len(before) != len(after) {
		t.Fatalf("files added or removed: %d -> %d", len(before), len(after))
	}
	for p, b := range before {
		if after[p] != b {
			t.Errorf("%s changed", p)
		}
	}
}
