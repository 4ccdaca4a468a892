package cmd

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/doctor"
)

// Tests of the CLI contract (issue 9: exit codes, errors, truthful output,
// conventions) and of terminal safety (issue 8: text from files never acts
// on the terminal).

// hostile is text a transcript could hold: a terminal title change (OSC 0
// ... BEL), a colour lipgloss never emits (blink red), a bidi override.
const hostile = "\x1b]0;pwned\x07\x1b[5;31mRED\u202e"

// hostileEscaped is how human output must show it.
const hostileEscaped = `\x1b]0;pwned\x07\x1b[5;31mRED\u202e`

// hostileState writes a state dir with one transcript whose session id,
// cwd, model, tool name and text carry hostile, and returns the state dir
// and the transcript's path.
func hostileState(t *testing.T) (string, string) {
	t.Helper()
	state := t.TempDir()
	dir := filepath.Join(state, "agents", "main", "sessions")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	id := "0197e000-0000-7000-8000-000000000001"
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	lines := []string{
		`{"type":"session","version":3,"id":` + js(id+hostile) + `,"timestamp":"2026-05-17T06:45:00.000Z","cwd":` + js("/srv/"+hostile) + `}`,
		`{"type":"message","id":` + js("u1"+hostile) + `,"parentId":null,"timestamp":"2026-05-17T06:45:01.000Z","message":{"role":"user","content":` + js("hi "+hostile) + `,"timestamp":1779000301000}}`,
		`{"type":"message","id":"a1","parentId":` + js("u1"+hostile) + `,"timestamp":"2026-05-17T06:45:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":` + js("deploy"+hostile) + `,"arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":` + js("claude"+hostile) + `,"stopReason":"toolUse","timestamp":1779000302000}}`,
		`{"type":"message","id":"a2","parentId":"missing` + strings.ReplaceAll(js(hostile), `"`, "") + `","timestamp":"2026-05-17T06:45:03.000Z","message":{"role":"assistant","content":[],"api":"anthropic-messages","provider":"anthropic","model":"claude","stopReason":"error","timestamp":1779000303000}}`,
		`not json ` + hostile,
	}
	path := filepath.Join(dir, id+".jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	return state, path
}

// assertTerminalSafe: no byte of hostile reached the output raw; in colour
// mode the only escape sequences are SGR styles that lipgloss writes.
func assertTerminalSafe(t *testing.T, what, out string) {
	t.Helper()
	for _, bad := range []string{"\x1b]", "\x07", "\x1b[5;31m", "\u202e"} {
		assert.NotContains(t, out, bad, "%s: raw %q from the file reached the terminal", what, bad)
	}
}

func TestTerminalEscapesFromDataAreShownEscaped(t *testing.T) {
	state, path := hostileState(t)
	runs := [][]string{
		{"inspect", path},
		{"inspect", path, "--tree"},
		{"inspect", "--state-dir", state, "--tree"},
		{"repair", "--check", path},
		{"repair", "--dry-run", path},
		{"doctor", "--state-dir", state},
		{"replay", path, "--provider", "anthropic", "--explain"},
		{"replay", path, "--provider", "anthropic", "--diff"},
		{"replay", path, "--provider", "all"},
		{"replay", path, "--provider", "anthropic", "--stage", "context"},
	}
	for _, tty := range []bool{true, false} {
		for _, args := range runs {
			name := strings.Join(args, " ")
			if tty {
				name += " (terminal, colour)"
			}
			_, out, errOut := runOC(t, tty, doctorEnv(t), args...)
			assertTerminalSafe(t, name, out)
			assertTerminalSafe(t, name+" stderr", errOut)
			if args[0] == "inspect" && len(args) == 2 {
				// The escaped text is there, readable: session id, cwd, model, tool name.
				assert.Contains(t, out, "0197e000-0000-7000-8000-000000000001"+hostileEscaped, name)
				assert.Contains(t, out, "cwd /srv/"+hostileEscaped, name)
				assert.Contains(t, out, "claude"+hostileEscaped, name)
			}
		}
	}
	// --json stays exact: the same strings, decoded.
	code, out, _ := runOC(t, false, nil, "inspect", path, "--json")
	require.Equal(t, cli.ExitOK, code)
	var doc struct {
		Header struct {
			ID  string `json:"id"`
			Cwd string `json:"cwd"`
		} `json:"header"`
		Models map[string]int `json:"models"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "0197e000-0000-7000-8000-000000000001"+hostile, doc.Header.ID)
	assert.Equal(t, "/srv/"+hostile, doc.Header.Cwd)
	assert.Equal(t, 1, doc.Models["claude"+hostile])
}

func TestTerminalEscapesInFileNames(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "x\x1b]0;t\x07.jsonl")
	require.NoError(t, os.WriteFile(name, []byte("{broken\n"), 0o644))
	_, out, errOut := runOC(t, true, nil, "repair", "--check", name)
	assert.NotContains(t, out+errOut, "\x07")
	assert.Contains(t, out, `x\x1b]0;t\x07.jsonl`)
}

// --- exit codes -------------------------------------------------------

func randomFile(t *testing.T, dir string) string {
	b := make([]byte, 4096)
	rand.New(rand.NewSource(42)).Read(b)
	p := filepath.Join(dir, "random.jsonl")
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// What --check flags, repair fixes or reports as unrepairable with 3, and
// --check says which.
func TestRepairCheckAndRepairAgreeOnRandomBytes(t *testing.T) {
	p := randomFile(t, t.TempDir())
	orig, _ := os.ReadFile(p)
	code, out, _ := runOC(t, false, nil, "repair", "--check", p)
	assert.Equal(t, cli.ExitFindings, code)
	assert.Contains(t, out, "unrepairable: no line is a JSON entry: not an OpenClaw transcript")
	assert.NotContains(t, out, "empty session file")
	assert.Contains(t, out, "(0 fixable, 1 unrepairable)")

	code, out, errOut := runOC(t, false, nil, "repair", p)
	assert.Equal(t, cli.ExitIncomplete, code, out)
	assert.NotContains(t, out, "empty session file")
	oneLineError(t, errOut)
	assert.Contains(t, errOut, "unrepairable")
	got, _ := os.ReadFile(p)
	assert.Equal(t, orig, got, "nothing written")

	code, _, errOut = runOC(t, false, nil, "repair", "--json", p)
	assert.Equal(t, cli.ExitIncomplete, code)
	assertJSONError(t, errOut, cli.ExitIncomplete)
}

func TestRepairCheckAndRepairAgreeOnGzip(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(exampleState, "agents/ops/sessions/0197d5ff-0000-7111-8222-333344445555.jsonl"))
	require.NoError(t, err)
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write(append(src, []byte("{garbage\n")...))
	require.NoError(t, zw.Close())
	p := filepath.Join(dir, "s.jsonl.gz")
	require.NoError(t, os.WriteFile(p, b.Bytes(), 0o644))

	code, out, _ := runOC(t, false, nil, "repair", "--check", p)
	assert.Equal(t, cli.ExitFindings, code)
	assert.Contains(t, out, "unrepairable: gzip-compressed: oc repairs only plain files")
	code, _, errOut := runOC(t, false, nil, "repair", p)
	assert.Equal(t, cli.ExitIncomplete, code)
	assert.Contains(t, errOut, "oc repairs only plain files")
}

func TestFreshInstallIsClean(t *testing.T) {
	state := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(state, "cron"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(state, "cron", "jobs.json"), []byte(`{"version":1,"jobs":[]}`), 0o600))
	for _, args := range [][]string{{"inspect"}, {"repair", "--check"}, {"repair"}, {"doctor"}} {
		code, out, errOut := runOC(t, false, doctorEnv(t), append(args, "--state-dir", state)...)
		assert.Equal(t, cli.ExitOK, code, "%v: %s", args, errOut)
		if args[0] != "doctor" {
			assert.Contains(t, out, "no transcripts in "+state, args)
		}
	}
	// A folder that is not a state dir and holds no transcript is still an error.
	code, _, errOut := runOC(t, false, nil, "inspect", t.TempDir())
	assert.Equal(t, cli.ExitIncomplete, code)
	oneLineError(t, errOut)
}

func TestDoctorExitCodes(t *testing.T) {
	state := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(state, "cron"), 0o755))
	store := filepath.Join(state, "cron", "jobs.json")
	for _, garbage := range []string{"garbage", "\x00\xff\xfe", `[1,2]`} {
		require.NoError(t, os.WriteFile(store, []byte(garbage), 0o600))
		code, _, errOut := runOC(t, false, doctorEnv(t), "doctor", "--state-dir", state)
		assert.Equal(t, cli.ExitIncomplete, code, "%q: a store doctor cannot parse: could not complete", garbage)
		assert.Contains(t, errOut, "jobs.json")
		code, _, _ = runOC(t, false, doctorEnv(t), "doctor", "--state-dir", state, "--fix", "--yes")
		assert.Equal(t, cli.ExitIncomplete, code)
	}
	require.NoError(t, os.Remove(store))
	require.NoError(t, os.Mkdir(store, 0o755))
	code, _, _ := runOC(t, false, doctorEnv(t), "doctor", "--state-dir", state)
	assert.Equal(t, cli.ExitIncomplete, code, "jobs.json is a directory")

	// --fix fixed what it can; a warning only a person can resolve remains: 0
	// (contract §5: 1 only in check mode), and the check run still says 1.
	dir := doctorFixture(t, "example6-era-b")
	code, out, errOut := runOC(t, false, doctorEnv(t), "doctor", "--state-dir", dir, "--fix", "--yes")
	assert.Equal(t, cli.ExitOK, code, errOut)
	assert.Contains(t, out, "resolve the warning above by hand")
	code, _, _ = runOC(t, false, doctorEnv(t), "doctor", "--state-dir", dir)
	assert.Equal(t, cli.ExitFindings, code)
}

func TestDoctorNoTranscriptsShowsSkipped(t *testing.T) {
	dir := doctorFixture(t, "example4-dm-to-discord")
	_, out, _ := runOC(t, false, doctorEnv(t), "doctor", "--state-dir", dir, "--no-transcripts")
	assert.Contains(t, out, "[-] Transcripts · skipped (--no-transcripts)")
	assert.NotContains(t, out, "[✓] Transcripts")
}

// --- errors: JSON, user's terms, help pointers ---------------------------

func assertJSONError(t *testing.T, stderr string, code int) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	require.Len(t, lines, 1, "one JSON object on stderr: %q", stderr)
	var e struct {
		Error    string `json:"error"`
		ExitCode int    `json:"exitCode"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &e), stderr)
	assert.NotEmpty(t, e.Error)
	assert.Equal(t, code, e.ExitCode)
}

