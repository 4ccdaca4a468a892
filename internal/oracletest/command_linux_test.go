package oracletest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// alive reports whether pid is a process that has not exited (a zombie
// waiting for its parent counts as exited).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) STATE ...: the state follows the last ')'
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// A process a run started in a session of its own (as 2026.9.6's openclaw
// CLI starts its doctor) is out of the run's process group; when the run is
// cancelled it is killed all the same, found by the mark in its
// environment.
func TestCommandKillsMarkedStragglers(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid (util-linux) is not installed")
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "straggler")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	cmd := Command(ctx, "sh", "-c", `setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! > "$1"; sleep 60`, "sh", pidFile)
	require.Error(t, cmd.Run(), "the run ended without error; want it killed")

	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pid) {
		killMarked(cmd.Env[len(cmd.Env)-1]) // do not leave it behind
		t.Fatalf("the straggler %d outlived the cancelled run", pid)
	}
}

// A process's environment holds a variable only as a whole entry.
func TestHasVariable(t *testing.T) {
	env := []byte("A=1\x00OC_ORACLE_RUN=00ff\x00B=\x00")
	require.True(t, hasVariable(env, "A=1"))
	require.True(t, hasVariable(env, "OC_ORACLE_RUN=00ff"))
	require.True(t, hasVariable(env, "B="))
	for _, v := range []string{"A=", "=1", "A=12", "OC_ORACLE_RUN=00f", "C=1", ""} {
		require.False(t, hasVariable(env, v), "%q", v)
	}
	require.True(t, hasVariable([]byte("X=1"), "X=1"), "the last entry needs no NUL after it")
}

// Command's run carries its own mark, one the test process does not.
func TestCommandMarksItsRun(t *testing.T) {
	a := Command(context.Background(), "true")
	b := Command(context.Background(), "true")
	markA, markB := a.Env[len(a.Env)-1], b.Env[len(b.Env)-1]
	require.True(t, strings.HasPrefix(markA, RunMark+"="))
	require.NotEqual(t, markA, markB)
	require.NotContains(t, os.Environ(), markA)
}
