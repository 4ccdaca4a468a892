package cmd

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/cli"
)

// TestDoctorSignalChild is not a test: it is the child process of
// TestDoctorFixUnderSIGTERM, an `oc` whose context is cancelled by SIGINT and
// SIGTERM (as cmd.Execute does it).
func TestDoctorSignalChild(t *testing.T) {
	args := os.Getenv("OC_DOCTOR_SIGNAL_ARGS")
	if args == "" {
		t.Skip("helper process for TestDoctorFixUnderSIGTERM")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(Run(ctx, strings.Split(args, "\n"), cli.System(), os.Getenv))
}

// SIGTERM at a random moment of `oc doctor --fix --yes`: jobs.json is the
// original or the finished migration (with its backup and report), and no
// temp file or lock is left.
func TestDoctorFixUnderSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]int{}
	for round := 0; round < 12; round++ {
		dir := doctorFixture(t, "example4-dm-to-discord")
		store := filepath.Join(dir, "cron", "jobs.json")
		original, _ := os.ReadFile(store)
		cmd := exec.Command(exe, "-test.run=^TestDoctorSignalChild$")
		cmd.Env = append(os.Environ(),
			"OC_DOCTOR_SIGNAL_ARGS="+strings.Join([]string{"doctor", "--state-dir", dir, "--fix", "--yes", "--no-transcripts"}, "\n"),
			"TMPDIR="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "SOURCE_DATE_EPOCH=1771400000")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rand.IntN(120)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		err := cmd.Wait()
		var ee *exec.ExitError
		code := 0
		if errors.As(err, &ee) {
			code = ee.ExitCode() // -1: killed by the signal before oc's handler was installed
		}
		var left []string
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && (strings.Contains(d.Name(), ".oc-tmp-") || strings.HasSuffix(d.Name(), ".tmp") || strings.HasSuffix(d.Name(), ".lock") || strings.Contains(d.Name(), ".oc-stale-")) {
				left = append(left, p)
			}
			return nil
		})
		if len(left) > 0 {
			t.Errorf("round %d (exit %d): left behind %v", round, code, left)
		}
		raw, _ := os.ReadFile(store)
		backups, _ := filepath.Glob(store + ".pre-oc-doctor.*")
		reports, _ := filepath.Glob(filepath.Join(dir, "cron", "doctor-session-target-migration-*"))
		switch {
		case bytes.Equal(raw, original):
			if len(backups) > 0 || len(reports) > 0 {
				t.Errorf("round %d (exit %d): store untouched but backups %v reports %v", round, code, backups, reports)
			}
			if code == 0 {
				t.Errorf("round %d: exit 0 but nothing migrated; stderr %s", round, stderr.String())
			}
			outcomes["untouched"]++
		case strings.Contains(string(raw), `"sessionTarget": "isolated"`):
			if len(backups) != 1 || len(reports) != 1 {
				t.Errorf("round %d (exit %d): migrated but backups %v reports %v", round, code, backups, reports)
			} else if b, _ := os.ReadFile(backups[0]); !bytes.Equal(b, original) {
				t.Errorf("round %d: the backup is not the original", round)
			}
			outcomes["finished"]++
		default:
			t.Errorf("round %d (exit %d): jobs.json is neither the original nor migrated:\n%s", round, code, raw)
		}
		if code == cli.ExitIncomplete {
			outcomes["interrupted (exit 3)"]++
			if !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("round %d: exit 3 without saying it was interrupted: %s", round, stderr.String())
			}
		}
	}
	t.Logf("outcomes: %v", outcomes)
}