func TestJSONErrorsForEveryCode(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"inspect", "--json", "--bogus"}, cli.ExitUsage},
		{[]string{"--json", "inspct"}, cli.ExitUsage},
		{[]string{"repair", "--json", "--jobs", "-1"}, cli.ExitUsage},
		{[]string{"replay", "x", "--json"}, cli.ExitUsage},
		{[]string{"inspect", "--json", "/nonexistent/x.jsonl"}, cli.ExitIncomplete},
		{[]string{"repair", "--json", "--check", "/nonexistent/x.jsonl"}, cli.ExitIncomplete},
	} {
		code, out, errOut := runOC(t, false, nil, c.args...)
		assert.Equal(t, c.code, code, c.args)
		assert.Empty(t, out, c.args)
		assertJSONError(t, errOut, c.code)
	}
}

func TestErrorsInTheUsersTerms(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("state-dir: [unclosed\n"), 0o644))
	for _, c := range []struct {
		args    []string
		env     map[string]string
		code    int
		want    string
		helpFor string
	}{
		{[]string{"inspect", "--jobs", "abc"}, nil, 2, `--jobs "abc": want a whole number`, "oc inspect"},
		{[]string{"inspect"}, map[string]string{"OC_INSPECT_JOBS": "abc"}, 2, "OC_INSPECT_JOBS", "oc inspect"},
		{[]string{"inspect", "--config", cfg}, nil, 2, "not valid YAML", "oc inspect"},
		{[]string{"repair", "-"}, nil, 2, "repair needs a file: stdin (-) is read-only input", "oc repair"},
		{[]string{"repair", "--jobs", "-1", "x"}, nil, 2, "--jobs -1", "oc repair"},
		{[]string{"inspect", "--jobs", "-1"}, nil, 2, "--jobs -1", "oc inspect"},
		{[]string{"replay", "x", "--provider", "anthropic", "--image-max-px", "-5"}, nil, 2, "--image-max-px -5", "oc replay"},
		{[]string{"replay", "x", "--provider", "anthropic", "--api", "bogus"}, nil, 2, `--api "bogus"`, "oc replay"},
		{[]string{"repair", "--since", "yesterday"}, nil, 2, `--since "yesterday"`, "oc repair"},
		{[]string{"inspct"}, nil, 2, "did you mean inspect?", "oc"},
		{[]string{"help", "nosuch"}, nil, 2, `unknown help topic "nosuch"`, "oc"},
		{[]string{"help", "inspct"}, nil, 2, "did you mean inspect?", "oc"},
		{[]string{"completion", "nosh"}, nil, 2, `unknown shell "nosh" (want bash, fish, powershell, zsh)`, "oc completion"},
		{[]string{"completion", "bsh"}, nil, 2, "did you mean bash or zsh?", "oc completion"},
		{[]string{"completion"}, nil, 2, "completion needs a shell: bash, fish, powershell, zsh", "oc completion"},
	} {
		code, _, errOut := runOC(t, false, c.env, c.args...)
		assert.Equal(t, c.code, code, c.args)
		assert.Contains(t, errOut, c.want, c.args)
		assert.Contains(t, errOut, "Run '"+c.helpFor+" --help' for usage.", c.args)
		for _, internal := range []string{"strconv.", "While parsing config", " yaml: ", "stat -:", "(known: ["} {
			assert.NotContains(t, errOut, internal, c.args)
		}
	}
}

