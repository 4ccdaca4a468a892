// Package fakeopenclaw is a stand-in for OpenClaw 2026.9.6's `openclaw`
// CLI in tests of `oc doctor --fix`. Install writes an `openclaw` script that
// runs the test binary itself (TestFakeOpenClaw, which calls Main); the fake
// records every call (argv, the OPENCLAW_* environment, the working
// directory, and the gateway it reached) and answers `automations status`,
// `show` and `edit` the way 9.6 does: it picks the gateway as 9.6's CLI does
// (OPENCLAW_GATEWAY_URL, else gateway.mode "remote" and gateway.remote.url,
// else 127.0.0.1 on OPENCLAW_GATEWAY_PORT, the config's gateway.port, a port
// derived from OPENCLAW_PROFILE, or 18789; the config is
// OPENCLAW_CONFIG_PATH or <state dir>/openclaw.json, the state dir
// OPENCLAW_STATE_DIR or ~/.openclaw), and the gateways that "run" are those
// of the Spec, each serving one state dir and its jobs.
package fakeopenclaw

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // pure-Go driver "sqlite"
)

// Gateway is a gateway that runs during the test.
type Gateway struct {
	// Port is where it listens on 127.0.0.1 (URL, when set, instead).
	Port int    `json:"port,omitempty"`
	URL  string `json:"url,omitempty"`
	// StateDir is the install it serves: cron.status names
	// <StateDir>/state/openclaw.sqlite.
	StateDir string `json:"stateDir"`
	// JobsOf is the state dir whose cron_jobs it answers with (StateDir
	// when ""): a live install whose copy the test analyses has the same
	// jobs. Rows are read read-only, every store_key partition alike.
	JobsOf string `json:"jobsOf,omitempty"`
	// Jobs, when set, are its jobs instead, by id (as cron.get answers).
	Jobs map[string]json.RawMessage `json:"jobs,omitempty"`
	// Patch sets fields of every job it answers (a job edited since).
	Patch map[string]any `json:"patch,omitempty"`
}

// Spec is what the fake does.
type Spec struct {
	Gateways []Gateway `json:"gateways"`
	// Fail makes a subcommand ("status", "show", "edit"; "edit:<id>" for one
	// job) fail: it writes the text on stderr and exits 1.
	Fail map[string]string `json:"fail,omitempty"`
	// Say replaces a subcommand's answer on stdout (exit 0), keyed the same.
	Say map[string]string `json:"say,omitempty"`
	// Hang makes a subcommand hang (it writes its pid to <log>.hang.pid and
	// sleeps an hour).
	Hang string `json:"hang,omitempty"`
	// (the pids of the fake and of a worker it starts, "<pid> <pid>")
	// Log is where calls are recorded; Install sets it.
	Log string `json:"log"`
}

// Call is one recorded call of the fake.
type Call struct {
	Argv []string `json:"argv"`
	// Env holds the OPENCLAW_* variables and HOME the call saw.
	Env map[string]string `json:"env"`
	Dir string            `json:"dir"`
	// Target is the gateway URL the call resolved, Served the state dir of
	// the gateway that answered ("" when none did).
	Target string `json:"target"`
	Served string `json:"served"`
}

// Subcommand is the automations subcommand of a call ("" when none).
func (c Call) Subcommand() string {
	if len(c.Argv) >= 2 && (c.Argv[0] == "automations" || c.Argv[0] == "cron") {
		return c.Argv[1]
	}
	return ""
}

const specEnv = "OC_FAKE_OPENCLAW_SPEC"

// Install writes spec and an `openclaw` script that runs the test binary as
// the fake, in a new directory it returns (to put first on PATH). The
// script names the spec itself, so the fake works whatever environment the
// code under test gives it.
func Install(t testing.TB, spec Spec) (binDir, specPath string) {
	t.Helper()
	return InstallAt(t, t.TempDir(), spec)
}

