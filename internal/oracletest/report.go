package oracletest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReportDirEnv names the folder where tests record what they compared and
// what they skipped, one tab-separated line per event in one file per test
// process. scripts/test sets it and prints the totals after `go test`,
// because go test shows a passing package's output only with -v.
const ReportDirEnv = "OC_ORACLE_REPORT"

// LiveEnv opts in to the slow differential tests that run the oracle live
// (minutes each); CI sets it.
const LiveEnv = "OC_LIVE_ORACLE"

// FullLiveEnv also re-asks the oracle for every stored answer of the largest
// answer files (fuzz reproducers, new-API payloads): tens of minutes, so it is
// not part of CI, whose stored-answer comparisons of the same jobs always run.
const FullLiveEnv = "OC_LIVE_ORACLE_FULL"

// InCI reports whether the tests run in CI (CI set to anything but
// "false"/"0", as CI services set it).
func InCI() bool {
	v := strings.TrimSpace(os.Getenv("CI"))
	return v != "" && v != "false" && v != "0"
}

// Unavailable stops a test that needs ../shared or an oracle that is not
// there: a failure in CI, a recorded skip elsewhere.
func Unavailable(t testing.TB, reason string) {
	t.Helper()
	if InCI() {
		t.Fatalf("CI: %s", reason)
	}
	record(t, "skipped", firstLine(reason))
	t.Skip("SKIP: " + reason)
}

// NotRequested skips a re-check CI does not run either (the opt-in
// OC_LIVE_ORACLE_FULL runs), recorded so that scripts/test lists it. A test
// CI must run stops through Unavailable or RequireLive instead.
func NotRequested(t testing.TB, reason string) {
	t.Helper()
	record(t, "skipped", firstLine(reason))
	t.Skip("SKIP: " + reason)
}

// RequireLive skips (and records the skip of) a test that runs the oracle
// live unless OC_LIVE_ORACLE is set. In CI it must be set.
func RequireLive(t testing.TB, what string) {
	t.Helper()
	if os.Getenv(LiveEnv) != "" && !testing.Short() {
		return
	}
	Unavailable(t, fmt.Sprintf("%s: live oracle run not requested (set %s=1, without -short)", what, LiveEnv))
}

// Compared records that a differential test made n comparisons against an
// oracle's answers and fails the test unless n is exactly want, the number
// its inputs call for. want must be positive: a differential test that can
// pass after comparing nothing proves nothing. It reports whether the count
// was right.
func Compared(t testing.TB, what string, n, want int) bool {
	t.Helper()
	return exact(t, "compared", what, n, want)
}

// Checked is Compared for a consistency check that runs on the oracles'
// data (databases 2026.9.6 wrote, the real corpus) but compares two of oc's
// own readings (a fast path against its reference), not oc against an
// oracle: the count must be exact all the same, and scripts/test totals it
// apart from the oracle comparisons so that their total stays true.
func Checked(t testing.TB, what string, n, want int) bool {
	t.Helper()
	return exact(t, "checked", what, n, want)
}

func exact(t testing.TB, kind, what string, n, want int) bool {
	t.Helper()
	ok := false
	switch {
	case want <= 0:
		t.Errorf("%s: the inputs call for %d comparisons: a test that checks nothing proves nothing", what, want)
	case n != want:
		t.Errorf("%s: %s %d, the inputs call for exactly %d", what, kind, n, want)
	default:
		ok = true
	}
	t.Logf("%s: %d of %d %s", what, n, want, kind)
	record(t, kind, fmt.Sprintf("%s\t%d\t%d", what, n, want))
	return ok
}

// record appends one line to this process's report file, when scripts/test
// asked for one. A test that cannot write it fails: the summary would lie.
func record(t testing.TB, kind, text string) {
	t.Helper()
	dir := os.Getenv(ReportDirEnv)
	if dir == "" {
		return
	}
	pkg, _ := os.Getwd() // go test runs a package's tests in its folder
	if root, err := moduleRoot(pkg); err == nil {
		if rel, err := filepath.Rel(root, pkg); err == nil {
			pkg = "./" + filepath.ToSlash(rel)
		}
	}
	line := fmt.Sprintf("%s\t%s\t%s\t%s\n", kind, pkg, t.Name(), strings.ReplaceAll(text, "\n", " "))
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("%d.tsv", os.Getpid())), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatalf("oracletest report: %v", err)
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		t.Fatalf("oracletest report: %v", err)
	}
}

func moduleRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
	}
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