func TestReplayUnknownProviderListsKnownOnes(t *testing.T) {
	_, path := hostileState(t)
	code, _, errOut := runOC(t, false, nil, "replay", path, "--provider", "nosuchprovider")
	assert.Equal(t, cli.ExitUsage, code)
	for _, want := range []string{"anthropic", "mistral", "ollama", "bedrock → amazon-bedrock", "doubao → volcengine"} {
		assert.Contains(t, errOut, want)
	}
	// --api bogus is a usage error (2) however the route is chosen.
	code, _, _ = runOC(t, false, nil, "replay", path, "--provider", "anthropic", "--api", "bogus", "--model", "m")
	assert.Equal(t, cli.ExitUsage, code)
}

func TestUndoWithoutBackupDirSaysWhereItLooked(t *testing.T) {
	state := copyState(t)
	damaged := filepath.Join(state, "agents", "main", "sessions", "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl")
	backups := t.TempDir()
	code, _, errOut := runOC(t, false, nil, "repair", "--backup-dir", backups, damaged)
	require.Equal(t, cli.ExitOK, code, errOut)
	code, _, errOut = runOC(t, false, nil, "repair", "--undo", damaged)
	assert.Equal(t, cli.ExitIncomplete, code)
	oneLineError(t, errOut)
	assert.Contains(t, errOut, "no oc backup found in "+filepath.Dir(damaged))
	assert.Contains(t, errOut, "pass the same --backup-dir")
}

