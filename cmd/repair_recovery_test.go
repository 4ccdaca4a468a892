package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/cli"
)

// A state dir with transcripts sessions.json does not name (issue 13): `oc
// repair --check` flags the ones OpenClaw 2026.8+'s import would archive
// without importing (exit 1) and names the one repair cannot fix; `oc
// repair` fixes the others and exits 3 for that one; afterwards --check
// flags only it.
func TestRepairUnregisteredTranscripts(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, "agents", "main", "sessions")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	const (
		reg      = "0197e000-0000-7000-8000-000000000001"
		nonObj   = "0197e000-0000-7000-8000-000000000002"
		mismatch = "0197e000-0000-7000-8000-000000000003"
		twoHdr   = "0197e000-0000-7000-8000-000000000004"
		noMsg    = "0197e000-0000-7000-8000-000000000005"
	)
	hdr := func(id string) string {
		return `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-05-17T06:45:00.000Z","cwd":"/w"}`
	}
	user := `{"type":"message","id":"m1","parentId":null,"timestamp":"2026-05-17T06:45:01.000Z","message":{"role":"user","content":"hi"}}`
	asst := `{"type":"message","id":"m2","parentId":"m1","timestamp":"2026-05-17T06:45:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}`
	write := func(id string, ls ...string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(strings.Join(ls, "\n")+"\n"), 0o600))
	}
	write(reg, hdr(reg), `[1,2]`, user, asst) // registered: 2026.8+ stores [1,2] as an opaque event
	write(nonObj, hdr(nonObj), user, `[1,2]`, `"text"`, asst)
	write(mismatch, hdr("copied-from-elsewhere"), user, asst)
	write(twoHdr, hdr(twoHdr), user, hdr("other"), asst)
	write(noMsg, hdr("no-messages-here"), `[1,2]`)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sessions.json"),
		[]byte(`{"agent:main:main":{"sessionId":"`+reg+`","updatedAt":1770000000000}}`), 0o600))

	before := snapshot(t, state)
	code, out, errOut := runOC(t, false, nil, "repair", "--check", "--state-dir", state)
	assert.Equal(t, cli.ExitFindings, code, errOut)
	assert.Equal(t, before, snapshot(t, state), "--check must not write anything")
	golden(t, "repair-check-unregistered.txt", []byte(normalize(out, state)))

	code, out, errOut = runOC(t, false, nil, "repair", "--state-dir", state)
	assert.Equal(t, cli.ExitIncomplete, code, errOut)
	oneLineError(t, errOut)
	assert.Contains(t, errOut, twoHdr+".jsonl: unrepairable: not in sessions.json and a second session header at line 3")
	golden(t, "repair-apply-unregistered.txt", []byte(normalize(out, state)))
	got, _ := os.ReadFile(filepath.Join(dir, mismatch+".jsonl"))
	assert.Equal(t, hdr(mismatch)+"\n"+user+"\n"+asst+"\n", string(got))

	code, out, _ = runOC(t, false, nil, "repair", "--check", "--state-dir", state)
	assert.Equal(t, cli.ExitFindings, code)
	assert.Contains(t, out, "1 needs repair (0 fixable, 1 unrepairable)")
	require.NoError(t, os.Remove(filepath.Join(dir, twoHdr+".jsonl")))
	code, out, errOut = runOC(t, false, nil, "repair", "--check", "--state-dir", state)
	assert.Equal(t, cli.ExitOK, code, out+errOut)
}
