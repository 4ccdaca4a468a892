package doctor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/fakeopenclaw"
	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/doctor"
	"github.com/openclaw-tools/oc/pkg/store"
)

// TestFakeOpenClaw is not a test: it is the fake `openclaw` the tests of
// CronFixer put on PATH (internal/fakeopenclaw).
func TestFakeOpenClaw(t *testing.T) { fakeopenclaw.Main(t) }

// cronFixInstall is the 9.6 example state (two jobs with a fix: an IN_CHAT
// and an ELSEWHERE one) with its cron report.
func cronFixInstall(t *testing.T) (stateDir string, rep *doctor.SQLiteCronReport) {
	t.Helper()
	stateDir = oracletest.Fixture96State(t, "example-state")
	st, err := store.Open(stateDir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err = doctor.ClassifySQLiteCron(t.Context(), st, doctor.Config{}); err != nil {
		t.Fatal(err)
	}
	return stateDir, rep
}

// fixer runs the fake installed for spec, from an environment that points
// at another install in every way 9.6 reads.
func fixer(t *testing.T, stateDir string, spec fakeopenclaw.Spec) (*doctor.CronFixer, string) {
	t.Helper()
	bin, specPath := fakeopenclaw.Install(t, spec)
	return &doctor.CronFixer{
		StateDir:   stateDir,
		ConfigPath: filepath.Join(stateDir, "openclaw.json"),
		LookPath:   func(name string) (string, error) { return doctor.LookPath(name, bin+":/usr/bin:/bin") },
		Environ: []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "OPENCLAW_STATE_DIR=/other", "OPENCLAW_CONFIG_PATH=/other/openclaw.json",
			"OPENCLAW_HOME=/otherhome", "OPENCLAW_PROFILE=work", "OPENCLAW_GATEWAY_URL=ws://127.0.0.1:18789", "OPENCLAW_GATEWAY_PORT=18789",
			"OPENCLAW_GATEWAY_TOKEN=secret-of-other", "OPENCLAW_CONTAINER=other", "KEEP_ME=1"},
		Timeout: 20 * time.Second,
	}, specPath
}