func TestUnknownConfigKeysAreReported(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("state-dir: "+exampleState+"\nstat-dir: typo\nrepair:\n  backup-dir: /tmp\n  bogus: 1\n"), 0o644))
	code, _, errOut := runOC(t, false, nil, "inspect", "--config", cfg)
	assert.Equal(t, cli.ExitOK, code, errOut)
	assert.Contains(t, errOut, `oc: warning: config file `+cfg+`: unknown keys "repair.bogus", "stat-dir" ignored`)
	assert.NotContains(t, errOut, "backup-dir")
}

// --- truthful output ------------------------------------------------------

func TestInspectStdinReportsTheRealSize(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(exampleState, "agents/main/sessions/0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01.jsonl"))
	require.NoError(t, err)
	ios, out, _ := cli.Test(false)
	ios.In = bytes.NewReader(src)
	code := Run(t.Context(), []string{"inspect", "-", "--json"}, ios, func(string) string { return "" })
	require.Equal(t, cli.ExitOK, code)
	var doc struct {
		Size int64 `json:"size"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc))
	assert.Equal(t, int64(len(src)), doc.Size)
}

func TestShortenNameKeepsTheSuffix(t *testing.T) {
	name := "9db9b518-e6c8-4f4b-8834-60fcbf3a7251.jsonl.reset.2026-03-26T00-38-22.322Z"
	got := shortenName(name, 44)
	assert.Equal(t, 44, len([]rune(got)))
	assert.True(t, strings.HasSuffix(got, ".jsonl.reset.2026-03-26T00-38-22.322Z"), got)
	assert.True(t, strings.HasPrefix(got, "9db"), got)
	assert.Equal(t, "short.jsonl", shortenName("short.jsonl", 44))
}

func TestMissingParentFindingPromisesNoRepair(t *testing.T) {
	_, path := hostileState(t)
	_, out, _ := runOC(t, false, nil, "inspect", path)
	assert.Contains(t, out, "missing-parent")
	assert.NotContains(t, out, "re-links it")
}

func TestTermDumbAndNoColor(t *testing.T) {
	for _, env := range []map[string]string{{"TERM": "dumb"}, {"NO_COLOR": "1"}} {
		_, out, _ := runOC(t, true, env, "inspect", "--state-dir", exampleState)
		assert.NotContains(t, out, "\x1b[", env)
	}
	_, out, _ := runOC(t, true, map[string]string{"TERM": "xterm-256color"}, "inspect", "--state-dir", exampleState)
	assert.Contains(t, out, "\x1b[", "a terminal still gets colours")
}

func TestVerboseOnlyWhereItDoesSomething(t *testing.T) {
	code, _, _ := runOC(t, false, nil, "inspect", "-v", "--state-dir", exampleState)
	assert.Equal(t, cli.ExitUsage, code, "-v is a repair flag")
	code, out, _ := runOC(t, false, nil, "repair", "--check", "-v", "--state-dir", exampleState)
	assert.Equal(t, cli.ExitFindings, code)
	assert.Contains(t, out, "ok ", "repair -v lists the files that need nothing")
}

// --- conventions --------------------------------------------------------

func TestVersionFlag(t *testing.T) {
	code, out, _ := runOC(t, false, nil, "--version")
	assert.Equal(t, cli.ExitOK, code)
	_, want, _ := runOC(t, false, nil, "version")
	assert.Equal(t, want, out)
}

func TestFlagValueCompletion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "replay", "x", "--provider", ""}, []string{"anthropic", "all", "bedrock\tamazon-bedrock"}},
		{[]string{"__complete", "replay", "x", "--api", ""}, []string{"anthropic-messages", "mistral-conversations"}},
		{[]string{"__complete", "replay", "x", "--stage", ""}, []string{"context", "sanitized", "payload"}},
		{[]string{"__complete", "repair", "--rules", ""}, []string{"all", "openclaw-2026.5.6"}},
		{[]string{"__complete", "replay", "x", "--openclaw", ""}, []string{"2026.5.6", "2026.9.6", "2026.5.6,2026.9.6"}},
		{[]string{"__complete", "inspect", "--openclaw", ""}, []string{"2026.5.6", "2026.9.6"}},
		{[]string{"__complete", "replay", "x", "--tz", ""}, []string{"Local", "UTC"}},
		{[]string{"__complete", "doctor", "--state-dir", exampleState, "--agent", ""}, []string{"main", "ops"}},
		{[]string{"__complete", "repair", "--state-dir", exampleState, "--agent", ""}, []string{"main", "ops"}},
		{[]string{"__complete", "inspect", "--state-dir", exampleState, "--agent", ""}, []string{"main", "ops"}},
		{[]string{"__complete", "replay", "--state-dir", exampleState, "0197d2"}, []string{"0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01\tmain"}},
		{[]string{"__complete", "export", "--state-dir", exampleState, "0197d2"}, []string{"0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01\tmain"}},
		{[]string{"__complete", "inspect", "--state-dir", exampleState, "agent:ops"}, []string{"agent:ops:main\t0197d400-aaaa-7bbb-8ccc-ddddeeeeffff"}},
		{[]string{"__complete", "show", "--state-dir", exampleState, "0197d2"}, []string{"0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01\tmain"}},
		{[]string{"__complete", "replay", "--state-dir", exampleState, "agent:ops"}, []string{"agent:ops:main\t0197d400-aaaa-7bbb-8ccc-ddddeeeeffff"}},
	} {
		code, out, _ := runOC(t, false, nil, c.args...)
		assert.Equal(t, cli.ExitOK, code, c.args)
		lines := strings.Split(out, "\n")
		for _, w := range c.want {
			assert.Contains(t, lines, w, c.args)
		}
	}
}

func TestManPagesHaveEnvironmentAndFiles(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "man", "man1", "oc.1"))
	require.NoError(t, err)
	root, _ := NewRootCmd(cli.System(), os.Getenv)
	keys := configKeys(root)
	assert.Greater(t, len(keys), 20)
	for _, k := range keys {
		assert.Contains(t, string(page), k.Env, "oc.1 ENVIRONMENT lists %s", k.Env)
	}
	for _, want := range []string{".SH ENVIRONMENT", ".SH FILES", "OC_CONFIG", "OPENCLAW_STATE_DIR", "config.yaml"} {
		assert.Contains(t, string(page), want)
	}
	repairPage, err := os.ReadFile(filepath.Join("..", "man", "man1", "oc-repair.1"))
	require.NoError(t, err)
	assert.Contains(t, string(repairPage), "OC_REPAIR_BACKUP_DIR")
	code, out, _ := runOC(t, false, nil, "help", "environment")
	assert.Equal(t, cli.ExitOK, code)
	assert.Contains(t, out, "OC_REPAIR_BACKUP_DIR")
	_, help, _ := runOC(t, false, nil, "--help")
	assert.Contains(t, help, "$OC_CONFIG")
}

func TestAgentAndSinceFilters(t *testing.T) {
	state := t.TempDir()
	require.NoError(t, os.CopyFS(state, os.DirFS(exampleState)))
	seen := func(args ...string) int {
		code, out, errOut := runOC(t, false, nil, append([]string{"inspect", "--json", "--state-dir", state}, args...)...)
		require.Equal(t, cli.ExitOK, code, errOut)
		var doc struct {
			Transcripts []any `json:"sessions"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		return len(doc.Transcripts)
	}
	all := seen()
	require.Greater(t, all, 2)
	ops := seen("--agent", "ops")
	assert.Greater(t, ops, 0)
	assert.Less(t, ops, all)
	// Age every file, then touch one: --since 1h keeps only that one.
	old := time.Now().Add(-48 * time.Hour)
	var newest string
	_ = filepath.Walk(state, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			_ = os.Chtimes(p, old, old)
			if strings.HasSuffix(p, ".jsonl") {
				newest = p
			}
		}
		return nil
	})
	require.NoError(t, os.Chtimes(newest, time.Now(), time.Now()))
	assert.Equal(t, 1, seen("--since", "1h"))
	assert.Equal(t, all, seen("--since", "7d"))
	code, out, _ := runOC(t, false, nil, "repair", "--check", "--state-dir", state, "--agent", "nobody")
	assert.Equal(t, cli.ExitOK, code)
	assert.Contains(t, out, "no transcripts in")

	// doctor: the transcript findings of the selected transcripts only, and
	// its Transcripts line says which it covered.
	doc := func(args ...string) (needsRepair []string, detail string) {
		_, out, errOut := runOC(t, false, doctorEnv(t), append([]string{"doctor", "--json", "--state-dir", exampleState}, args...)...)
		var d struct {
			Findings []struct{ ID, Path string }
			Checks   []struct{ Section, Detail string }
		}
		require.NoError(t, json.Unmarshal([]byte(out), &d), errOut)
		for _, f := range d.Findings {
			if f.ID == "transcript-needs-repair" {
				needsRepair = append(needsRepair, filepath.Base(f.Path))
			}
		}
		for _, c := range d.Checks {
			if c.Section == doctor.SectionTranscripts {
				detail = c.Detail
			}
		}
		return needsRepair, detail
	}
	damaged := []string{"0197d2b9-0c4a-7d11-8e22-33f4a5b6c7d8.jsonl"}
	got, detail := doc()
	assert.Equal(t, damaged, got)
	assert.Empty(t, detail)
	got, detail = doc("--agent", "main")
	assert.Equal(t, damaged, got)
	assert.Equal(t, "only transcripts of agent main", detail)
	got, detail = doc("--agent", "ops")
	assert.Empty(t, got)
	assert.Equal(t, "only transcripts of agent ops", detail)
	_, out, _ = runOC(t, false, doctorEnv(t), "doctor", "--state-dir", exampleState, "--agent", "nobody")
	assert.Contains(t, out, "[✓] Transcripts · only transcripts of agent nobody")
}

