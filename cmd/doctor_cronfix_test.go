package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/fakeopenclaw"
	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/doctor"
)

// TestFakeOpenClaw is not a test: it is the fake `openclaw` the doctor
// --fix tests put first on PATH (internal/fakeopenclaw).
func TestFakeOpenClaw(t *testing.T) { fakeopenclaw.Main(t) }

// cronFixState is the 9.6 example state in dir (a fresh one when ""): two
// cron jobs with a fix, IN_CHAT c2a7e9f0 and ELSEWHERE e5c2a3b4.
func cronFixState(t *testing.T, dir string) string {
	t.Helper()
	state := oracletest.Fixture96State(t, "example-state")
	if dir == "" {
		return state
	}
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(state, dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

const (
	inChatJob    = "c2a7e9f0-1b3d-4e5f-8a9b-0c1d2e3f4a5b"
	elsewhereJob = "e5c2a3b4-7d8e-4f90-a1b2-c3d4e5f6a7b8"
)

// fixDoc is the part of doctor --json about the cron fixes.
type fixDoc struct {
	Cron struct {
		OpenClawEnv []string `json:"openclawEnv"`
		Jobs        []struct {
			ID      string   `json:"id"`
			Command []string `json:"command"`
			Fix     *struct {
				Outcome  string   `json:"outcome"`
				Reason   string   `json:"reason"`
				Command  []string `json:"command"`
				ExitCode *int     `json:"exitCode"`
				Stderr   string   `json:"stderr"`
			} `json:"fix"`
		} `json:"jobs"`
		Fix *struct {
			Problem                        string
			Fixed, Failed, Refused, NotRun int
		} `json:"fix"`
	} `json:"cron"`
}

func decodeFixDoc(t *testing.T, out string) fixDoc {
	t.Helper()
	var doc fixDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if doc.Cron.Fix == nil {
		t.Fatalf("no cron.fix in %s", out)
	}
	return doc
}

// The scenario, in a process of its own with the environment as
// given: `OPENCLAW_STATE_DIR=/other oc --state-dir B doctor --fix --yes`,
// with a gateway of /other running (the live install, same job ids). Every
// openclaw child acts on B: on B's own gateway when it runs, else nothing
// is edited and doctor says why and exits 3.
func TestDoctorFixActsOnTheStateDirItAnalysed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, config string
		bGateway     bool
		wantCode     int
	}{
		{"B is a copy of the live install", "", false, cli.ExitIncomplete},
		// every fix applied: 0, as --fix exits in the JSONL era too, though
		// findings only a person can resolve remain (contract: exit codes)
		{"B has a gateway of its own", `{"gateway": {"mode": "local", "port": 28789}}`, true, cli.ExitOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := cronFixState(t, "")
			other, home := t.TempDir(), t.TempDir()
			if c.config != "" {
				if err := os.WriteFile(filepath.Join(b, "openclaw.json"), []byte(c.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			gateways := []fakeopenclaw.Gateway{{Port: 18789, StateDir: other, JobsOf: b}}
			if c.bGateway {
				gateways = append(gateways, fakeopenclaw.Gateway{Port: 28789, StateDir: b})
			}
			bin, spec := fakeopenclaw.Install(t, fakeopenclaw.Spec{Gateways: gateways})
			cmd := exec.Command(exe, "-test.run=^TestDoctorSignalChild$")
			cmd.Env = append(os.Environ(),
				"OC_DOCTOR_SIGNAL_ARGS="+strings.Join([]string{"--state-dir", b, "doctor", "--fix", "--yes"}, "\n"),
				"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+home, "XDG_CONFIG_HOME="+t.TempDir(), "TMPDIR="+t.TempDir(),
				"OPENCLAW_STATE_DIR="+other, "OPENCLAW_CONFIG_PATH="+filepath.Join(other, "openclaw.json"), "OPENCLAW_GATEWAY_PORT=18789", "OPENCLAW_PROFILE=work")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			}
			if code != c.wantCode {
				t.Errorf("exit %d, want %d; stderr %s\n%s", code, c.wantCode, stderr.String(), stdout.String())
			}
			calls := fakeopenclaw.Calls(t, spec)
			edits := 0
			for _, call := range calls {
				if call.Env["OPENCLAW_STATE_DIR"] != b || call.Env["OPENCLAW_CONFIG_PATH"] != filepath.Join(b, "openclaw.json") || call.Env["OPENCLAW_GATEWAY_PORT"] != "" || call.Env["OPENCLAW_PROFILE"] != "" {
					t.Errorf("%v ran with %v", call.Argv, call.Env)
				}
				if call.Subcommand() == "edit" {
					edits++
					if call.Served != b {
						t.Errorf("%v edited the jobs of %q", call.Argv, call.Served)
					}
				}
			}
			if len(calls) == 0 {
				t.Error("openclaw was not run")
			}
			out := stdout.String()
			if c.bGateway {
				if edits != 2 || !strings.Contains(out, "fixed through "+filepath.Join(bin, "openclaw")) {
					t.Errorf("%d edits; output:\n%s", edits, out)
				}
				return
			}
			if edits != 0 || !strings.Contains(out, "openclaw sees a different install") || !strings.Contains(out, other) ||
				!strings.Contains(stderr.String(), "2 of 2 cron fixes not applied (2 refused): openclaw sees a different install") {
				t.Errorf("%d edits; stderr %s; output:\n%s", edits, stderr.String(), out)
			}
		})
	}
}

// A failed openclaw call is a failure: in the job's lines (the command, its
// exit status, its stderr made visible), in the summary, in --json, and in
// the exit code (3, the documented "a fix failed").
func TestDoctorFixReportsFailedOpenClaw(t *testing.T) {
	// A path of a fixed length (word wrapping depends on it) that no other
	// process uses at the same time.
	dir := mkdir(t, filepath.Join(os.TempDir(), fmt.Sprintf("oc-cronfix-%010d", os.Getpid())))
	state := cronFixState(t, filepath.Join(dir, "state"))
	unsetInstallSelectors(t)
	hostile := "Error: \x1b[31mcron.update rejected the patch\x1b]0;pwned\x07\ngateway: ws://127.0.0.1:18789"
	bin, _ := fakeopenclaw.InstallAt(t, mkdir(t, filepath.Join(dir, "fake")), fakeopenclaw.Spec{
		Gateways: []fakeopenclaw.Gateway{{Port: 18789, StateDir: state}},
		Fail:     map[string]string{"edit:" + elsewhereJob: hostile},
	})
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	env := doctorEnv(t)
	env["PATH"] = os.Getenv("PATH")
	code, out, stderr := runOC(t, false, env, "doctor", "--state-dir", state, "--fix", "--yes")
	if code != cli.ExitIncomplete || !strings.Contains(stderr, "1 of 2 cron fixes not applied (1 fixed, 1 failed): job "+elsewhereJob+": `openclaw automations edit") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("a control character from openclaw's stderr reached the terminal:\n%q", out)
	}
	i := strings.Index(out, "Cron jobs (state/openclaw.sqlite)")
	if i < 0 {
		t.Fatalf("no cron section:\n%s", out)
	}
	golden(t, "doctor-cronfix-failed.txt", []byte(strings.ReplaceAll(out[i:], dir, "$DIR")))
	assertWidth(t, out, 80)

	state = cronFixState(t, "")
	bin, _ = fakeopenclaw.Install(t, fakeopenclaw.Spec{Gateways: []fakeopenclaw.Gateway{{Port: 18789, StateDir: state}}, Fail: map[string]string{"edit": hostile}})
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	env["PATH"] = os.Getenv("PATH")
	code, out, _ = runOC(t, false, env, "doctor", "--state-dir", state, "--fix", "--yes", "--json")
	doc := decodeFixDoc(t, out)
	if code != cli.ExitIncomplete || doc.Cron.Fix.Failed != 2 || doc.Cron.Fix.Fixed != 0 {
		t.Errorf("exit %d, fix %+v", code, doc.Cron.Fix)
	}
	for _, j := range doc.Cron.Jobs {
		if len(j.Command) == 0 {
			continue
		}
		if j.Fix == nil || j.Fix.Outcome != "failed" || j.Fix.ExitCode == nil || *j.Fix.ExitCode != 1 || j.Fix.Stderr != hostile || strings.Join(j.Fix.Command, " ") != strings.Join(j.Command, " ") {
			t.Errorf("job %s: %+v", j.ID, j.Fix)
		}
	}
}