func writeConfig(t *testing.T, stateDir, doc string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(stateDir, "openclaw.json"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
}

func outcomes(rep *doctor.SQLiteCronReport) map[string]*doctor.CronFixResult {
	out := map[string]*doctor.CronFixResult{}
	for _, j := range rep.Jobs {
		if len(j.Command) > 0 {
			out[j.ID] = j.Fix
		}
	}
	return out
}

// Every openclaw child acts on the analysed install: its environment names
// that state dir and config and nothing of the install oc's environment
// pointed at; the gateway it reaches serves that state dir; the job is read
// before it is edited; both edits are verified.
func TestCronFixActsOnTheAnalysedInstall(t *testing.T) {
	stateDir, rep := cronFixInstall(t)
	writeConfig(t, stateDir, `{"gateway": {"mode": "local", "port": 28789}}`)
	f, specPath := fixer(t, stateDir, fakeopenclaw.Spec{Gateways: []fakeopenclaw.Gateway{
		{Port: 18789, StateDir: "/other", JobsOf: stateDir}, // the live install, same job ids
		{Port: 28789, StateDir: stateDir},
	}})
	f.Apply(context.Background(), rep)
	if rep.Fix == nil || rep.Fix.Fixed != 2 || rep.Fix.NotApplied() != 0 {
		t.Fatalf("run %+v, jobs %+v", rep.Fix, outcomes(rep))
	}
	calls := fakeopenclaw.Calls(t, specPath)
	var subs []string
	for _, c := range calls {
		subs = append(subs, c.Subcommand())
		if c.Served != stateDir {
			t.Errorf("%v reached the gateway of %q", c.Argv, c.Served)
		}
		want := map[string]string{"OPENCLAW_STATE_DIR": stateDir, "OPENCLAW_CONFIG_PATH": filepath.Join(stateDir, "openclaw.json")}
		for k, v := range c.Env {
			if k != "HOME" && want[k] != v {
				t.Errorf("%v ran with %s=%s", c.Argv, k, v)
			}
		}
		for k, v := range want {
			if c.Env[k] != v {
				t.Errorf("%v ran with %s=%q, want %q", c.Argv, k, c.Env[k], v)
			}
		}
		if c.Dir != stateDir {
			t.Errorf("%v ran in %s", c.Argv, c.Dir)
		}
	}
	if strings.Join(subs, " ") != "status show edit show edit" {
		t.Errorf("calls %v, want status, then show and edit for each job", subs)
	}
	if got := rep.Fix.Overridden; !slices.Contains(got, "OPENCLAW_STATE_DIR") || !slices.Contains(got, "OPENCLAW_GATEWAY_TOKEN") || slices.Contains(got, "KEEP_ME") {
		t.Errorf("overridden %v", got)
	}
}

// A copy of the live install (no config of its own, so the default port):
// the gateway openclaw reaches serves another state dir; nothing is edited.
func TestCronFixRefusesAnotherInstallsGateway(t *testing.T) {
	stateDir, rep := cronFixInstall(t)
	other := t.TempDir()
	f, specPath := fixer(t, stateDir, fakeopenclaw.Spec{Gateways: []fakeopenclaw.Gateway{{Port: 18789, StateDir: other, JobsOf: stateDir}}})
	f.Apply(context.Background(), rep)
	if rep.Fix.Refused != 2 || rep.Fix.ProblemKind != doctor.CronFixOtherInstall || !strings.Contains(rep.Fix.Problem, "openclaw sees a different install") || !strings.Contains(rep.Fix.Problem, other) {
		t.Fatalf("run %+v", rep.Fix)
	}
	for _, c := range fakeopenclaw.Calls(t, specPath) {
		if c.Subcommand() != "status" {
			t.Errorf("ran %v after the gateway named another install", c.Argv)
		}
	}
}

// The cases where oc cannot tell which install openclaw acts on, or sees
// another job under the id: every fix is refused, no edit runs.
func TestCronFixRefusesWhatItCannotVerify(t *testing.T) {
	for _, c := range []struct {
		name, config, want string
		spec               func(stateDir string) fakeopenclaw.Spec
	}{
		{"no gateway", `{"gateway": {"port": 28789}}`, "could not ask openclaw's gateway which install it serves: `openclaw automations status --json` exited 1: gateway closed",
			func(string) fakeopenclaw.Spec { return fakeopenclaw.Spec{} }},
		{"remote", `{"gateway": {"mode": "remote", "remote": {"url": "wss://gw.example"}}}`, `sets gateway.mode "remote"`,
			func(s string) fakeopenclaw.Spec {
				return fakeopenclaw.Spec{Gateways: []fakeopenclaw.Gateway{{URL: "wss://gw.example", StateDir: s}}}
			}},
		{"JSON-era gateway", "", "not in a SQLite state database",
			func(string) fakeopenclaw.Spec {
				return fakeopenclaw.Spec{Gateways: []fakeopenclaw.Gateway{{Port: 18789}}, Say: map[string]string{"status": `{"enabled":true,"storePath":"/x/cron/jobs.json","jobs":1}`}}
			}},
		{"not JSON", "", "did not answer a JSON object",
			func(string) fakeopenclaw.Spec {
				return fakeopenclaw.Spec{Gateways: []fakeopenclaw.Gateway{{Port: 18789}}, Say: map[string]string{"status": "Usage: openclaw automations"}}
			}},
		{"job unknown to the gateway", "", "could not read the job through openclaw: `openclaw automations show --json -- ",
			func(s string) fakeopenclaw.Spec {
				return fakeopenclaw.Spec{Gateways: []fakeopenclaw.Gateway{{Port: 18789, StateDir: s, JobsOf: t.TempDir()}}}
			}},
		{"job changed since oc read it", "", "openclaw sees a different job under this id: sessionTarget is \"isolated\" in openclaw",
			func(s string) fakeopenclaw.Spec {
				return fakeopenclaw.Spec{Gateways: []fakeopenclaw.Gateway{{Port: 18789, StateDir: s, Patch: map[string]any{"sessionTarget": "isolated"}}}}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			stateDir, rep := cronFixInstall(t)
			if c.config != "" {
				writeConfig(t, stateDir, c.config)
			}
			f, specPath := fixer(t, stateDir, c.spec(stateDir))
			f.Apply(context.Background(), rep)
			if rep.Fix.Refused != 2 || rep.Fix.Fixed+rep.Fix.Failed+rep.Fix.NotRun != 0 {
				t.Fatalf("run %+v", rep.Fix)
			}
			for _, r := range outcomes(rep) {
				if reason := r.Reason + rep.Fix.Problem; !strings.Contains(reason, c.want) {
					t.Errorf("reason %q, want %q", reason, c.want)
				}
			}
			for _, call := range fakeopenclaw.Calls(t, specPath) {
				if call.Subcommand() == "edit" {
					t.Errorf("ran %v", call.Argv)
				}
			}
		})
	}
}

// A failed edit is a failure with its command, exit status and stderr; an
// edit whose answer does not show the change is one too.
func TestCronFixReportsFailures(t *testing.T) {
	stateDir, rep := cronFixInstall(t)
	hostile := "Error: \x1b[31mcron.update rejected\x1b]0;pwned\x07\nsecond line"
	f, _ := fixer(t, stateDir, fakeopenclaw.Spec{Gateways: []fakeopenclaw.Gateway{{Port: 18789, StateDir: stateDir}}, Fail: map[string]string{"edit": hostile}})
	f.Apply(context.Background(), rep)
	if rep.Fix.Failed != 2 {
		t.Fatalf("run %+v", rep.Fix)
	}
	for _, j := range rep.Jobs {
		if j.Fix == nil {
			continue
		}
		r := j.Fix
		if r.Outcome != doctor.CronFixFailed || r.ExitCode == nil || *r.ExitCode != 1 || r.Stderr != hostile || !slices.Equal(r.Command, j.Command) ||
			r.Reason != "exited 1" || !strings.HasPrefix(r.Summary(), "`openclaw automations edit --session=") || !strings.HasSuffix(r.Summary(), "` exited 1: Error: cron.update rejected\x1b]0;pwned\x07 [...]") {
			t.Errorf("%s: %+v", j.ID, r)
		}
	}

	stateDir, rep = cronFixInstall(t)
	f, _ = fixer(t, stateDir, fakeopenclaw.Spec{Gateways: []fakeopenclaw.Gateway{{Port: 18789, StateDir: stateDir}}, Say: map[string]string{"edit": `{"id": "someone-else"}`}})
	f.Apply(context.Background(), rep)
	for id, r := range outcomes(rep) {
		if r.Outcome != doctor.CronFixFailed || !strings.Contains(r.Reason, "exited 0 but answered job \"someone-else\", not "+id) {
			t.Errorf("%s: %+v", id, r)
		}
	}
}

// Without openclaw on PATH nothing runs and every fix is "not run", once.
// A state dir whose path ends in a space: openclaw trims OPENCLAW_STATE_DIR
// and would act on the install without it.
func TestCronFixRefusesAPathOpenClawTrims(t *testing.T) {
	src, rep := cronFixInstall(t)
	stateDir := filepath.Join(t.TempDir(), "state ")
	if err := os.Rename(src, stateDir); err != nil {
		t.Fatal(err)
	}
	trimmed := strings.TrimSuffix(stateDir, " ")
	f, specPath := fixer(t, stateDir, fakeopenclaw.Spec{Gateways: []fakeopenclaw.Gateway{{Port: 18789, StateDir: trimmed, JobsOf: stateDir}}})
	f.Apply(context.Background(), rep)
	if rep.Fix.Refused != 2 || !strings.Contains(rep.Fix.Problem, "white space, which openclaw trims") || len(fakeopenclaw.Calls(t, specPath)) != 0 {
		t.Errorf("run %+v", rep.Fix)
	}
}

func TestCronFixWithoutOpenClaw(t *testing.T) {
	stateDir, rep := cronFixInstall(t)
	f := &doctor.CronFixer{StateDir: stateDir, ConfigPath: filepath.Join(stateDir, "openclaw.json"),
		LookPath: func(name string) (string, error) { return doctor.LookPath(name, t.TempDir()+":relative/bin:.") }}
	f.Apply(context.Background(), rep)
	if rep.Fix.NotRun != 2 || rep.Fix.ProblemKind != doctor.CronFixNoOpenClaw || rep.Fix.Problem != "openclaw is not on PATH" || rep.OpenClaw != "" {
		t.Fatalf("run %+v", rep.Fix)
	}
	if want := []string{"OPENCLAW_STATE_DIR=" + stateDir, "OPENCLAW_CONFIG_PATH=" + filepath.Join(stateDir, "openclaw.json")}; !slices.Equal(rep.OpenClawEnv, want) {
		t.Errorf("env for the commands by hand: %v", rep.OpenClawEnv)
	}
}

// A relative PATH entry is never searched: an openclaw in the current
// directory is not run.
func TestLookPathSkipsRelativeEntries(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "openclaw"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if p, err := doctor.LookPath("openclaw", ".:"); err == nil {
		t.Errorf("found %s", p)
	}
	if p, err := doctor.LookPath("openclaw", dir); err != nil || p != filepath.Join(dir, "openclaw") {
		t.Errorf("%s, %v", p, err)
	}
}

// A hung openclaw is stopped after the timeout (its process is gone) and
// the job refused; the other job still runs.
func TestCronFixTimesOut(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a timeout")
	}
	stateDir, rep := cronFixInstall(t)
	f, specPath := fixer(t, stateDir, fakeopenclaw.Spec{Gateways: []fakeopenclaw.Gateway{{Port: 18789, StateDir: stateDir}}, Hang: "show"})
	f.Timeout = 3 * time.Second
	f.Apply(context.Background(), rep)
	if rep.Fix.Refused != 2 {
		t.Fatalf("run %+v", rep.Fix)
	}
	for _, r := range outcomes(rep) {
		if !strings.Contains(r.Reason, "did not finish within 3s and was stopped") {
			t.Errorf("%+v", r)
		}
	}
	assertGone(t, fakeopenclaw.HangPIDFile(t, specPath))
}

