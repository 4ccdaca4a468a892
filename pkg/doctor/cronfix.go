package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/pkg/openclawconfig"
)

// How `doctor --fix` applies the cron fixes of a SQLite-era install
// (docs/doctor-fix.md has the findings in OpenClaw 2026.9.6's code this
// follows). oc never writes SQL: every fix is `openclaw automations edit`,
// which 9.6 sends as the cron.update RPC to the gateway its config names
// (cron-cli register.cron-edit, gateway/call.ts callGateway); no edit goes to
// a local store. So before any edit oc makes sure that this gateway is the
// one of the install it analysed:
//
//  1. every openclaw child gets OPENCLAW_STATE_DIR and OPENCLAW_CONFIG_PATH
//     of that install, and none of the inherited variables that would pick
//     another install or gateway (InstallSelectors);
//  2. `openclaw automations status --json` (cron.status) names the database
//     the gateway serves (sqlitePath); it must be this state dir's
//     state/openclaw.sqlite;
//  3. `openclaw automations show --json -- <id>` (cron.get) must return the
//     job as oc read it from cron_jobs (the fields the fix was decided on);
//  4. only then `openclaw automations edit ... -- <id>`, whose answer (the
//     job after the edit) must show the new sessionTarget.
//
// A job that cannot be verified is refused with the reason; nothing runs
// without openclaw on PATH. Each child has a timeout and is stopped (its
// whole process group) on timeout or when ctx is cancelled.

// DefaultOpenClawTimeout bounds each openclaw child: 9.6's CLI takes a few
// seconds to start, and its gateway RPCs time out after 30 s by default.
const DefaultOpenClawTimeout = 90 * time.Second

// maxChildOutput bounds what is kept of a child's stdout and of its stderr.
const maxChildOutput = 1 << 20

// maxReportedStderr bounds the stderr named in a fix result.
const maxReportedStderr = 2000

// CronFixOutcome is what `doctor --fix` did with one job's fix.
type CronFixOutcome string

// The outcomes of a cron fix.
const (
	// CronFixFixed: openclaw applied the edit and its answer shows it.
	CronFixFixed CronFixOutcome = "fixed"
	// CronFixFailed: the edit ran and did not succeed (or may not have).
	CronFixFailed CronFixOutcome = "failed"
	// CronFixRefused: oc did not run the edit: it could not verify that
	// openclaw acts on the analysed install and on this job as oc read it.
	CronFixRefused CronFixOutcome = "refused"
	// CronFixNotRun: nothing was tried (openclaw is not on PATH, or the run
	// was interrupted before this job).
	CronFixNotRun CronFixOutcome = "not-run"
)

// CronFixResult is the outcome of one job's fix; any report can render it.
type CronFixResult struct {
	Outcome CronFixOutcome `json:"outcome"`
	// Reason says why a fix was refused, not run or failed (for a failed
	// command: how, "exited 1", with Command, ExitCode and Stderr).
	Reason string `json:"reason,omitempty"`
	// Command is the openclaw command that failed (argv, "openclaw" first;
	// the environment is the run's Env).
	Command []string `json:"command,omitempty"`
	// ExitCode is the failed command's exit status; absent when it did not
	// exit by itself (timed out, interrupted, could not start).
	ExitCode *int `json:"exitCode,omitempty"`
	// Stderr is what the failed command wrote on stderr, trimmed (the first
	// 2000 bytes, valid UTF-8; renderers make it terminal-safe).
	Stderr string `json:"stderr,omitempty"`
}

// Summary is the result in one line: the reason, and for a failed command
// the command and the first line of its stderr.
func (r *CronFixResult) Summary() string {
	if r.Outcome == CronFixFailed && len(r.Command) > 0 {
		return describeFailure(r.Command, r.Reason, r.Stderr)
	}
	return r.Reason
}