// InstallAt is Install in dir (an empty directory).
func InstallAt(t testing.TB, dir string, spec Spec) (binDir, specPath string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	binDir = filepath.Join(dir, "bin")
	if err := os.Mkdir(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	specPath = filepath.Join(dir, "spec.json")
	if spec.Log == "" {
		spec.Log = filepath.Join(dir, "calls.jsonl")
	}
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(specPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\n%s=%s\nexport %s\nexec %s -test.run='^TestFakeOpenClaw$' -- \"$@\"\n",
		specEnv, shellQuote(specPath), specEnv, shellQuote(exe))
	if err := os.WriteFile(filepath.Join(binDir, "openclaw"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return binDir, specPath
}

// Calls reads the calls recorded for the spec at specPath.
func Calls(t testing.TB, specPath string) []Call {
	t.Helper()
	spec, err := readSpec(specPath)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(spec.Log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var calls []Call
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var c Call
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", spec.Log, err)
		}
		calls = append(calls, c)
	}
	return calls
}

// HangPIDFile is where a hanging call writes its pid and its worker's.
func HangPIDFile(t testing.TB, specPath string) string {
	spec, err := readSpec(specPath)
	if err != nil {
		t.Fatal(err)
	}
	return spec.Log + ".hang.pid"
}

// Main is the fake's entry point: TestFakeOpenClaw of a test package calls
// it. Run as a test (no spec in the environment) it skips.
func Main(t *testing.T) {
	path := os.Getenv(specEnv)
	if path == "" {
		t.Skip("the fake openclaw, run by the tests of doctor --fix")
	}
	os.Exit(run(path, flag.Args(), os.Stdout, os.Stderr))
}

func readSpec(path string) (*Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Spec
	return &s, json.Unmarshal(b, &s)
}

func run(specPath string, argv []string, stdout, stderr io.Writer) int {
	spec, err := readSpec(specPath)
	if err != nil {
		fmt.Fprintln(stderr, "fake openclaw:", err)
		return 99
	}
	call := Call{Argv: argv, Env: map[string]string{}}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OPENCLAW_") || k == "HOME" {
			call.Env[k] = v
		}
	}
	call.Dir, _ = os.Getwd()
	call.Target = target()
	gw := spec.gateway(call.Target)
	if gw != nil {
		call.Served = gw.StateDir
	}
	if err := record(spec.Log, call); err != nil {
		fmt.Fprintln(stderr, "fake openclaw:", err)
		return 99
	}
	sub := call.Subcommand()
	if sub == "" {
		fmt.Fprintln(stderr, "fake openclaw: only automations status, show and edit")
		return 2
	}
	if sub == spec.Hang {
		// A worker of its own, as node's openclaw has: stopping the fake
		// must stop its process group.
		worker := exec.Command("sleep", "3600")
		if err := worker.Start(); err != nil {
			fmt.Fprintln(stderr, "fake openclaw:", err)
			return 99
		}
		_ = os.WriteFile(spec.Log+".hang.pid", fmt.Appendf(nil, "%d %d", os.Getpid(), worker.Process.Pid), 0o644)
		time.Sleep(time.Hour)
	}
	opts, args := parseArgs(argv[2:])
	keys := []string{sub}
	if len(args) == 1 {
		keys = append(keys, sub+":"+args[0])
	}
	for _, k := range keys {
		if msg, ok := spec.Fail[k]; ok {
			fmt.Fprintln(stderr, msg)
			return 1
		}
		if out, ok := spec.Say[k]; ok {
			fmt.Fprintln(stdout, out)
			return 0
		}
	}
	if gw == nil {
		// 9.6's message when nothing listens on the target.
		fmt.Fprintf(stderr, "gateway closed (1006 abnormal closure (no close frame)): no close reason\nGateway target: %s\n", call.Target)
		return 1
	}
	switch sub {
	case "status":
		p := filepath.Join(gw.StateDir, "state", "openclaw.sqlite")
		return writeJSON(stdout, map[string]any{"enabled": true, "triggersEnabled": true, "storePath": p, "storage": "sqlite", "sqlitePath": p, "nextWakeAtMs": nil})
	case "show", "edit":
		if len(args) != 1 {
			fmt.Fprintln(stderr, "error: missing required argument 'id'")
			return 1
		}
		id := strings.TrimSpace(args[0]) // requireCronJobId
		jobs, err := gw.jobs()
		if err != nil {
			fmt.Fprintln(stderr, "fake openclaw:", err)
			return 99
		}
		job, ok := jobs[id]
		if !ok {
			msg := "Automation not found: " + id + ". Run `openclaw cron list` to see recent automation ids."
			_ = writeJSON(stdout, map[string]any{"ok": false, "error": map[string]any{"type": "cli_error", "message": msg}})
			fmt.Fprintln(stderr, msg)
			return 1
		}
		if sub == "edit" {
			edit(job, opts)
		}
		return writeJSON(stdout, job)
	}
	fmt.Fprintln(stderr, "fake openclaw: unknown subcommand", sub)
	return 2
}

// edit applies the options of `automations edit` the fix uses.
func edit(job map[string]any, opts map[string]string) {
	if v, ok := opts["session"]; ok {
		job["sessionTarget"] = v
	}
	if v, ok := opts["session-key"]; ok {
		job["sessionKey"] = v
	}
	delivery, _ := job["delivery"].(map[string]any)
	for opt, key := range map[string]string{"channel": "channel", "to": "to", "account": "accountId", "thread-id": "threadId"} {
		if v, ok := opts[opt]; ok {
			if delivery == nil {
				delivery = map[string]any{"mode": "announce"}
			}
			delivery[key] = v
		}
	}
	if delivery != nil {
		job["delivery"] = delivery
	}
	job["updatedAtMs"] = time.Now().UnixMilli()
}

