package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/gcpolicy"
)

// transcriptsSeen runs `oc inspect --json` and returns how many transcripts
// it inspected: a way to tell which state dir the configuration chose.
func transcriptsSeen(t *testing.T, env map[string]string, args ...string) int {
	t.Helper()
	code, out, errOut := runOC(t, false, env, append([]string{"inspect", "--json"}, args...)...)
	require.Equal(t, cli.ExitOK, code, errOut)
	var doc struct {
		Transcripts []any `json:"sessions"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	return len(doc.Transcripts)
}

// Configuration precedence: flags > OC_* env > config file > defaults.
func TestConfigPrecedence(t *testing.T) {
	example, err := filepath.Abs(exampleState)
	require.NoError(t, err)
	// A second state dir with a single transcript.
	other := t.TempDir()
	sessions := filepath.Join(other, "agents", "solo", "sessions")
	require.NoError(t, os.MkdirAll(sessions, 0o755))
	data, err := os.ReadFile(filepath.Join(example, "agents/ops/sessions/0197d5ff-0000-7111-8222-333344445555.jsonl"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(sessions, "x.jsonl"), data, 0o644))

	cfgDir := t.TempDir()
	cfg := filepath.Join(cfgDir, "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("state-dir: "+example+"\ninspect:\n  archived: true\n"), 0o644))

	// Config file only: the example state dir, with archived transcripts (5).
	assert.Equal(t, 5, transcriptsSeen(t, nil, "--config", cfg))
	// The same file found through OC_CONFIG.
	assert.Equal(t, 5, transcriptsSeen(t, map[string]string{"OC_CONFIG": cfg}))
	// ... and through $XDG_CONFIG_HOME/oc/config.yaml.
	xdg := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(xdg, "oc"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(xdg, "oc", "config.yaml"), []byte("state-dir: "+example+"\n"), 0o644))
	assert.Equal(t, 4, transcriptsSeen(t, map[string]string{"XDG_CONFIG_HOME": xdg}))
	// Env beats the file; a command's own key is OC_<COMMAND>_<FLAG>.
	assert.Equal(t, 1, transcriptsSeen(t, map[string]string{"OC_STATE_DIR": other, "OC_INSPECT_ARCHIVED": "false"}, "--config", cfg))
	// A flag beats both.
	assert.Equal(t, 4, transcriptsSeen(t, map[string]string{"OC_STATE_DIR": other}, "--config", cfg, "--state-dir", example, "--archived=false"))
	// OPENCLAW_STATE_DIR is the default when nothing of oc's is set.
	assert.Equal(t, 1, transcriptsSeen(t, map[string]string{"OPENCLAW_STATE_DIR": other}))
}

func TestBadConfigIsAUsageError(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("state-dir: [unclosed\n"), 0o644))
	code, _, errOut := runOC(t, false, nil, "inspect", "--config", cfg)
	assert.Equal(t, cli.ExitUsage, code)
	assert.Contains(t, errOut, "config.yaml")
	code, _, errOut = runOC(t, false, nil, "inspect", "--config", filepath.Join(t.TempDir(), "missing.yaml"))
	assert.Equal(t, cli.ExitUsage, code, "an explicit config file that does not exist is an error")
	assert.Contains(t, errOut, "missing.yaml")
}

func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{{"bogus"}, {"inspect", "--bogus"}, {"version", "extra"}} {
		code, out, errOut := runOC(t, false, nil, args...)
		assert.Equal(t, cli.ExitUsage, code, args)
		assert.Empty(t, out)
		assert.True(t, strings.HasPrefix(errOut, "oc: "), errOut)
	}
}

func TestHelpExitCodes(t *testing.T) {
	code, out, _ := runOC(t, false, nil, "help", "exit-codes")
	assert.Equal(t, cli.ExitOK, code)
	for _, want := range []string{"0  OK", "1  FINDINGS", "2  USAGE", "3  INCOMPLETE"} {
		assert.Contains(t, out, want)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runOC(t, false, nil, "version")
	assert.Equal(t, cli.ExitOK, code)
	assert.Contains(t, out, "follows OpenClaw 2026.5.6 (JSONL era) and 2026.9.6 (SQLite era)")
	for _, args := range [][]string{{"version", "--json"}, {"--version", "--json"}, {"--json", "--version"}} {
		code, out, _ = runOC(t, false, nil, args...)
		assert.Equal(t, cli.ExitOK, code)
		var v struct {
			Version string
			Follows []struct{ OpenClaw, Era string }
		}
		require.NoError(t, json.Unmarshal([]byte(out), &v), "%v: %s", args, out)
		assert.NotEmpty(t, v.Version)
		assert.Equal(t, "2026.5.6 jsonl 2026.9.6 sqlite", fmt.Sprint(v.Follows[0].OpenClaw, " ", v.Follows[0].Era, " ", v.Follows[1].OpenClaw, " ", v.Follows[1].Era), args)
	}
	code, out, _ = runOC(t, false, nil, "--version")
	assert.Equal(t, cli.ExitOK, code)
	assert.Contains(t, out, "2026.5.6 (JSONL era) and 2026.9.6 (SQLite era)")
	// Root help and man oc describe both eras.
	_, out, _ = runOC(t, false, nil, "--help")
	for _, want := range []string{"SQLite databases of OpenClaw 2026.8.1", "rules of 2026.9.6", "JSONL session transcripts", "2026.5.6"} {
		assert.Contains(t, out, want)
	}
	man, err := os.ReadFile("../man/man1/oc.1")
	require.NoError(t, err)
	desc := string(man)[strings.Index(string(man), ".SH DESCRIPTION"):strings.Index(string(man), ".SH OPTIONS")]
	for _, want := range []string{"SQLite databases of OpenClaw 2026.8.1", "2026.9.6", "JSONL session transcripts", "2026.5.6"} {
		assert.Contains(t, desc, want)
	}
}

// The streaming commands give the process's collector Tuner their budget;
// the others keep the default one. It runs in a test process of its own:
// the Tuner hands over to Go's defaults when the live heap passes half the
// budget, which the other tests of this package may have made it.
func TestStreamingCommandsSetTheirGCBudget(t *testing.T) {
	if os.Getenv("OC_TEST_GC_BUDGET_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestStreamingCommandsSetTheirGCBudget$", "-test.count=1")
		cmd.Env = append(os.Environ(), "OC_TEST_GC_BUDGET_CHILD=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Contains(t, string(out), "PASS")
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"type":"session","version":3,"id":"s","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/"}`+"\n"), 0o600))
	env := func(string) string { return "" }
	for _, c := range []struct {
		args []string
		want int64
	}{
		{[]string{"repair", "--check", "-q", path}, gcLimitRepair},
		{[]string{"inspect", "--json", dir}, gcLimitInspect},
		{[]string{"version"}, gcpolicy.DefaultBudget},
	} {
		tu := gcpolicy.Start(gcpolicy.DefaultBudget, env)
		ios, _, _ := cli.Test(false)
		run(context.Background(), c.args, ios, env, tu)
		budget, on := tu.Budget()
		tu.Stop()
		require.True(t, on, "%v", c.args)
		require.Equal(t, c.want, budget, "%v", c.args)
	}
}