// CronFixRun is what one `doctor --fix` did with the cron fixes as a whole.
type CronFixRun struct {
	// OpenClaw is the openclaw executable run ("" when not on PATH).
	OpenClaw string `json:"openclaw,omitempty"`
	// StateDir and ConfigPath: the install every openclaw child was pointed
	// at (OPENCLAW_STATE_DIR, OPENCLAW_CONFIG_PATH).
	StateDir   string `json:"stateDir"`
	ConfigPath string `json:"configPath"`
	// Overridden names the inherited variables that were removed or
	// replaced for the children (names only: some hold credentials).
	Overridden []string `json:"overridden,omitempty"`
	// GatewayStore is the database the gateway said it serves (cron.status
	// sqlitePath); "" when it was not asked or did not say.
	GatewayStore string `json:"gatewayStore,omitempty"`
	// Problem is the one reason that applies to every job ("" when each job
	// was tried on its own), and ProblemKind which kind of reason it is.
	Problem     string         `json:"problem,omitempty"`
	ProblemKind CronFixProblem `json:"problemKind,omitempty"`
	// Counts of the outcomes of the jobs that have a fix.
	Fixed   int `json:"fixed"`
	Failed  int `json:"failed"`
	Refused int `json:"refused"`
	NotRun  int `json:"notRun"`
}

// CronFixProblem is the kind of reason that stopped every fix of a run.
type CronFixProblem string

// The reasons that stop every fix of a run.
const (
	// CronFixNoOpenClaw: openclaw is not on PATH (not run).
	CronFixNoOpenClaw CronFixProblem = "openclaw-not-on-path"
	// CronFixInterrupted: Ctrl-C or SIGTERM before the first job (not run).
	CronFixInterrupted CronFixProblem = "interrupted"
	// CronFixUnsafePath: the state dir or config path would be read as
	// another one by openclaw (refused).
	CronFixUnsafePath CronFixProblem = "unsafe-path"
	// CronFixRemoteGateway: the config names a gateway on another host
	// (refused).
	CronFixRemoteGateway CronFixProblem = "remote-gateway"
	// CronFixGatewayUnknown: the gateway did not say which install it
	// serves (not reachable, an answer oc cannot read; refused).
	CronFixGatewayUnknown CronFixProblem = "gateway-unknown"
	// CronFixOtherInstall: the gateway serves another state dir (refused).
	CronFixOtherInstall CronFixProblem = "other-install"
)

// NotApplied is the number of fixes that were not applied (failed, refused
// or not run): with --fix, each makes doctor exit 3.
func (r *CronFixRun) NotApplied() int {
	if r == nil {
		return 0
	}
	return r.Failed + r.Refused + r.NotRun
}

// InstallSelectors are the environment variables that decide which install
// and which gateway OpenClaw 2026.9.6's CLI acts on (config/paths.ts
// resolveStateDir, resolveConfigPath, resolveGatewayPort; gateway
// connection-details and client-bootstrap resolveGatewayUrlOverride;
// cli/container-target resolveCliContainerTarget; infra/home-dir). None is
// inherited by an openclaw child of doctor; the first two are set to the
// analysed install. The gateway token and password go with them, as 9.6's
// own buildContainerExecEnv drops them when it moves a command to another
// install.
func InstallSelectors() []string {
	return []string{
		"OPENCLAW_STATE_DIR", "OPENCLAW_CONFIG_PATH", "OPENCLAW_HOME", "OPENCLAW_PROFILE",
		"OPENCLAW_GATEWAY_URL", "OPENCLAW_GATEWAY_PORT", "OPENCLAW_GATEWAY_TOKEN", "OPENCLAW_GATEWAY_PASSWORD",
		"OPENCLAW_CONTAINER",
	}
}

// OpenClawEnv is what an openclaw command needs to act on the install in
// stateDir with the config file configPath: the variables to set, in order.
func OpenClawEnv(stateDir, configPath string) []string {
	return []string{"OPENCLAW_STATE_DIR=" + stateDir, "OPENCLAW_CONFIG_PATH=" + configPath}
}

// ChildEnv is environ without the InstallSelectors, plus set; overridden
// names the selectors environ had (in the order found, each once).
func ChildEnv(environ, set []string) (env, overridden []string) {
	drop := map[string]bool{}
	for _, k := range InstallSelectors() {
		drop[k] = true
	}
	seen := map[string]bool{}
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if drop[k] {
			if !seen[k] {
				overridden = append(overridden, k)
				seen[k] = true
			}
			continue
		}
		env = append(env, kv)
	}
	return append(env, set...), overridden
}

// LookPath finds an executable in the absolute directories of pathList (a
// PATH value). Relative entries ("", ".") are skipped: a fix must not run
// an openclaw that happens to be in the current directory.
func LookPath(name, pathList string) (string, error) {
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}

