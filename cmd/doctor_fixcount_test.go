package cmd

import (
	"os"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/fakeopenclaw"
)

// When every openclaw call fails, the human report counts failures as
// failures ("0 fixed, 2 failed"), names each command with its stderr, and
// exits 3; it never says a fix was made.
func TestDoctorFixCountsEveryFailure(t *testing.T) {
	state := cronFixState(t, "")
	unsetInstallSelectors(t)
	bin, _ := fakeopenclaw.Install(t, fakeopenclaw.Spec{Gateways: []fakeopenclaw.Gateway{{Port: 18789, StateDir: state}}, Fail: map[string]string{"edit": "Error: cron.update rejected the patch"}})
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	env := doctorEnv(t)
	env["PATH"] = os.Getenv("PATH")
	code, out, stderr := runOC(t, false, env, "doctor", "--state-dir", state, "--fix", "--yes")
	flat := strings.Join(strings.Fields(out), " ")
	if code != cli.ExitIncomplete || !strings.Contains(flat, "Cron fixes: 0 fixed, 2 failed") || !strings.Contains(flat, "cron fixes: 0 fixed, 2 failed") ||
		strings.Count(out, "failed: the command above exited 1; its stderr:") != 2 || strings.Count(out, "| Error: cron.update rejected the patch") != 2 ||
		!strings.Contains(stderr, "2 of 2 cron fixes not applied (0 fixed, 2 failed)") {
		t.Errorf("exit %d, stderr %q:\n%s", code, stderr, out)
	}
	if strings.Contains(flat, "fixed through") || strings.Contains(out, "oc doctor --fix") {
		t.Errorf("a failed fix is reported as made, or the command just run is advised:\n%s", out)
	}
}
