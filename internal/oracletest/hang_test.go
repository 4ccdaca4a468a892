//go:build unix

package oracletest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// recorder is a testing.TB that keeps what it is told; Fatalf ends the
// goroutine, as testing's does.
type recorder struct {
	testing.TB
	logs, fatals []string
}

func (r *recorder) Helper() {}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
	runtime.Goexit()
}

// runRecorded runs RunOnceMoreIfHung with rec on a goroutine of its own
// (Fatalf ends it) and returns the runs the script counted and its error.
func runRecorded(t *testing.T, script string) (rec *recorder, runs int, err error) {
	dir := t.TempDir()
	rec = &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		err = RunOnceMoreIfHung(rec, 500*time.Millisecond, func(ctx context.Context) *exec.Cmd {
			cmd := Command(ctx, "sh", "-c", "echo run >> runs; "+script)
			cmd.Dir = dir
			return cmd
		})
	}()
	<-done
	b, _ := os.ReadFile(filepath.Join(dir, "runs"))
	return rec, strings.Count(string(b), "run"), err
}

// A run that hangs once is run again, and its second answer counts.
func TestRunOnceMoreIfHungRetriesAHang(t *testing.T) {
	rec, runs, err := runRecorded(t, `[ "$(wc -l < runs)" -gt 1 ] && exit 0; sleep 60`)
	require.NoError(t, err)
	require.Equal(t, 2, runs)
	require.Len(t, rec.logs, 1)
	require.Contains(t, rec.logs[0], "running it once more")
	require.Empty(t, rec.fatals)
}

// A run that fails without hanging is not retried: its error is the answer.
func TestRunOnceMoreIfHungKeepsAFailure(t *testing.T) {
	rec, runs, err := runRecorded(t, "exit 3")
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, 3, ee.ExitCode())
	require.Equal(t, 1, runs)
	require.Empty(t, rec.logs)
}

// Two hangs fail the test.
func TestRunOnceMoreIfHungFailsOnTwoHangs(t *testing.T) {
	rec, runs, _ := runRecorded(t, "sleep 60")
	require.Equal(t, 2, runs)
	require.Len(t, rec.fatals, 1)
	require.Contains(t, rec.fatals[0], "hung twice")
}
