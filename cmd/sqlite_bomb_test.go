package cmd

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/internal/zstdframe"
)

// ocProcessEnv makes the test binary run oc with the arguments it holds (a
// JSON array), so that a test can measure one command's process.
const ocProcessEnv = "OC_TEST_RUN_OC_ARGS"

// ocMeasureEnv names the file where a measuring helper writes the max RSS
// of the oc process it starts. Linux keeps a process's ru_maxrss across
// execve, starting it at the peak of the memory the process was forked
// from (Go forks with CLONE_VM), so oc started from this test binary,
// whose heap other tests grew, would report the test binary's peak. A
// fresh helper forks oc from its own small memory instead.
const ocMeasureEnv = "OC_TEST_RSS_FILE"

func TestOCProcessHelper(t *testing.T) {
	raw := os.Getenv(ocProcessEnv)
	if raw == "" {
		t.Skip("helper process for the tests that measure a run of oc")
	}
	if rssFile := os.Getenv(ocMeasureEnv); rssFile != "" {
		os.Exit(measureOCProcess(rssFile))
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(Run(context.Background(), args, cli.System(), os.Getenv))
}

// measureOCProcess runs this helper again without ocMeasureEnv, passing
// its input and output through, and writes the child's max RSS in bytes to
// rssFile; it returns the child's exit code.
func measureOCProcess(rssFile string) int {
	cmd := exec.Command(os.Args[0], "-test.run=^TestOCProcessHelper$", "-test.v=false")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, ocMeasureEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	_ = cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "the measured oc did not start")
		return 125
	}
	var maxRSS int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		maxRSS = int64(ru.Maxrss) * 1024 // kilobytes on Linux
	}
	if err := os.WriteFile(rssFile, []byte(fmt.Sprint(maxRSS)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 125
	}
	return cmd.ProcessState.ExitCode()
}

// ocProcess is one run of oc in a process of its own: its exit code, its
// output, and the most memory it had resident (getrusage's ru_maxrss).
type ocProcess struct {
	code           int
	stdout, stderr string
	maxRSS         int64 // bytes
}

func runOCProcess(t *testing.T, args ...string) ocProcess {
	t.Helper()
	raw, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // a hang guard, not a measure
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestOCProcessHelper$", "-test.v=false")
	rssFile := filepath.Join(t.TempDir(), "maxrss")
	cmd.Env = append(os.Environ(), ocProcessEnv+"="+string(raw), ocMeasureEnv+"="+rssFile, "NO_COLOR=1")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	p := ocProcess{stdout: out.String(), stderr: errOut.String()}
	if cmd.ProcessState == nil {
		t.Fatalf("oc %v did not run: %v", args, err)
	}
	p.code = cmd.ProcessState.ExitCode()
	if b, err := os.ReadFile(rssFile); err == nil {
		_, _ = fmt.Sscan(string(b), &p.maxRSS)
	}
	if ctx.Err() != nil {
		t.Fatalf("oc %v still ran after 2 minutes", args)
	}
	return p
}

// navigationJSON passes the schema's check of transcript_events.navigation_json.
const navigationJSON = `{"version":1,"report":{"kind":"canonical"},"navigation":{},"reset":{},"model":{},"modelBytes":0,"modelWithoutCheckpointBytes":0,"withoutCustomDataBytes":0}`