// parseArgs splits commander-style arguments: --name=value and --flag
// options before "--", positionals (everything after "--").
func parseArgs(args []string) (map[string]string, []string) {
	opts := map[string]string{}
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return opts, append(pos, args[i+1:]...)
		case strings.HasPrefix(a, "--"):
			k, v, ok := strings.Cut(a[2:], "=")
			if !ok && k != "json" && i+1 < len(args) {
				i++
				v = args[i]
			}
			opts[k] = v
		default:
			pos = append(pos, a)
		}
	}
	return opts, pos
}

// target is the gateway URL 9.6's CLI would call with this environment.
func target() string {
	if u := strings.TrimSpace(os.Getenv("OPENCLAW_GATEWAY_URL")); u != "" {
		return u
	}
	home := strings.TrimSpace(os.Getenv("OPENCLAW_HOME"))
	if home == "" {
		home = os.Getenv("HOME")
	}
	state := strings.TrimSpace(os.Getenv("OPENCLAW_STATE_DIR"))
	if state == "" {
		state = filepath.Join(home, ".openclaw")
	}
	cfgPath := strings.TrimSpace(os.Getenv("OPENCLAW_CONFIG_PATH"))
	if cfgPath == "" {
		cfgPath = filepath.Join(state, "openclaw.json")
	}
	var cfg struct {
		Gateway struct {
			Mode   string `json:"mode"`
			Port   int    `json:"port"`
			Remote struct {
				URL string `json:"url"`
			} `json:"remote"`
		} `json:"gateway"`
	}
	if b, err := os.ReadFile(cfgPath); err == nil {
		_ = json.Unmarshal(b, &cfg)
	}
	if cfg.Gateway.Mode == "remote" && cfg.Gateway.Remote.URL != "" {
		return cfg.Gateway.Remote.URL
	}
	port := 18789
	if p, err := strconv.Atoi(strings.TrimSpace(os.Getenv("OPENCLAW_GATEWAY_PORT"))); err == nil && p > 0 {
		port = p
	} else if cfg.Gateway.Port > 0 {
		port = cfg.Gateway.Port
	} else if profile := strings.TrimSpace(os.Getenv("OPENCLAW_PROFILE")); profile != "" && !strings.EqualFold(profile, "default") {
		h := fnv.New32a()
		h.Write([]byte(profile))
		port = 20000 + int(h.Sum32()%40000)
	}
	return "ws://127.0.0.1:" + strconv.Itoa(port)
}

func (s *Spec) gateway(target string) *Gateway {
	for i := range s.Gateways {
		g := &s.Gateways[i]
		if g.URL != "" && g.URL == target {
			return g
		}
		if u, err := url.Parse(target); err == nil && g.Port != 0 && u.Hostname() == "127.0.0.1" && u.Port() == strconv.Itoa(g.Port) {
			return g
		}
	}
	return nil
}

func record(path string, c Call) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeJSON(w io.Writer, v any) int {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return 99
	}
	fmt.Fprintln(w, string(b))
	return 0
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// jobs are the gateway's cron jobs by id as 9.6's cron.get answers them:
// job_json with state_json as its state, plus the fields the service adds
// (configRevision, status), and Patch.
func (g *Gateway) jobs() (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	if g.Jobs != nil {
		for id, raw := range g.Jobs {
			job, err := decodeObject(raw)
			if err != nil {
				return nil, fmt.Errorf("job %s: %w", id, err)
			}
			maps.Copy(job, g.Patch)
			out[id] = job
		}
		return out, nil
	}
	dir := g.JobsOf
	if dir == "" {
		dir = g.StateDir
	}
	u := url.URL{Scheme: "file", Path: filepath.Join(dir, "state", "openclaw.sqlite"), RawQuery: "mode=ro&immutable=1"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.Query("SELECT job_id, job_json, coalesce(state_json, '{}') FROM cron_jobs")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", u.Path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, jobJSON, stateJSON string
		if err := rows.Scan(&id, &jobJSON, &stateJSON); err != nil {
			return nil, err
		}
		job, err := decodeObject([]byte(jobJSON))
		if err != nil {
			return nil, fmt.Errorf("job %s: %w", id, err)
		}
		if job["state"], err = decodeObject([]byte(stateJSON)); err != nil {
			return nil, fmt.Errorf("job %s: state: %w", id, err)
		}
		job["configRevision"] = "sha256:fake"
		job["status"] = "idle"
		maps.Copy(job, g.Patch)
		out[id] = job
	}
	return out, rows.Err()
}

// decodeObject decodes a JSON object, keeping numbers as written.
func decodeObject(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("not a JSON object")
	}
	return m, nil
}