// Ctrl-C while an edit runs: the child is stopped, the job is a failure
// that may have been applied, the next one is not run.
func TestCronFixInterrupted(t *testing.T) {
	stateDir, rep := cronFixInstall(t)
	f, specPath := fixer(t, stateDir, fakeopenclaw.Spec{Gateways: []fakeopenclaw.Gateway{{Port: 18789, StateDir: stateDir}}, Hang: "edit"})
	ctx, cancel := context.WithCancel(context.Background())
	pidFile := fakeopenclaw.HangPIDFile(t, specPath)
	go func() {
		for {
			if _, err := os.Stat(pidFile); err == nil {
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	done := make(chan struct{})
	go func() { f.Apply(ctx, rep); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("Apply did not return after the interrupt")
	}
	var first, second *doctor.CronFixResult
	for _, j := range rep.Jobs {
		if j.Fix != nil && first == nil {
			first = j.Fix
		} else if j.Fix != nil {
			second = j.Fix
		}
	}
	if first.Outcome != doctor.CronFixFailed || !strings.Contains(first.Reason, "may or may not have been applied") || second.Outcome != doctor.CronFixNotRun {
		t.Errorf("first %+v, second %+v", first, second)
	}
	assertGone(t, pidFile)
}

// assertGone: the processes whose pids the fake wrote (itself and its
// worker) are no longer running.
func assertGone(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(field)
		gone := false
		for range 50 {
			// Kill(pid, 0) also succeeds on a zombie (state Z in /proc on
			// Linux) waiting to be reaped.
			stat, err := os.ReadFile("/proc/" + field + "/stat")
			if syscall.Kill(pid, 0) != nil || err == nil && strings.Contains(string(stat), ") Z ") {
				gone = true
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if !gone {
			t.Errorf("pid %d still runs", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// Hostile ids and values: every value of the command is one --name=value
// word and the id comes after "--"; ids openclaw could misread are refused
// before anything runs; shell metacharacters reach openclaw unchanged.
func TestCronFixHostileArguments(t *testing.T) {
	v := doctor.Verdict{Class: doctor.Elsewhere, Key: "--dev", Target: doctor.Route{Channel: "--profile", To: "x --container evil", AccountID: "-", ThreadID: "$(id)"}}
	cmd := doctor.FixCommand("$(touch pwned); `id` --help", v)
	sep := slices.Index(cmd, "--")
	if sep != len(cmd)-2 || cmd[sep+1] != "$(touch pwned); `id` --help" {
		t.Fatalf("command %q", cmd)
	}
	for _, a := range cmd[3:sep] {
		if !strings.HasPrefix(a, "--") || !strings.Contains(a, "=") {
			t.Errorf("argument %q is not one --name=value word", a)
		}
	}

	stateDir, rep := cronFixInstall(t)
	ids := []string{"-rf", "--profile=work", " padded", "ctl\x1b[2J", "$(touch pwned); `id`"}
	rep.Jobs = nil
	jobs := map[string]json.RawMessage{}
	for _, id := range ids {
		job, _ := json.Marshal(map[string]any{"id": id, "name": "hostile", "sessionTarget": "session:agent:main:main"})
		jobs[id] = job
		rep.Jobs = append(rep.Jobs, doctor.SQLiteCronJob{ID: id, Stored: job, Command: doctor.FixCommand(id, doctor.Verdict{Class: doctor.InChat, Key: "agent:main:main"})})
	}
	f, specPath := fixer(t, stateDir, fakeopenclaw.Spec{Gateways: []fakeopenclaw.Gateway{{Port: 18789, StateDir: stateDir, Jobs: jobs}}})
	t.Chdir(t.TempDir())
	f.Apply(context.Background(), rep)
	for _, j := range rep.Jobs {
		want := doctor.CronFixRefused
		if j.ID == "$(touch pwned); `id`" {
			want = doctor.CronFixFixed
		}
		if j.Fix.Outcome != want {
			t.Errorf("%q: %+v, want %s", j.ID, j.Fix, want)
		}
	}
	var edited [][]string
	for _, c := range fakeopenclaw.Calls(t, specPath) {
		if c.Subcommand() == "edit" {
			edited = append(edited, c.Argv)
		}
		for _, a := range c.Argv {
			if a == "-rf" || a == "--profile=work" || a == " padded" {
				t.Errorf("ran %q", c.Argv)
			}
		}
	}
	if len(edited) != 1 || edited[0][len(edited[0])-1] != "$(touch pwned); `id`" || edited[0][len(edited[0])-2] != "--" {
		t.Errorf("edits %q", edited)
	}
	for _, dir := range []string{".", stateDir} {
		if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
			t.Errorf("a shell ran the id in %s", dir)
		}
	}
}

// The answers of 9.6's real CLI and gateway (testdata/doctor/openclaw-2026.9.6)
// pass oc's checks: the status names the state dir's database, the job
// read back equals cron_jobs on the identifying fields (9.6 adds state,
// updatedAtMs, configRevision, status), the edit's answer shows the fix.
func TestCronFixAcceptsRealAnswers(t *testing.T) {
	const id = "c2a7e9f0-1b3d-4e5f-8a9b-0c1d2e3f4a5b"
	stateDir, rep := cronFixInstall(t)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "doctor", "openclaw-2026.9.6", name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.ReplaceAll(string(b), "$STATE", stateDir)
	}
	kept := rep.Jobs[:0]
	for _, j := range rep.Jobs {
		if j.ID == id || len(j.Command) == 0 {
			kept = append(kept, j)
		}
	}
	rep.Jobs = kept
	f, specPath := fixer(t, stateDir, fakeopenclaw.Spec{Gateways: []fakeopenclaw.Gateway{{Port: 18789}}, Say: map[string]string{
		"status": read("status.json"), "show:" + id: read("show-c2a7e9f0.json"), "edit:" + id: read("edit-c2a7e9f0.json"),
	}})
	f.Apply(context.Background(), rep)
	if rep.Fix.Fixed != 1 || rep.Fix.NotApplied() != 0 || rep.Fix.GatewayStore != filepath.Join(stateDir, "state", "openclaw.sqlite") {
		t.Errorf("run %+v, jobs %+v", rep.Fix, outcomes(rep))
	}
	var subs []string
	for _, c := range fakeopenclaw.Calls(t, specPath) {
		subs = append(subs, c.Subcommand())
	}
	if strings.Join(subs, " ") != "status show edit" {
		t.Errorf("calls %v", subs)
	}
}

// Differential: every job of every 9.6 fixture (each given a fix, as if it
// had one), read back the way 2026.9.6 loads it (the oracle's `cron`
// answers: loadCronJobsStoreWithConfigJobs, the service's loader that
// cron.get answers from), passes oc's comparison with cron_jobs, so a
// gateway of the analysed install is never refused for how it spells a job.
func TestCronFixJobsAsOracleLoadsThem(t *testing.T) {
	compared, want := 0, 0
	for _, fx := range oracletest.Fixtures96() {
		loaded := oracleLoadedJobs(t, fx)
		stateDir := oracletest.Fixture96State(t, fx)
		st, err := store.Open(stateDir, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := doctor.ClassifySQLiteCron(t.Context(), st, doctor.Config{})
		if err != nil {
			t.Fatal(err)
		}
		say := map[string]string{}
		for i, j := range rep.Jobs {
			if len(j.Command) == 0 {
				rep.Jobs[i].Command = doctor.FixCommand(j.ID, doctor.Verdict{Class: doctor.InChat, Key: "agent:main:main"})
			}
			want++
			if job, ok := loaded[j.ID]; ok {
				say["show:"+j.ID] = string(job)
			}
		}
		if len(say) == 0 {
			continue
		}
		f, _ := fixer(t, stateDir, fakeopenclaw.Spec{Gateways: []fakeopenclaw.Gateway{{Port: 18789, StateDir: stateDir}}, Say: say})
		f.Apply(context.Background(), rep)
		for id, r := range outcomes(rep) {
			if r.Outcome != doctor.CronFixFixed {
				t.Errorf("%s %s: %+v (oracle: %s)", fx, id, r, loaded[id])
				continue
			}
			compared++
		}
	}
	oracletest.Compared(t, "cron jobs: job_json vs the job 2026.9.6 loads (the oracle's cron answers), as read back before a fix", compared, want)
}

// oracleLoadedJobs are the jobs of the 9.6 oracle's `cron` answers for a
// fixture, by id, as the oracle printed them.
func oracleLoadedJobs(t *testing.T, fixture string) map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(oracletest.SharedDir(t), "oracle-2026.9.6", "fixtures", fixture, "golden.jsonl"))
	if err != nil {
		oracletest.Unavailable(t, fmt.Sprintf("the 9.6 oracle's cron answers: %v", err))
	}
	out := map[string]json.RawMessage{}
	for _, line := range bytes.Split(b, []byte("\n")) {
		var g struct {
			Mode string `json:"mode"`
			Out  struct {
				Stores []struct {
					Jobs []struct {
						Job json.RawMessage `json:"job"`
					} `json:"jobs"`
				} `json:"stores"`
			} `json:"out"`
		}
		if json.Unmarshal(line, &g) != nil || g.Mode != "cron" {
			continue
		}
		for _, s := range g.Out.Stores {
			for _, j := range s.Jobs {
				var id struct {
					ID string `json:"id"`
				}
				_ = json.Unmarshal(j.Job, &id)
				out[id.ID] = j.Job
			}
		}
	}
	return out
}
