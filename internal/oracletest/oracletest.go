// Package oracletest lets tests compare oc with OpenClaw 2026.5.6: it finds the
// shared corpus, reads the oracle's stored answers for it, and runs the oracle
// (../shared/oracle/oracle) in batch mode, one Node process per call.
//
// When the corpus or the oracle is not available, everything here skips the
// calling test locally (and records the skip, so that scripts/test prints it
// without -v) but fails it in CI (CI set, as CI services do): there a missing
// oracle is a failure, never a silent green run.
//
// Every differential test states how many comparisons it must make with
// Compared; scripts/test prints the sum of them (see report.go).
package oracletest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// SharedDir returns the ../shared folder beside the repository, or skips.
func SharedDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("OC_SHARED_DIR"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		Unavailable(t, fmt.Sprintf("oracletest: %v", err))
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			shared := filepath.Join(filepath.Dir(dir), "shared")
			if _, err := os.Stat(shared); err != nil {
				Unavailable(t, fmt.Sprintf("no shared corpus: %s not found; set OC_SHARED_DIR", shared))
			}
			return shared
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			Unavailable(t, "repository root not found")
		}
		dir = parent
	}
}

// CorpusDir is ../shared/corpus/real.
func CorpusDir(t testing.TB) string { return filepath.Join(SharedDir(t), "corpus", "real") }

// Transcripts lists every transcript in the corpus: live (*.jsonl) and archived
// (.jsonl.reset.*, .jsonl.deleted.*, .jsonl.bak-*, .checkpoint.*.jsonl) names,
// without trajectories, locks and indexes. These are exactly the files the
// stored oracle answers cover.
func Transcripts(t testing.TB) []string {
	t.Helper()
	dir := CorpusDir(t)
	entries, err := os.ReadDir(dir)
	if err != nil {
		Unavailable(t, fmt.Sprintf("corpus: %v", err))
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if !strings.Contains(n, "__sessions__") || !strings.Contains(n, ".jsonl") {
			continue
		}
		if strings.HasSuffix(n, ".lock") || strings.Contains(n, ".trajectory") {
			continue
		}
		out = append(out, filepath.Join(dir, n))
	}
	sort.Strings(out)
	return out
}

// Answer is one stored or live oracle answer.
type Answer struct {
	ID    []string        `json:"id"`
	OK    bool            `json:"ok"`
	Out   json.RawMessage `json:"out"`
	Error string          `json:"error"`
}

// StoredAnswers reads ../shared/corpus/oracle-answers.jsonl, keyed by the id
// joined with "|" (e.g. "<file>|context", "<file>|payload|openai|openai-responses|gpt-5").
func StoredAnswers(t testing.TB) map[string]Answer {
	t.Helper()
	path := filepath.Join(SharedDir(t), "corpus", "oracle-answers.jsonl")
	f, err := os.Open(path)
	if err != nil {
		Unavailable(t, fmt.Sprintf("stored oracle answers: %v", err))
	}
	defer f.Close()
	out := map[string]Answer{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		var a Answer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("oracle-answers.jsonl: %v", err)
		}
		out[strings.Join(a.ID, "|")] = a
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("oracle-answers.jsonl: %v", err)
	}
	return out
}

// Job is one oracle call: mode and its arguments (see ../shared/oracle/README.md).
type Job struct {
	ID   string   `json:"id"`
	Mode string   `json:"mode"`
	Args []string `json:"args"`
}

// Result is the oracle's answer to one Job.
type Result struct {
	ID    string          `json:"id"`
	OK    bool            `json:"ok"`
	Out   json.RawMessage `json:"out"`
	Error string          `json:"error"`
}

// Oracle returns the path of the OpenClaw 2026.5.6 oracle script after making
// sure it is installed; when it cannot be, the test fails in CI and skips
// (recorded in the report) elsewhere.
func Oracle(t testing.TB) string {
	t.Helper()
	return installed(t, "oracle", "2026.5.6", 5*time.Minute)
}

// Oracle96 is Oracle for the OpenClaw 2026.9.6 oracle.
func Oracle96(t testing.TB) string {
	t.Helper()
	return installed(t, "oracle-2026.9.6", "2026.9.6", 10*time.Minute)
}

// installed runs ../shared/<dir>/setup and returns ../shared/<dir>/oracle.
func installed(t testing.TB, dir, release string, timeout time.Duration) string {
	t.Helper()
	if os.Getenv("OC_SKIP_ORACLE") != "" {
		Unavailable(t, "OC_SKIP_ORACLE is set: differential tests against OpenClaw "+release+" not run")
	}
	script := filepath.Join(SharedDir(t), dir, "oracle")
	setup := filepath.Join(SharedDir(t), dir, "setup")
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := Command(ctx, setup)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		Unavailable(t, fmt.Sprintf("*** the OpenClaw %s oracle could not be installed (%v): differential tests NOT run ***\n%s", release, err, lastLines(stderr.String(), 5)))
	}
	return script
}

// Batch runs jobs through one 2026.5.6 `oracle batch` process and returns the
// results keyed by job id. timeout bounds the whole batch.
func Batch(t testing.TB, jobs []Job, timeout time.Duration) map[string]Result {
	t.Helper()
	return runBatch(t, Oracle(t), jobs, nil, timeout)
}

// Batch96 is Batch on the 2026.9.6 oracle; every job must be answered.
func Batch96(t testing.TB, jobs []Job, timeout time.Duration) map[string]Result {
	t.Helper()
	return Batch96Env(t, jobs, nil, timeout)
}

// Batch96Env is Batch96 with extra environment variables for the oracle
// process (ORACLE_TZ, ORACLE_MODEL_JSON, ORACLE_SYSTEM, ...: they apply to
// every job of the batch). Every job must be answered.
func Batch96Env(t testing.TB, jobs []Job, env []string, timeout time.Duration) map[string]Result {
	t.Helper()
	out := runBatch(t, Oracle96(t), jobs, env, timeout)
	if len(out) != len(jobs) {
		t.Fatalf("2026.9.6 oracle batch answered %d of %d jobs", len(out), len(jobs))
	}
	return out
}

// runBatch runs one oracle batch process (env: extra environment
// variables, nil for none) and returns its answers by job id.
func runBatch(t testing.TB, script string, jobs []Job, env []string, timeout time.Duration) map[string]Result {
	t.Helper()
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, j := range jobs {
		if err := enc.Encode(j); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := Command(ctx, script, "batch")
	if env != nil {
		cmd.Env = append(cmd.Environ(), env...)
	}
	cmd.Stdin = &in
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s batch: %v\n%s", script, err, lastLines(stderr.String(), 20))
	}
	out := map[string]Result{}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 512<<20)
	for sc.Scan() {
		var r Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s batch output: %v", script, err)
		}
		out[r.ID] = r
	}
	return out
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