// CronFixer applies the cron fixes of a SQLite-era install through
// OpenClaw's CLI.
type CronFixer struct {
	// StateDir is the analysed install (absolute); ConfigPath its config
	// file, the one oc's analysis read (openclawconfig.Path).
	StateDir   string
	ConfigPath string
	// LookPath finds openclaw (LookPath over the PATH oc was given).
	LookPath func(name string) (string, error)
	// Environ is the environment the children inherit (os.Environ()).
	Environ []string
	// Timeout bounds each child (DefaultOpenClawTimeout when 0).
	Timeout time.Duration
}

// Describe fills in, without running anything, what the report says about
// the commands (when a job has one): the environment they need and the
// openclaw on PATH.
func (f *CronFixer) Describe(rep *SQLiteCronReport) {
	if len(fixable(rep)) == 0 {
		return
	}
	rep.OpenClawEnv = OpenClawEnv(f.StateDir, f.ConfigPath)
	if bin, err := f.LookPath("openclaw"); err == nil {
		rep.OpenClaw = bin
	}
}

// fixable are the jobs that have a fix command.
func fixable(rep *SQLiteCronReport) []*SQLiteCronJob {
	var out []*SQLiteCronJob
	for i := range rep.Jobs {
		if len(rep.Jobs[i].Command) > 0 {
			out = append(out, &rep.Jobs[i])
		}
	}
	return out
}

// Apply runs the fix of every job that has a Command, recording each
// outcome in the job's Fix and the run in rep.Fix (nil when no job has a
// fix). It never runs an edit it could not verify; ctx cancelled stops the
// running child and leaves the remaining jobs not run.
func (f *CronFixer) Apply(ctx context.Context, rep *SQLiteCronReport) {
	f.Describe(rep)
	todo := fixable(rep)
	if len(todo) == 0 {
		return
	}
	env, overridden := ChildEnv(f.Environ, rep.OpenClawEnv)
	run := &CronFixRun{OpenClaw: rep.OpenClaw, StateDir: f.StateDir, ConfigPath: f.ConfigPath, Overridden: overridden}
	rep.Fix = run
	defer run.count(todo)
	all := func(outcome CronFixOutcome, kind CronFixProblem, reason string) {
		run.Problem, run.ProblemKind = reason, kind
		for _, j := range todo {
			j.Fix = &CronFixResult{Outcome: outcome}
		}
	}
	if run.OpenClaw == "" {
		all(CronFixNotRun, CronFixNoOpenClaw, "openclaw is not on PATH")
		return
	}
	for _, p := range []string{f.StateDir, f.ConfigPath} {
		if strings.TrimSpace(p) != p {
			// resolveStateDir and resolveConfigPath trim the variables.
			all(CronFixRefused, CronFixUnsafePath, fmt.Sprintf("the path %q begins or ends with white space, which openclaw trims: it would act on another install", p))
			return
		}
	}
	if reason := remoteGateway(f.ConfigPath); reason != "" {
		all(CronFixRefused, CronFixRemoteGateway, reason)
		return
	}
	c := child{bin: run.OpenClaw, env: env, dir: f.StateDir, timeout: f.Timeout}
	store, kind, reason := f.gatewayStore(ctx, c)
	run.GatewayStore = store
	switch {
	case ctx.Err() != nil:
		all(CronFixNotRun, CronFixInterrupted, "interrupted")
		return
	case reason != "":
		all(CronFixRefused, kind, reason)
		return
	}
	for _, j := range todo {
		if ctx.Err() != nil {
			j.Fix = &CronFixResult{Outcome: CronFixNotRun, Reason: "interrupted"}
			continue
		}
		j.Fix = f.fixJob(ctx, c, j)
	}
}

func (r *CronFixRun) count(jobs []*SQLiteCronJob) {
	r.Fixed, r.Failed, r.Refused, r.NotRun = 0, 0, 0, 0
	for _, j := range jobs {
		switch j.Fix.Outcome {
		case CronFixFixed:
			r.Fixed++
		case CronFixFailed:
			r.Failed++
		case CronFixRefused:
			r.Refused++
		default:
			r.NotRun++
		}
	}
}

