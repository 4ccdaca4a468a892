package cmd

import (
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/cli"
)

// copyState copies testdata/repair/state into a temp dir and returns it.
func copyState(t *testing.T) string {
	t.Helper()
	return copyTreeTo(t, filepath.Join("..", "testdata", "repair", "state"))
}

var stampRE = regexp.MustCompile(`\d{8}T\d{6}Z`)

func normalize(s, state string) string {
	return stampRE.ReplaceAllString(strings.ReplaceAll(s, state, "$STATE"), "STAMP")
}

type fileState struct {
	sum   [32]byte
	mtime time.Time
}

func snapshot(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	require.NoError(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = fileState{sha256.Sum256(b), info.ModTime()}
		return err
	}))
	return out
}

func TestRepairCheckNeverWritesGolden(t *testing.T) {
	state := copyState(t)
	before := snapshot(t, state)
	code, out, errOut := runOC(t, false, nil, "repair", "--check", "--state-dir", state)
	assert.Equal(t, cli.ExitFindings, code, errOut)
	assert.Equal(t, before, snapshot(t, state), "--check must not write anything")
	golden(t, "repair-check.txt", []byte(normalize(out, state)))

	code, out, _ = runOC(t, false, nil, "repair", "--check", "--json", "--state-dir", state)
	assert.Equal(t, cli.ExitFindings, code)
	var doc struct {
		Files []struct {
			Path    string             `json:"path"`
			Changed bool               `json:"changed"`
			Rules   map[string]int     `json:"rules"`
			Lines   map[string][]int64 `json:"lines"`
		} `json:"files"`
		Totals map[string]any `json:"totals"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Files, 3)
	assert.Equal(t, float64(2), doc.Totals["needsRepair"])
	golden(t, "repair-check.json", []byte(normalize(out, state)))
	assert.Equal(t, before, snapshot(t, state))

	// A clean file alone: exit 0.
	clean := filepath.Join(state, "agents", "main", "sessions", "11111111-2222-4333-8444-555555555555.jsonl")
	code, _, errOut = runOC(t, false, nil, "repair", "--check", clean)
	assert.Equal(t, cli.ExitOK, code, errOut)
}

func TestRepairDryRunGolden(t *testing.T) {
	state := copyState(t)
	before := snapshot(t, state)
	code, out, errOut := runOC(t, false, nil, "repair", "--dry-run", "--state-dir", state)
	assert.Equal(t, cli.ExitOK, code, errOut)
	assert.Equal(t, before, snapshot(t, state), "--dry-run must not write anything")
	golden(t, "repair-dry-run.txt", []byte(normalize(out, state)))
}

func TestRepairApplyTwiceAndUndo(t *testing.T) {
	state := copyState(t)
	sessions := filepath.Join(state, "agents", "main", "sessions")
	damaged := filepath.Join(sessions, "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl")
	orig, _ := os.ReadFile(damaged)
	code, out, errOut := runOC(t, false, nil, "repair", "--state-dir", state)
	require.Equal(t, cli.ExitOK, code, errOut)
	golden(t, "repair-apply.txt", []byte(normalize(out, state)))
	repaired, _ := os.ReadFile(damaged)
	assert.NotEqual(t, orig, repaired)

	// Second run: nothing changes, no new file.
	before := snapshot(t, state)
	code, out, _ = runOC(t, false, nil, "repair", "--state-dir", state)
	assert.Equal(t, cli.ExitOK, code)
	assert.Contains(t, out, "0 repaired")
	assert.Equal(t, before, snapshot(t, state))
	code, _, _ = runOC(t, false, nil, "repair", "--check", "--state-dir", state)
	assert.Equal(t, cli.ExitOK, code, "a repaired state dir passes --check")

	code, out, errOut = runOC(t, false, nil, "repair", "--undo", damaged)
	require.Equal(t, cli.ExitOK, code, errOut)
	assert.Contains(t, out, "restored")
	undone, _ := os.ReadFile(damaged)
	assert.Equal(t, orig, undone)
}

func TestRepairOpenClawRuleSetLeavesBadHeader(t *testing.T) {
	state := copyState(t)
	code, out, errOut := runOC(t, false, nil, "repair", "--rules", "openclaw-2026.5.6", "--state-dir", state)
	// The file 2026.5.6 leaves alone is damaged: --check flags it, so repair
	// reports it as unrepairable with this rule set (exit 3), never as done.
	assert.Equal(t, cli.ExitIncomplete, code, errOut)
	assert.Contains(t, out, "unrepairable: invalid session header")
	assert.Contains(t, errOut, "unrepairable: invalid session header")
	golden(t, "repair-openclaw.txt", []byte(normalize(out, state)))
}

func TestRepairLockedFileExitBusy(t *testing.T) {
	state := copyState(t)
	damaged := filepath.Join(state, "agents", "main", "sessions", "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl")
	orig, _ := os.ReadFile(damaged)
	lock := damaged + ".lock"
	require.NoError(t, os.WriteFile(lock, []byte(`{"pid": `+itoa(os.Getpid())+`, "createdAt": "`+time.Now().UTC().Format(time.RFC3339)+`"}`), 0o644))
	code, _, errOut := runOC(t, false, nil, "repair", damaged)
	assert.Equal(t, cli.ExitBusy, code)
	oneLineError(t, errOut)
	assert.Contains(t, errOut, "locked by a live process")
	got, _ := os.ReadFile(damaged)
	assert.Equal(t, orig, got)
	// --check and --dry-run take no lock and do not read a file being written
	for _, mode := range []string{"--check", "--dry-run"} {
		code, out, errOut := runOC(t, false, nil, "repair", mode, damaged)
		assert.Equal(t, cli.ExitBusy, code, "%s: %s", mode, errOut)
		assert.Contains(t, out, "busy")
		assert.NotContains(t, out, "malformed-line", "%s read a file whose lock is live", mode)
		_, err := os.Stat(lock)
		assert.NoError(t, err, "%s must leave the gateway's lock alone", mode)
	}
	// --json says which file was busy
	code, out, _ := runOC(t, false, nil, "repair", "--check", "--json", damaged)
	assert.Equal(t, cli.ExitBusy, code)
	var doc struct {
		Files  []struct{ Busy bool } `json:"files"`
		Totals struct{ Busy, Errors int }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Files, 1)
	assert.True(t, doc.Files[0].Busy)
	assert.Equal(t, 1, doc.Totals.Busy)
	assert.Equal(t, 0, doc.Totals.Errors)
	// a lock released while --wait waits: the check reads the file
	go func() {
		time.Sleep(300 * time.Millisecond)
		_ = os.Remove(lock)
	}()
	code, _, errOut = runOC(t, false, nil, "repair", "--check", "--wait", "20s", damaged)
	assert.Equal(t, cli.ExitFindings, code, errOut)
	// a stale lock (dead pid) does not stop a check
	require.NoError(t, os.WriteFile(lock, []byte(`{"pid": 999999999, "createdAt": "`+time.Now().UTC().Format(time.RFC3339)+`"}`), 0o644))
	code, _, errOut = runOC(t, false, nil, "repair", "--check", damaged)
	assert.Equal(t, cli.ExitFindings, code, errOut)
}

func TestRepairUsageErrors(t *testing.T) {
	code, _, errOut := runOC(t, false, nil, "repair", "--rules", "bogus", "x")
	assert.Equal(t, cli.ExitUsage, code)
	assert.Contains(t, errOut, "unknown rule set")
	code, _, _ = runOC(t, false, nil, "repair", "--undo")
	assert.Equal(t, cli.ExitUsage, code)
	code, _, errOut = runOC(t, false, nil, "repair", "/nonexistent/x.jsonl")
	assert.Equal(t, cli.ExitIncomplete, code)
	oneLineError(t, errOut)
}

func TestHelpRepairRulesGolden(t *testing.T) {
	code, out, _ := runOC(t, false, nil, "help", "repair-rules")
	assert.Equal(t, cli.ExitOK, code)
	for _, id := range []string{"malformed-line", "empty-assistant-error", "blank-user-text", "header-rebuild", "relink-parent", "salvage-glued-entries"} {
		assert.Contains(t, out, id)
	}
	golden(t, "help-repair-rules.txt", []byte(out))
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// A cron run log is not a transcript: named, it is an error (exit 3) and
// never written; in a folder it is skipped and reported (exit 0).
func TestRepairCronRunLogNotATranscript(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "b563dae7-0170-4929-8ba3-bbc8f9b405ed.jsonl")
	body := `{"ts":1774634708134,"jobId":"b563dae7-0170-4929-8ba3-bbc8f9b405ed","action":"finished","status":"ok","summary":"done"}` + "\n" +
		`{"ts":1774634709134,"jobId":"b563dae7-0170-4929-8ba3-bbc8f9b405ed","action":"finished","status":"error","error":"x"}` + "\n"
	require.NoError(t, os.WriteFile(log, []byte(body), 0o600))
	code, _, errOut := runOC(t, false, nil, "repair", log)
	assert.Equal(t, cli.ExitIncomplete, code)
	oneLineError(t, errOut)
	assert.Contains(t, errOut, "not an OpenClaw transcript")
	code, out, _ := runOC(t, false, nil, "repair", dir)
	assert.Equal(t, cli.ExitOK, code)
	assert.Contains(t, out, "skipped: not an OpenClaw transcript")
	got, _ := os.ReadFile(log)
	assert.Equal(t, body, string(got))
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "no backup, no quarantine")
}

// --undo refuses (exit 3) after the file grew; --force restores and keeps it.
func TestRepairUndoRefusesAppendedThenForce(t *testing.T) {
	state := copyState(t)
	damaged := filepath.Join(state, "agents", "main", "sessions", "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl")
	orig, _ := os.ReadFile(damaged)
	code, _, _ := runOC(t, false, nil, "repair", damaged)
	require.Equal(t, cli.ExitOK, code)
	f, err := os.OpenFile(damaged, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, _ = f.WriteString(`{"type":"message","id":"new","parentId":null,"message":{"role":"user","content":"hi"}}` + "\n")
	require.NoError(t, f.Close())
	code, _, errOut := runOC(t, false, nil, "repair", "--undo", damaged)
	assert.Equal(t, cli.ExitIncomplete, code)
	assert.Contains(t, errOut, "bytes appended since the repair")
	code, out, _ := runOC(t, false, nil, "repair", "--undo", "--force", damaged)
	assert.Equal(t, cli.ExitOK, code)
	assert.Contains(t, out, "kept as")
	got, _ := os.ReadFile(damaged)
	assert.Equal(t, orig, got)
	code, _, _ = runOC(t, false, nil, "repair", "--force", damaged)
	assert.Equal(t, cli.ExitUsage, code, "--force without --undo")
}

// A FIFO named like a transcript (or like its lock) never hangs repair
// --check, --dry-run, repair or inspect: exit 3, naming the file.
func TestFIFOsNeverHangCommands(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	for _, args := range [][]string{
		{"repair", "--check", fifo}, {"repair", "--dry-run", fifo}, {"repair", fifo}, {"inspect", fifo},
		{"repair", "--check", dir}, {"inspect", dir},
	} {
		type res struct {
			code   int
			errOut string
		}
		ch := make(chan res, 1)
		go func() {
			code, _, errOut := runOC(t, false, nil, args...)
			ch <- res{code, errOut}
		}()
		select {
		case r := <-ch:
			assert.Equal(t, cli.ExitIncomplete, r.code, "%v", args)
			assert.Contains(t, r.errOut, "not a regular file", "%v", args)
		case <-time.After(10 * time.Second):
			t.Fatalf("oc %v hung on a FIFO", args)
		}
	}
}