// bombState is a copy of a 2026.9.6 install with decompression bombs, each
// made in the test by a hand-written zstd frame (zstdframe):
//   - lying: 40 schema-valid rows of about 2 KB in one session whose
//     event_utf8_bytes says 1000 and that each inflate to 60 MiB;
//   - honest: 100 rows in another session that each inflate to exactly the
//     4 MiB they claim (what 9.6 accepts), 400 MiB in all;
//   - an archived generation whose 32 KB blob (correct sha256) inflates to
//     1 GiB.
func bombState(t *testing.T) (state, lying, honest, archived string) {
	t.Helper()
	state = oracletest.Fixture96State(t, "example-state")
	dbPath := filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")
	w, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := w.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rows, err := w.Query("SELECT session_id, max(seq) FROM transcript_events GROUP BY session_id ORDER BY session_id")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var last []int64
	for rows.Next() {
		var id string
		var seq int64
		if err := rows.Scan(&id, &seq); err != nil {
			t.Fatal(err)
		}
		ids, last = append(ids, id), append(last, seq)
	}
	rows.Close()
	if len(ids) < 2 {
		t.Fatalf("the fixture has %d sessions, want 2", len(ids))
	}
	lying, honest = ids[0], ids[1]
	insert := func(id string, seq int64, frame []byte, claim int) {
		exec(`INSERT INTO transcript_events(session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json) VALUES (?,?,NULL,?,?,?,?)`,
			id, seq, 1777000000000+seq, frame, claim, navigationJSON)
	}
	for i := int64(1); i <= 40; i++ {
		body := fmt.Sprintf(`{"type":"message","id":"bomb%d","parentId":null,"message":{"role":"user","content":"`, i)
		insert(lying, last[0]+i, zstdframe.Bomb([]byte(body), 'a', 60<<20, []byte(`"}}`)), 1000)
	}
	for i := int64(1); i <= 100; i++ {
		body := fmt.Sprintf(`{"type":"message","id":"big%03d","parentId":null,"message":{"role":"user","content":"`, i)
		tail := `"}}`
		insert(honest, last[1]+i, zstdframe.Bomb([]byte(body), 'a', int64(4<<20-len(body)-len(tail)), []byte(tail)), 4<<20)
	}
	exec(`CREATE TABLE IF NOT EXISTS session_transcript_archives (
  session_id TEXT NOT NULL, generation TEXT NOT NULL, session_key TEXT NOT NULL,
  reason TEXT NOT NULL CHECK (reason IN ('deleted', 'reset')),
  encoding TEXT NOT NULL CHECK (encoding IN ('identity', 'zstd')),
  archive_blob BLOB NOT NULL, archive_sha256 TEXT NOT NULL CHECK (length(archive_sha256) = 64),
  archive_name TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL, published_at INTEGER,
  publish_attempts INTEGER NOT NULL DEFAULT 0 CHECK (publish_attempts >= 0),
  last_publish_attempt_at INTEGER, last_publish_error TEXT,
  PRIMARY KEY (session_id, generation)) STRICT`)
	const gone = "0197d2ff-0000-7000-8000-00000000b0b0"
	blob := zstdframe.Bomb([]byte(`{"type":"session","version":3,"id":"`+gone+`"}`+"\n"+`{"type":"message","id":"m1","parentId":null,"message":{"role":"user","content":"`), 'a', 1<<30, []byte(`"}}`+"\n"))
	sum := sha256.Sum256(blob)
	exec(`INSERT INTO session_transcript_archives(session_id, generation, session_key, reason, encoding, archive_blob, archive_sha256, archive_name, created_at) VALUES (?,?,?,?,?,?,?,?,?)`,
		gone, "b0mb", "agent:main:gone", "deleted", "zstd", blob, hex.EncodeToString(sum[:]), gone+".jsonl.deleted.2026-04-20T00-00-00.000Z.b0mb.zst", 1776643200000)
	if len(blob) > 40<<10 {
		t.Fatalf("the archive bomb is %d bytes", len(blob))
	}
	return state, lying, honest, gone + "@b0mb"
}

// Every command that reads sessions, run on an install with decompression
// bombs, ends under a fixed memory bound (256 MiB resident, measured on its
// process) whatever the bombs decode to, and says what it found: the
// lying rows are damaged rows named by session and seq (not decoded past
// the size they claim), the session too big to hold is not analysed, the
// archive's analysis stops at its cap, and export refuses what decodes to
// more than its limit.
func TestBombsStayWithinMemory(t *testing.T) {
	state, lying, honest, archived := bombState(t)
	const bound = 256 << 20
	devnull := filepath.Join(t.TempDir(), "out.jsonl")
	for _, c := range []struct {
		name string
		args []string
		code int      // -1: any
		want []string // in stdout+stderr
	}{
		{"inspect", []string{"inspect", "--state-dir", state, "--json"}, -1, []string{"sqlite-event-damaged", "seq", "not decoded further", "sqlite-session-too-large"}},
		{"inspect --archived", []string{"inspect", "--archived", "--state-dir", state, "--json"}, -1, []string{"sqlite-archive-too-large"}},
		{"inspect SESSION", []string{"inspect", lying, "--state-dir", state, "--json"}, -1, []string{"sqlite-event-damaged"}},
		{"doctor", []string{"doctor", "--state-dir", state, "--json"}, -1, []string{"sqlite-event-damaged"}},
		{"export lying", []string{"export", lying, "--state-dir", state}, cli.ExitIncomplete, []string{"seq", "1000 bytes event_utf8_bytes says"}},
		{"export honest", []string{"export", honest, "--state-dir", state, "-o", devnull}, 0, nil},
		{"export honest over the limit", []string{"export", honest, "--state-dir", state, "--max-decoded-size", "64M"}, cli.ExitIncomplete, []string{"more than the limit", "--max-decoded-size"}},
		{"export archived", []string{"export", archived, "--state-dir", state}, cli.ExitIncomplete, []string{"decodes to more than", "--max-decoded-size"}},
		{"replay", []string{"replay", lying, "--provider", "anthropic", "--state-dir", state}, -1, []string{"seq"}},
	} {
		p := runOCProcess(t, c.args...)
		out := p.stdout + p.stderr
		t.Logf("%s: exit %d, max RSS %d MiB", c.name, p.code, p.maxRSS>>20)
		if p.maxRSS == 0 || p.maxRSS > bound {
			t.Errorf("%s: max RSS %d MiB, want under %d MiB", c.name, p.maxRSS>>20, bound>>20)
		}
		if c.code >= 0 && p.code != c.code {
			t.Errorf("%s: exit %d, want %d; stderr %q", c.name, p.code, c.code, strings.TrimSpace(p.stderr))
		}
		if strings.Contains(p.stderr, "goroutine ") || strings.Contains(p.stderr, "panic") {
			t.Errorf("%s: a crash: %.500s", c.name, p.stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q: %.800s", c.name, w, out)
			}
		}
	}
	if fi, err := os.Stat(devnull); err != nil || fi.Size() < 400<<20 {
		t.Errorf("export of the honest session wrote %v bytes (%v), want its 400 MiB", fi, err)
	}
}