func TestMigrationReportStoresAbsolutePaths(t *testing.T) {
	dir := doctorFixture(t, "example4-dm-to-discord")
	cwd, err := os.Getwd()
	require.NoError(t, err)
	rel, err := filepath.Rel(cwd, dir)
	require.NoError(t, err)
	require.False(t, filepath.IsAbs(rel))
	code, _, errOut := runOC(t, false, doctorEnv(t), "doctor", "--state-dir", rel, "--fix", "--yes")
	require.Equal(t, cli.ExitOK, code, errOut)
	reports, _ := filepath.Glob(filepath.Join(dir, "cron", "doctor-session-target-migration-*.json"))
	require.Len(t, reports, 1)
	b, err := os.ReadFile(reports[0])
	require.NoError(t, err)
	var mf struct {
		StateDir string   `json:"stateDir"`
		Store    string   `json:"store"`
		Backups  []string `json:"backups"`
	}
	require.NoError(t, json.Unmarshal(b, &mf))
	require.NotEmpty(t, mf.Backups)
	for _, p := range append([]string{mf.StateDir, mf.Store}, mf.Backups...) {
		assert.True(t, filepath.IsAbs(p), "%q in the migration report is not absolute", p)
	}
}

// Permission and I/O errors (the -unreadable and -failed findings) are
// "could not complete" (3) whatever their severity; findings about content
// doctor could read are not.
func TestDoctorIncompleteFindings(t *testing.T) {
	for id, want := range map[string]bool{
		"sessions-dir-unreadable":       true,
		"cron-store-unreadable":         true,
		"config-unreadable":             true,
		"transcript-check-failed":       true,
		"cron-store-invalid-json":       true,
		"cron-store-shape":              true,
		"stale-session-lock":            false,
		"session-file-missing":          false,
		"transcript-needs-repair":       false,
		"cron-session-target-elsewhere": false,
	} {
		for _, sev := range []string{"warning", "error"} {
			f := doctorFinding(id, sev)
			got := docIncomplete(f)
			if strings.HasSuffix(id, "-unreadable") || strings.HasSuffix(id, "-failed") {
				assert.True(t, got, "%s/%s", id, sev)
			} else if sev == "error" {
				assert.Equal(t, want, got, "%s/%s", id, sev)
			} else {
				assert.False(t, got, "%s/%s", id, sev)
			}
		}
	}
}

