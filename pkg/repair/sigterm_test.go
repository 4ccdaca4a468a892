package repair

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Item 6: SIGTERM at random moments of `oc repair` on a large transcript:
// oc stops cleanly. No lock and no temporary file is left; the transcript is
// exactly the original (and then nothing oc made is left) or exactly the
// repaired result (with its backup, quarantine and manifest); the exit code
// is 0 (finished) or 3 (interrupted). Both outcomes must be seen.
func TestSIGTERMAtRandomMoments(t *testing.T) {
	runs := 30
	if testing.Short() {
		runs = 12
	}
	f := newSignalFixture(t, 4<<20, 11)
	full := f.full
	rng := rand.New(rand.NewPCG(3, 4))
	sawOrig, sawNew, sawInterrupted := 0, 0, 0
	// The signal lands at a random moment between shortly after start-up and
	// a little after the reference run's end. A loaded machine runs slower than
	// the reference run: while one outcome is missing after the planned runs,
	// the window widens (up to 8x) and more runs follow (at most 4x as many),
	// so that the test needs both outcomes without depending on timing.
	window := float64(full)
	for i := 0; i < runs || (i < 4*runs && (sawNew == 0 || sawOrig == 0 || sawInterrupted == 0)); i++ {
		if i >= runs/2 && sawNew == 0 && window < 8*float64(full) {
			window *= 1.3
		}
		if i >= runs/2 && sawOrig == 0 && window > float64(full)/4 {
			window /= 1.3
		}
		file := f.fresh(t, "term")
		dir := filepath.Dir(file)
		cmd := exec.Command(f.bin, "repair", "-q", file)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		must(t, cmd.Start())
		// from well after start-up (the handler is installed) to a little after the normal end
		time.Sleep(full/10 + time.Duration(rng.Int64N(int64(window))))
		_ = cmd.Process.Signal(syscall.SIGTERM)
		err := cmd.Wait()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		got, rerr := os.ReadFile(file)
		must(t, rerr)
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
			if strings.HasSuffix(e.Name(), ".lock") || strings.Contains(e.Name(), ".oc-tmp-") {
				t.Errorf("run %d: %s left behind (exit %d, %s)", i, e.Name(), code, stderr.String())
			}
		}
		switch {
		case bytes.Equal(got, f.orig):
			sawOrig++
			if len(names) != 1 {
				t.Errorf("run %d: interrupted before the replacement, but oc's files are left: %v", i, names)
			}
			if code != 3 && code != -1 {
				t.Errorf("run %d: interrupted: exit %d, want 3 (%s)", i, code, stderr.String())
			}
			if code == 3 {
				sawInterrupted++
				if !strings.Contains(stderr.String(), "interrupted") {
					t.Errorf("run %d: stderr does not say interrupted: %q", i, stderr.String())
				}
			}
		case bytes.Equal(got, f.want):
			sawNew++
			if len(names) != 4 {
				t.Errorf("run %d: repaired; want file, backup, quarantine and manifest, got %v", i, names)
			}
			if code != 0 && code != 3 {
				t.Errorf("run %d: exit %d", i, code)
			}
		default:
			t.Fatalf("run %d: the file is neither the original nor the repaired result (%d bytes)", i, len(got))
		}
	}
	t.Logf("%d SIGTERMs: %d left the original (%d exited 3 after cleaning up), %d the repaired file (one run takes %v)", sawOrig+sawNew, sawOrig, sawInterrupted, sawNew, full)
	if sawOrig == 0 || sawNew == 0 || sawInterrupted == 0 {
		t.Fatalf("both outcomes must be observed: original %d (clean exit 3: %d), repaired %d", sawOrig, sawInterrupted, sawNew)
	}
}
