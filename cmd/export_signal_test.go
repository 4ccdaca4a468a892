package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/benchdb"
	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store"
)

const (
	exportSignalDBEnv     = "OC_TEST_EXPORT_SIGNAL_DB"
	exportSignalSchemaEnv = "OC_TEST_EXPORT_SIGNAL_SCHEMA"
)

// TestExportSignalDBHelper is not a test: it is the child process
// TestExportStopsAtTheFirstSIGINT makes its database in.
func TestExportSignalDBHelper(t *testing.T) {
	db := os.Getenv(exportSignalDBEnv)
	if db == "" {
		t.Skip("helper process for TestExportStopsAtTheFirstSIGINT")
	}
	ddl, err := os.ReadFile(os.Getenv(exportSignalSchemaEnv))
	if err != nil {
		t.Fatal(err)
	}
	if err := benchdb.Generate(string(ddl), db, benchdb.Spec{Sessions: 1, Events: 100_000, Text: 300}); err != nil {
		t.Fatal(err)
	}
}

// One SIGINT stops `oc export` while it reads a large SQLite session: it
// exits 3 ("interrupted"), and neither the output file nor a temporary
// file is left. Before, the first SIGINT only cancelled a context export
// never looked at: the export ran to its end, wrote the file and exited 0.
func TestExportStopsAtTheFirstSIGINT(t *testing.T) {
	if testing.Short() {
		oracletest.NotRequested(t, "builds oc and a 100,000-event database (not with -short)")
	}
	schema := filepath.Join(oracletest.SharedDir(t), "spec", "research", "sqlite-era", "agent-schema-2026.9.6.sql")
	if _, err := os.Stat(schema); err != nil {
		oracletest.Unavailable(t, fmt.Sprintf("no agent schema: %v", err))
	}
	bin := oracletest.BuildOC(t)
	state := t.TempDir()
	db := filepath.Join(state, "agents", "main", "agent", store.AgentDBName)
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		t.Fatal(err)
	}
	// One session of 100,000 events: reading it takes oc a good second,
	// far longer than the few milliseconds the signal needs to arrive. It
	// is made in a process of its own: the test process must stay small,
	// as a child's ru_maxrss counts its parent's at the exec (the memory
	// tests of this package measure children).
	gen := exec.Command(os.Args[0], "-test.run=^TestExportSignalDBHelper$", "-test.v=false")
	gen.Env = append(os.Environ(), exportSignalDBEnv+"="+db, exportSignalSchemaEnv+"="+schema)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("generating the database: %v\n%s", err, out)
	}
	out := t.TempDir()
	target := filepath.Join(out, "main.jsonl")
	cmd := exec.Command(bin, "export", "--state-dir", state, "agent:main:bench:0", "-o", target)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Mid-export: the output's temporary file exists (oc is reading rows
	// into it). Signal handling is installed long before.
	started := false
	for !started {
		select {
		case err := <-done:
			t.Fatalf("the export ended before it could be interrupted (%v): %s", err, stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
		es, _ := os.ReadDir(out)
		for _, e := range es {
			started = started || durable.IsTempName(e.Name())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var werr error
	select {
	case werr = <-done:
	case <-time.After(2 * time.Minute): // a hang guard, not a timing
		_ = cmd.Process.Kill()
		t.Fatalf("oc export did not stop after SIGINT: %s", stderr.String())
	}
	var ee *exec.ExitError
	code := 0
	if errors.As(werr, &ee) {
		code = ee.ExitCode()
	}
	if code != cli.ExitIncomplete {
		t.Errorf("exit code %d, want %d (interrupted); stderr %q", code, cli.ExitIncomplete, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") || strings.Count(strings.TrimSpace(stderr.String()), "\n") > 0 {
		t.Errorf("stderr %q: want one line saying the export was interrupted", stderr.String())
	}
	if es, _ := os.ReadDir(out); len(es) != 0 {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("left in the output folder: %v", names)
	}
}