func doctorFinding(id, sev string) doctor.Finding { return doctor.Finding{ID: id, Severity: sev} }

func TestArgumentErrorsInWords(t *testing.T) {
	for args, want := range map[string]string{
		"doctor extra": `doctor takes no arguments (got "extra")`,
		"replay":       "replay needs one SESSION",
		// Help topics have no Run, so cobra checks no arguments for them.
		"exit-codes extra":          `exit-codes takes no arguments (got "extra")`,
		"exit-codes --no-color a b": `exit-codes takes no arguments (got "a", "b")`,
		"repair-rules extra":        `repair-rules takes no arguments (got "extra")`,
		"environment extra":         `environment takes no arguments (got "extra")`,
		"help exit-codes extra":     `help exit-codes takes no further arguments (got "extra")`,
		"help inspect extra":        `help inspect takes no further arguments (got "extra")`,
	} {
		code, out, errOut := runOC(t, false, nil, strings.Fields(args)...)
		assert.Equal(t, cli.ExitUsage, code, args)
		assert.Empty(t, out, args)
		assert.Contains(t, errOut, want, args)
		assert.NotContains(t, errOut, "arg(s)", args)
		assert.Equal(t, 1, strings.Count(errOut, "oc: "), "one error line: %q", errOut)
	}
}