// remoteGateway is why oc cannot match the config's gateway to a local
// state dir ("" when the config names a local one): gateway.mode "remote"
// sends every RPC to gateway.remote.url (gateway/connection-details.ts).
func remoteGateway(configPath string) string {
	root, err := openclawconfig.ReadFile(configPath)
	if err != nil || root == nil {
		return "" // no config (local defaults), or one openclaw itself will reject
	}
	cfg := &openclawconfig.Config{Path: configPath, Root: root}
	if mode, _ := cfg.String("gateway", "mode"); mode != "remote" {
		return ""
	}
	url, _ := cfg.String("gateway", "remote", "url")
	return fmt.Sprintf("%s sets gateway.mode \"remote\" (gateway.remote.url %q): openclaw would edit the jobs of a gateway on another host, which oc cannot match to this state dir", configPath, url)
}

// gatewayStore asks the gateway which database it serves and compares it
// with the analysed one: the store it names, and why oc refuses ("" when it
// is the analysed install's).
func (f *CronFixer) gatewayStore(ctx context.Context, c child) (store string, kind CronFixProblem, refusal string) {
	args := []string{"automations", "status", "--json"}
	res := c.run(ctx, args)
	if ctx.Err() != nil {
		return "", CronFixInterrupted, "interrupted"
	}
	if res.failed() {
		return "", CronFixGatewayUnknown, "could not ask openclaw's gateway which install it serves: " + res.describe(args)
	}
	var st struct {
		Storage    string `json:"storage"`
		SQLitePath string `json:"sqlitePath"`
		StorePath  string `json:"storePath"`
	}
	if err := json.Unmarshal(res.stdout, &st); err != nil {
		return "", CronFixGatewayUnknown, fmt.Sprintf("`openclaw automations status --json` did not answer a JSON object (%v): cannot tell which install its gateway serves", err)
	}
	want := filepath.Join(f.StateDir, "state", "openclaw.sqlite")
	if st.SQLitePath == "" {
		return st.StorePath, CronFixOtherInstall, fmt.Sprintf("openclaw sees a different install: its gateway keeps cron jobs in %q, not in a SQLite state database (an OpenClaw release before 2026.6.1?); oc analysed %s", st.StorePath, want)
	}
	if !samePath(st.SQLitePath, want) {
		return st.SQLitePath, CronFixOtherInstall, fmt.Sprintf("openclaw sees a different install: the gateway that %s names serves %s, oc analysed %s", f.ConfigPath, st.SQLitePath, want)
	}
	return st.SQLitePath, "", ""
}

