package oracletest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Batch96Env is Batch96 with extra environment variables for the oracle
// process (ORACLE_TZ, ORACLE_MODEL_JSON, ORACLE_SYSTEM, ...: they apply to
// every job of the batch). Every job must be answered.
func Batch96Env(t testing.TB, jobs []Job, env []string, timeout time.Duration) map[string]Result {
	t.Helper()
	script := Oracle96(t)
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, j := range jobs {
		if err := enc.Encode(j); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "batch")
	cmd.Env = append(os.Environ(), env...)
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
	if len(out) != len(jobs) {
		t.Fatalf("2026.9.6 oracle batch answered %d of %d jobs", len(out), len(jobs))
	}
	return out
}