// Golden files of the outputs this contract shapes.
func TestContractGoldens(t *testing.T) {
	state, path := hostileState(t)
	_, out, _ := runOC(t, false, nil, "inspect", path, "--tree")
	golden(t, "inspect-hostile.txt", []byte(normalize(out, state)))

	fresh := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(fresh, "cron"), 0o755))
	_, out, _ = runOC(t, false, nil, "inspect", "--state-dir", fresh)
	golden(t, "inspect-fresh.txt", []byte(normalize(out, fresh)))

	dir := t.TempDir()
	p := randomFile(t, dir)
	_, out, errOut := runOC(t, false, nil, "repair", "--check", p)
	_, out2, errOut2 := runOC(t, false, nil, "repair", p)
	golden(t, "repair-random.txt", []byte(normalize("$ oc repair --check FILE\n"+out+errOut+"$ oc repair FILE\n"+out2+errOut2, dir)))

	_, out, _ = runOC(t, false, nil, "help", "environment")
	golden(t, "help-environment.txt", []byte(out))
	_, out, _ = runOC(t, false, nil, "help", "exit-codes")
	golden(t, "help-exit-codes.txt", []byte(out))
}

// Doctor's "Next:" names what is left: errors, warnings or both, one or
// more, never warnings when only errors remain; fixed findings and notes do
// not count; the command is one line, the state dir quoted for the shell.
func TestDoctorNextNamesWhatIsLeft(t *testing.T) {
	f := func(sev string, fixed bool) doctor.Finding {
		return doctor.Finding{ID: "x", Severity: sev, Fixed: fixed}
	}
	for _, c := range []struct {
		findings []doctor.Finding
		want     string
	}{
		{[]doctor.Finding{f(doctor.SevError, false)}, "resolve the error above by hand, then check again"},
		{[]doctor.Finding{f(doctor.SevError, false), f(doctor.SevError, false), f(doctor.SevWarning, true), f(doctor.SevInfo, false)}, "resolve the errors above by hand, then check again"},
		{[]doctor.Finding{f(doctor.SevWarning, false), f(doctor.SevWarning, false)}, "resolve the warnings above by hand, then check again"},
		{[]doctor.Finding{f(doctor.SevWarning, false), f(doctor.SevError, false)}, "resolve the errors and warnings above by hand, then check again"},
		{[]doctor.Finding{f(doctor.SevInfo, false), f(doctor.SevError, true)}, ""},
	} {
		why, cmd := docNextCommand(&doctor.Report{StateDir: "/tmp/a b", Mode: "fix", Findings: c.findings})
		assert.Equal(t, c.want, why, "%+v", c.findings)
		if c.want != "" {
			assert.Equal(t, "oc doctor --state-dir '/tmp/a b'", cmd)
		}
	}
}

