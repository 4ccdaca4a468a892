package repair

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/internal/transcriptgen"
)

// signalFixture is the setup of the signal tests: an oc binary, a damaged
// generated transcript, and its repaired bytes and run time from one
// uninterrupted `oc repair`.
type signalFixture struct {
	bin        string
	work       string // a temp dir for the runs
	name       string // the transcript's file name
	orig, want []byte
	full       time.Duration // how long the uninterrupted repair took
}

func newSignalFixture(t *testing.T, size int64, seed uint64) *signalFixture {
	t.Helper()
	f := &signalFixture{bin: oracletest.BuildOC(t), work: t.TempDir(), name: "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl"}
	var gen bytes.Buffer
	if _, err := transcriptgen.Write(&gen, transcriptgen.Options{Size: size, DamageRate: 0.002, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	f.orig = gen.Bytes()
	ref := f.fresh(t, "ref")
	start := time.Now()
	if out, err := exec.Command(f.bin, "repair", "-q", ref).CombinedOutput(); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	f.full = time.Since(start)
	want, err := os.ReadFile(ref)
	must(t, err)
	if bytes.Equal(want, f.orig) {
		t.Fatal("the generated file needs repair; the reference run changed nothing")
	}
	f.want = want
	return f
}

// fresh empties the folder sub of the work dir, writes the original
// transcript into it and returns its path.
func (f *signalFixture) fresh(t *testing.T, sub string) string {
	t.Helper()
	dir := filepath.Join(f.work, sub)
	must(t, os.RemoveAll(dir))
	must(t, os.MkdirAll(dir, 0o755))
	file := filepath.Join(dir, f.name)
	must(t, os.WriteFile(file, f.orig, 0o600))
	return file
}

// SIGKILL at random moments: the transcript is always exactly the original
// or exactly the repaired result, never anything in between.
func TestKillAtRandomMoments(t *testing.T) {
	kills := 200
	size := int64(6 << 20)
	if testing.Short() {
		size = 3 << 20
	}
	f := newSignalFixture(t, size, 7)
	rng := rand.New(rand.NewPCG(1, 2))
	sawOrig, sawNew := 0, 0
	for i := 0; i < kills; i++ {
		file := f.fresh(t, "kill")
		cmd := exec.Command(f.bin, "repair", "-q", "--break-stale-locks", file)
		must(t, cmd.Start())
		// kill anywhere from process start to a little after the normal end
		time.Sleep(time.Duration(rng.Int64N(int64(f.full) + int64(f.full)/4)))
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		got, err := os.ReadFile(file)
		must(t, err)
		// A backup is visible only with its manifest: a manifest-less one
		// would be taken by --undo for an old oc's backup and judged by
		// mtime only (an append within its stamp's 2 s would be dropped).
		backups, err := filepath.Glob(file + ".bak-oc-*")
		must(t, err)
		for _, b := range backups {
			if filepath.Ext(b) == ".json" {
				continue
			}
			if _, err := os.Stat(ManifestPath(b)); err != nil {
				t.Fatalf("kill %d: backup %s is visible without its manifest (%v)", i, filepath.Base(b), err)
			}
		}
		switch {
		case bytes.Equal(got, f.orig):
			sawOrig++
		case bytes.Equal(got, f.want):
			sawNew++
		default:
			t.Fatalf("kill %d: the file is neither the original nor the repaired result (%d bytes)", i, len(got))
		}
	}
	t.Logf("%d kills: %d left the original, %d the repaired file (one run takes %v)", kills, sawOrig, sawNew, f.full)
	// Kill times span the whole run, so both outcomes must have happened:
	// otherwise the kills missed the window where the file is replaced.
	if sawOrig == 0 || sawNew == 0 {
		t.Errorf("%d kills left the original %d times and the repaired file %d times: both outcomes must occur", kills, sawOrig, sawNew)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
