package cmd

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/openclaw-tools/oc/internal/cli"
)

func fileSum(t *testing.T, p string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// Writing needs --fix on the command line and, without a terminal, --yes:
// neither the environment nor the config file can switch writing on.
func TestDoctorWritesOnlyWhenTold(t *testing.T) {
	cfgDir := t.TempDir()
	cfgAll := filepath.Join(cfgDir, "all.yaml")
	if err := os.WriteFile(cfgAll, []byte("doctor:\n  fix: true\n  yes: true\n  non-interactive: true\n  force: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfgYes := filepath.Join(cfgDir, "yes.yaml")
	if err := os.WriteFile(cfgYes, []byte("doctor:\n  yes: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		env      map[string]string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"--fix without --yes, stdin not a terminal", nil, []string{"--fix"}, cli.ExitUsage, "--yes"},
		{"--fix --json without --yes", nil, []string{"--fix", "--json"}, cli.ExitUsage, "--yes"},
		{"--fix --non-interactive without --yes", nil, []string{"--fix", "--non-interactive"}, cli.ExitUsage, "--yes"},
		{"OC_DOCTOR_FIX=1", map[string]string{"OC_DOCTOR_FIX": "1"}, nil, cli.ExitFindings, "ignoring doctor.fix"},
		{"OC_DOCTOR_FIX=1 OC_DOCTOR_YES=1", map[string]string{"OC_DOCTOR_FIX": "1", "OC_DOCTOR_YES": "true"}, nil, cli.ExitFindings, "ignoring doctor.fix, doctor.yes"},
		{"config doctor.fix and doctor.yes", map[string]string{"OC_CONFIG": cfgAll}, nil, cli.ExitFindings, "ignoring doctor.fix"},
		{"--config with doctor.fix", nil, []string{"--config", cfgAll}, cli.ExitFindings, "ignoring doctor.fix"},
		{"--fix with doctor.yes from config", map[string]string{"OC_CONFIG": cfgYes}, []string{"--fix"}, cli.ExitUsage, "--yes"},
		{"--fix with OC_DOCTOR_YES", map[string]string{"OC_DOCTOR_YES": "1"}, []string{"--fix"}, cli.ExitUsage, "--yes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := doctorFixture(t, "example4-dm-to-discord")
			store := filepath.Join(dir, "cron", "jobs.json")
			before := fileSum(t, store)
			env := doctorEnv(t)
			for k, v := range c.env {
				env[k] = v
			}
			code, out, errOut := runOC(t, false, env, append([]string{"doctor", "--state-dir", dir}, c.args...)...)
			if code != c.wantCode {
				t.Errorf("exit %d, want %d; stderr %q", code, c.wantCode, errOut)
			}
			if !strings.Contains(errOut, c.wantErr) {
				t.Errorf("stderr %q does not say %q", errOut, c.wantErr)
			}
			if fileSum(t, store) != before {
				t.Errorf("jobs.json was written; stdout:\n%s", out)
			}
			if m, _ := filepath.Glob(store + ".pre-oc-doctor.*"); len(m) > 0 {
				t.Errorf("backups written: %v", m)
			}
		})
	}
	// And --fix --yes on the command line does write.
	dir := doctorFixture(t, "example4-dm-to-discord")
	store := filepath.Join(dir, "cron", "jobs.json")
	before := fileSum(t, store)
	if code, _, errOut := runOC(t, false, doctorEnv(t), "doctor", "--state-dir", dir, "--fix", "--yes"); code != cli.ExitOK {
		t.Fatalf("--fix --yes: exit %d: %s", code, errOut)
	}
	if fileSum(t, store) == before {
		t.Error("--fix --yes wrote nothing")
	}
}

// openPTY opens a pseudo-terminal pair (Linux /dev/ptmx).
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open pts: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// On a terminal, --fix without --yes asks, and writes only on "y".
func TestDoctorFixAsksOnATerminal(t *testing.T) {
	for _, answer := range []string{"n", "y"} {
		t.Run(answer, func(t *testing.T) {
			master, slave := openPTY(t)
			dir := doctorFixture(t, "example4-dm-to-discord")
			store := filepath.Join(dir, "cron", "jobs.json")
			before := fileSum(t, store)
			if _, err := master.Write([]byte(answer + "\n")); err != nil {
				t.Fatal(err)
			}
			ios, out, _ := cli.Test(false)
			ios.In = slave
			env := doctorEnv(t)
			code := Run(context.Background(), []string{"doctor", "--state-dir", dir, "--fix"}, ios, func(k string) string {
				if v, ok := env[k]; ok {
					return v
				}
				return ""
			})
			if !strings.Contains(out.String(), "Apply 1 fix now?") {
				t.Fatalf("no question asked (exit %d):\n%s", code, out.String())
			}
			written := fileSum(t, store) != before
			if written != (answer == "y") {
				t.Errorf("answer %q: written %v (exit %d)", answer, written, code)
			}
		})
	}
}

// `sudo oc doctor --fix` with the gateway running as another user, started
// through a symlink to the state dir: exit 3, naming the process; nothing written.
func TestDoctorRefusesGatewayOfAnotherUser(t *testing.T) {
	dir := doctorFixture(t, "example4-dm-to-discord")
	link := filepath.Join(t.TempDir(), "openclaw-link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	env := doctorEnv(t)
	lockDir := filepath.Join(env["TMPDIR"], "openclaw-12345")
	if err := os.Mkdir(lockDir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(link, "openclaw.json")
	lock := fmt.Sprintf(`{"pid":%d,"createdAt":"2026-02-18T07:00:00.000Z","configPath":%q}`, os.Getpid(), cfg)
	if err := os.WriteFile(filepath.Join(lockDir, "gateway.00000000.lock"), []byte(lock), 0o600); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "cron", "jobs.json")
	before := fileSum(t, store)
	code, _, errOut := runOC(t, false, env, "doctor", "--state-dir", dir, "--fix", "--yes")
	if code != cli.ExitBusy || !strings.Contains(errOut, fmt.Sprintf("live process %d", os.Getpid())) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if fileSum(t, store) != before {
		t.Error("jobs.json written while the gateway runs")
	}
}