// Counts agree with their nouns and verbs ("1 line ends", "2 lines end"),
// not "1 line(s) end".
func TestCountsAreGrammatical(t *testing.T) {
	dir := t.TempDir()
	write := func(n int) string {
		var b strings.Builder
		b.WriteString("{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\r\n")
		parent := "null"
		for i := range n {
			id := string(rune('a' + i))
			b.WriteString(`{"type":"message","id":"` + id + `","parentId":` + parent + `,"message":{"role":"toolResult","toolCallId":"x` + id + `","content":"r"}}` + "\r\n")
			parent = `"` + id + `"`
		}
		p := filepath.Join(dir, string(rune('0'+n))+".jsonl")
		require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
		return p
	}
	_, out, _ := runOC(t, false, nil, "inspect", write(1))
	assert.Contains(t, out, "1 tool result answers no tool call")
	_, out, _ = runOC(t, false, nil, "inspect", write(2))
	assert.Contains(t, out, "3 lines end in CRLF")
	assert.Contains(t, out, "2 tool results answer no tool call")
	_, out, _ = runOC(t, false, doctorEnv(t), "doctor", "--state-dir", exampleState, "--no-transcripts")
	assert.Contains(t, out, "1 transcript not referenced by sessions.json")
	assert.Contains(t, out, "1 entry has no transcript")
	for _, bad := range []string{"(s) ", "1 entry have", "1 missing files"} {
		assert.NotContains(t, out, bad)
	}
}