// Without openclaw on PATH, --fix says so once, with the commands to run by
// hand on this install (never "run oc doctor --fix" again), and exits 3.
func TestDoctorFixWithoutOpenClaw(t *testing.T) {
	state := cronFixState(t, "")
	empty := t.TempDir()
	t.Setenv("PATH", empty)
	env := doctorEnv(t)
	env["PATH"] = empty
	code, out, stderr := runOC(t, false, env, "doctor", "--state-dir", state, "--fix", "--yes")
	if code != cli.ExitIncomplete || !strings.Contains(stderr, "2 of 2 cron fixes not applied (2 not run): openclaw is not on PATH") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if n := strings.Count(out, "openclaw is not on PATH"); n != 1 {
		t.Errorf("said %d times that openclaw is not on PATH:\n%s", n, out)
	}
	flat := strings.Join(strings.Fields(strings.ReplaceAll(out, "\\\n", " ")), " ")
	for _, want := range []string{"export OPENCLAW_STATE_DIR=" + state + " OPENCLAW_CONFIG_PATH=" + filepath.Join(state, "openclaw.json"),
		"unset OPENCLAW_HOME OPENCLAW_PROFILE OPENCLAW_GATEWAY_URL", "openclaw automations status --json",
		"openclaw automations edit --session=current --session-key=agent:main:main -- " + inChatJob, "cron fixes: 2 not run"} {
		if !strings.Contains(flat, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "oc doctor --fix") {
		t.Errorf("advises the command just run:\n%s", out)
	}

	code, out, _ = runOC(t, false, env, "doctor", "--state-dir", state, "--fix", "--yes", "--json")
	doc := decodeFixDoc(t, out)
	if code != cli.ExitIncomplete || doc.Cron.Fix.NotRun != 2 || doc.Cron.Fix.Problem != "openclaw is not on PATH" || len(doc.Cron.OpenClawEnv) != 2 {
		t.Errorf("exit %d, %+v", code, doc.Cron)
	}

	// Check mode does not send the user to a --fix that cannot run them.
	code, out, _ = runOC(t, false, env, "doctor", "--state-dir", state)
	if flat := strings.Join(strings.Fields(out), " "); code != cli.ExitFindings || strings.Contains(out, "oc doctor --fix") || !strings.Contains(flat, "openclaw is not on PATH: run them by hand") {
		t.Errorf("check: exit %d:\n%s", code, out)
	}
}

// On a terminal, --fix without --yes counts the cron fixes of a SQLite-era
// install in its question, and runs them on "y" (it used to ask nothing and
// print the check report, which sent the user to the --fix just run).
func TestDoctorFixAsksForTheCronFixes(t *testing.T) {
	for _, answer := range []string{"n", "y"} {
		t.Run(answer, func(t *testing.T) {
			master, slave := openPTY(t)
			state := cronFixState(t, "")
			bin, spec := fakeopenclaw.Install(t, fakeopenclaw.Spec{Gateways: []fakeopenclaw.Gateway{{Port: 18789, StateDir: state}}})
			t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			unsetInstallSelectors(t)
			if _, err := master.Write([]byte(answer + "\n")); err != nil {
				t.Fatal(err)
			}
			ios, out, _ := cli.Test(false)
			ios.In = slave
			env := doctorEnv(t)
			env["PATH"] = os.Getenv("PATH")
			code := Run(context.Background(), []string{"doctor", "--state-dir", state, "--fix"}, ios, func(k string) string { return env[k] })
			if !strings.Contains(out.String(), "Apply 2 fixes now?") {
				t.Fatalf("not asked for the 2 cron fixes (exit %d):\n%s", code, out.String())
			}
			edits := 0
			for _, c := range fakeopenclaw.Calls(t, spec) {
				if c.Subcommand() == "edit" {
					edits++
				}
			}
			if answer == "n" && (edits != 0 || !strings.Contains(out.String(), "Nothing changed.") || code != cli.ExitFindings) {
				t.Errorf("n: %d edits, exit %d:\n%s", edits, code, out.String())
			}
			if answer == "y" && (edits != 2 || !strings.Contains(out.String(), "cron fixes: 2 fixed") || code == cli.ExitIncomplete) {
				t.Errorf("y: %d edits, exit %d:\n%s", edits, code, out.String())
			}
		})
	}
}

// unsetInstallSelectors removes from the test's environment the variables
// that would pick another install (the report names those it set aside).
func unsetInstallSelectors(t *testing.T) {
	for _, k := range doctor.InstallSelectors() {
		t.Setenv(k, "") // restored after the test
		os.Unsetenv(k)
	}
}

func mkdir(t *testing.T, dir string) string {
	t.Helper()
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}