// samePath: a and b name one file (a is absolute; when either cannot be
// stat'ed, the same cleaned path).
func samePath(a, b string) bool {
	if !filepath.IsAbs(a) {
		return false
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	return filepath.Clean(a) == filepath.Clean(b)
}

// fixJob verifies one job through openclaw and applies its edit.
func (f *CronFixer) fixJob(ctx context.Context, c child, j *SQLiteCronJob) *CronFixResult {
	if reason := unsafeJobID(j.ID); reason != "" {
		return &CronFixResult{Outcome: CronFixRefused, Reason: reason}
	}
	for _, a := range j.Command {
		if strings.IndexByte(a, 0) >= 0 {
			return &CronFixResult{Outcome: CronFixRefused, Reason: "an argument of the command holds a NUL byte, which no command line can carry"}
		}
	}
	show := []string{"automations", "show", "--json", "--", j.ID}
	res := c.run(ctx, show)
	if ctx.Err() != nil {
		return &CronFixResult{Outcome: CronFixNotRun, Reason: "interrupted"}
	}
	if res.failed() {
		return &CronFixResult{Outcome: CronFixRefused, Reason: "could not read the job through openclaw: " + res.describe(show)}
	}
	if diff := jobDiffers(j.Stored, res.stdout); diff != "" {
		return &CronFixResult{Outcome: CronFixRefused, Reason: "openclaw sees a different job under this id: " + diff}
	}
	args := j.Command[1:]
	res = c.run(ctx, args)
	failed := func(reason string) *CronFixResult {
		out := &CronFixResult{Outcome: CronFixFailed, Reason: reason, Command: j.Command, Stderr: trimOutput(res.stderr)}
		if res.exitCode >= 0 {
			code := res.exitCode
			out.ExitCode = &code
		}
		return out
	}
	switch {
	case ctx.Err() != nil:
		return failed("was interrupted: the edit may or may not have been applied (check with `openclaw automations show " + j.ID + "`)")
	case res.failed():
		return failed(res.failure())
	}
	if diff := editMissing(j.ID, j.Command, res.stdout); diff != "" {
		return failed("exited 0 but " + diff)
	}
	return &CronFixResult{Outcome: CronFixFixed}
}

// unsafeJobID is why an id is not passed to openclaw ("" when it is): 9.6
// trims ids (requireCronJobId), so one with surrounding space names another
// job; one that starts with "-" could be read as an option by the argument
// scanners 9.6 runs before its parser (help, version, profile, container),
// "--" or not; control characters have no place in an id.
func unsafeJobID(id string) string {
	switch {
	case id == "":
		return "the job has no id"
	case strings.TrimSpace(id) != id:
		return "the job id has surrounding white space, which openclaw trims: the edit would go to another job"
	case strings.HasPrefix(id, "-"):
		return "the job id starts with \"-\": openclaw could read it as an option"
	case !utf8.ValidString(id):
		return "the job id is not valid UTF-8"
	}
	for _, r := range id {
		if unicode.IsControl(r) {
			return "the job id holds a control character"
		}
	}
	return ""
}

// identifyingFields are the fields of a job that must read the same in
// cron_jobs.job_json and in openclaw's answer: what identifies the job and
// what the fix was decided on.
func identifyingFields() []string {
	return []string{"id", "name", "agentId", "createdAtMs", "schedule", "sessionTarget", "sessionKey", "delivery"}
}

// jobDiffers compares the job oc read (job_json) with openclaw's answer to
// `automations show --json`: "" when they agree, else what differs.
func jobDiffers(stored json.RawMessage, shown []byte) string {
	ours, err := decodeObject(stored)
	if err != nil {
		return "oc could not read the job's job_json"
	}
	theirs, err := decodeObject(shown)
	if err != nil {
		return fmt.Sprintf("openclaw did not answer a JSON object (%v)", err)
	}
	var diffs []string
	for _, k := range identifyingFields() {
		a, inOurs := ours[k]
		b, inTheirs := theirs[k]
		if inOurs != inTheirs || !reflect.DeepEqual(a, b) {
			diffs = append(diffs, fmt.Sprintf("%s is %s in openclaw, %s in state/openclaw.sqlite", k, describeValue(b, inTheirs), describeValue(a, inOurs)))
		}
	}
	return strings.Join(diffs, "; ")
}

// editMissing checks openclaw's answer to the edit (the job after it): ""
// when it has the id and the sessionTarget and sessionKey the command set.
func editMissing(id string, command []string, out []byte) string {
	job, err := decodeObject(out)
	if err != nil {
		return fmt.Sprintf("did not answer the edited job as JSON (%v)", err)
	}
	if got, _ := job["id"].(string); got != id {
		return fmt.Sprintf("answered job %s, not %s", describeValue(job["id"], job["id"] != nil), id)
	}
	for _, field := range []struct{ flag, key string }{{"--session=", "sessionTarget"}, {"--session-key=", "sessionKey"}} {
		want, ok := flagValue(command, field.flag)
		if !ok {
			continue
		}
		if got, _ := job[field.key].(string); got != want {
			return fmt.Sprintf("the job's %s is %s after the edit, not %q", field.key, describeValue(job[field.key], job[field.key] != nil), want)
		}
	}
	return ""
}

// flagValue is the value of a "--flag=value" argument before "--".
func flagValue(argv []string, prefix string) (string, bool) {
	for _, a := range argv {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, prefix); ok {
			return v, true
		}
	}
	return "", false
}

func decodeObject(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("null")
	}
	return m, nil
}

func describeValue(v any, present bool) string {
	if !present {
		return "absent"
	}
	b, _ := json.Marshal(v)
	if len(b) > 120 {
		return string(b[:117]) + "..."
	}
	return string(b)
}

// trimOutput is a child's output for a report: white space trimmed, at most
// maxReportedStderr bytes, valid UTF-8.
func trimOutput(b []byte) string {
	s := strings.TrimSpace(strings.ToValidUTF8(string(b), "\uFFFD"))
	if len(s) > maxReportedStderr {
		cut := maxReportedStderr
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + " [...]"
	}
	return s
}
