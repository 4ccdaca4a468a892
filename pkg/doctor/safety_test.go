package doctor

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/jsondoc"
	"github.com/openclaw-tools/oc/internal/oracletest"
)

// Data safety of `oc doctor --fix` (issue 8, "Doctor").

func storeWithJobs(ids ...string) []byte {
	var jobs []string
	for _, id := range ids {
		jobs = append(jobs, fmt.Sprintf(elsewhereJob, id))
	}
	return []byte(`{"version":1,"jobs":[` + strings.Join(jobs, ",") + `]}`)
}

func fixOpts(sd string) Options {
	return Options{StateDir: sd, Fix: true, Now: func() time.Time { return fixedNow },
		GatewayLockDir: filepath.Join(sd, "no-gateway-locks"), Env: func(string) string { return "" }}
}

// openClawStyleAdd adds one job to the store the way OpenClaw writes it:
// read, parse, append, temp file, rename. It reports whether it wrote.
func openClawStyleAdd(t *testing.T, store, id string) bool {
	raw, err := os.ReadFile(store)
	if err != nil {
		return false
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Errorf("writer read an invalid store: %v", err)
		return false
	}
	jobs, _ := doc["jobs"].([]any)
	doc["jobs"] = append(jobs, map[string]any{"id": id, "name": "added by the writer", "enabled": true,
		"schedule": map[string]any{"kind": "every", "everyMs": 60000}, "sessionTarget": "isolated",
		"wakeMode": "now", "payload": map[string]any{"kind": "agentTurn", "message": "m"}, "state": map[string]any{}})
	out, _ := json.MarshalIndent(doc, "", "  ")
	// pid 1 is alive: doctor takes the temp file for a write in progress.
	tmp := fmt.Sprintf("%s.%d.%x.tmp", store, 1, rand.Uint64())
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		t.Error(err)
		return false
	}
	if err := os.Rename(tmp, store); err != nil {
		t.Error(err)
		return false
	}
	return true
}

// A writer adding jobs while --fix migrates: no job the writer added is ever
// lost, over many rounds (before compare-and-swap, 1-4 jobs were lost in
// about half the rounds).
func TestConcurrentWriterLosesNoJob(t *testing.T) {
	rounds := 25
	migratedRounds, concurrentWrites := 0, 0
	for round := 0; round < rounds; round++ {
		sd, store := stateWithStore(t, storeWithJobs("a", "b"))
		stop := make(chan struct{})
		var added []string
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("w-%d-%d", round, n)
				if openClawStyleAdd(t, store, id) {
					added = append(added, id)
				}
				time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
			}
		}()
		r, err := Run(context.Background(), fixOpts(sd))
		close(stop)
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		jobs := loadJobs(t, store)
		for _, id := range added {
			if jobs[id] == nil {
				t.Errorf("round %d: job %s added by the writer is lost (%d of %d kept)", round, id, len(jobs)-2, len(added))
				break
			}
		}
		if jobs["a"] == nil || jobs["b"] == nil {
			t.Errorf("round %d: an original job is lost", round)
		}
		for _, j := range r.Cron.Jobs {
			if j.Migrated {
				migratedRounds++
				break
			}
		}
		concurrentWrites += len(added)
	}
	t.Logf("%d of %d rounds migrated despite the writer; %d jobs added during the runs", migratedRounds, rounds, concurrentWrites)
	if concurrentWrites < rounds {
		t.Fatalf("the writer added only %d jobs during %d runs: the test proves nothing", concurrentWrites, rounds)
	}
}

// Without a concurrent writer, a store changed between the check and the
// fix is planned again from what is on disk: the new job is kept and the
// migration still happens.
func TestStoreChangedBeforeFixIsReplanned(t *testing.T) {
	sd, store := stateWithStore(t, storeWithJobs("a"))
	opts := fixOpts(sd)
	opts.beforeFix = func() { openClawStyleAdd(t, store, "new") }
	r, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	jobs := loadJobs(t, store)
	if jobs["new"] == nil {
		t.Fatal("the job added between check and fix was lost")
	}
	if s, _ := jobs["a"].StringOf("sessionTarget"); s != "isolated" {
		t.Errorf("job a not migrated after re-planning: %q (%v)", s, findingIDs(r))
	}
	backups, _ := filepath.Glob(store + ".pre-oc-doctor.*")
	if len(backups) != 1 {
		t.Fatalf("backups %v, want exactly one", backups)
	}
	if b, _ := os.ReadFile(backups[0]); !strings.Contains(string(b), `"new"`) {
		t.Error("the backup is not the store the migration was made from")
	}
}

// Owner and mode: a store owned by another user keeps them, the backup and
// the report get the store's owner (as root, e.g. `sudo oc doctor --fix`).
func TestFixKeepsOwnerAndMode(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown to another uid")
	}
	const uid, gid = 12345, 12346
	sd, store := stateWithStore(t, storeWithJobs("a"))
	state := filepath.Join(sd, "cron", "jobs-state.json")
	if err := os.WriteFile(state, []byte(`{"version":1,"jobs":{"a":{"updatedAtMs":1,"state":{}}}}`), 0o640); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{store, state} {
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o640); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Run(context.Background(), fixOpts(sd))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Cron.Jobs[0].Migrated || r.Cron.MigrationReport == "" || len(r.Cron.Backups) != 2 {
		t.Fatalf("not migrated: %v %+v", findingIDs(r), r.Cron)
	}
	check := func(p string, mode os.FileMode) {
		t.Helper()
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		u, g, _ := owner(st)
		if u != uid || g != gid || st.Mode().Perm() != mode {
			t.Errorf("%s: owner %d:%d mode %o, want %d:%d %o", filepath.Base(p), u, g, st.Mode().Perm(), uid, gid, mode)
		}
	}
	check(store, 0o640)
	check(state, 0o640)
	for _, b := range r.Cron.Backups {
		check(b, 0o600)
	}
	check(r.Cron.MigrationReport, 0o600)
}

// A new file doctor creates (the report) is 0600 with the owner of the
// store (not root's umask and owner).
func TestNewFilesAre0600(t *testing.T) {
	sd, _ := stateWithStore(t, storeWithJobs("a"))
	r, err := Run(context.Background(), fixOpts(sd))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append([]string{r.Cron.MigrationReport}, r.Cron.Backups...) {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v mode %v", p, err, st.Mode())
		}
	}
}

// A gateway running as another user, whose state dir is reached through a
// symlink, and a relative --state-dir: --fix refuses and names the process.
func TestGatewayOfAnotherUIDThroughSymlink(t *testing.T) {
	sd, store := stateWithStore(t, storeWithJobs("a"))
	parent := t.TempDir()
	link := filepath.Join(parent, "state-link")
	if err := os.Symlink(sd, link); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	lockDir := filepath.Join(tmp, "openclaw-12345") // not our uid
	if err := os.Mkdir(lockDir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(link, "openclaw.json") // the gateway was started through the link
	payload := fmt.Sprintf(`{"pid":%d,"createdAt":"%s","configPath":%q}`, os.Getpid(), time.Now().UTC().Format(time.RFC3339), cfg)
	if err := os.WriteFile(filepath.Join(lockDir, "gateway."+hash8(cfg)+".lock"), []byte(payload), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "TMPDIR" {
			return tmp
		}
		return ""
	}
	before := sha256Of(t, store)
	for _, stateDir := range []string{sd, "state-link"} {
		t.Chdir(parent)
		r, err := Run(context.Background(), Options{StateDir: stateDir, Fix: true, Env: env, Now: func() time.Time { return fixedNow }})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Gateway.Running || r.Refused == "" || !strings.Contains(r.Refused, fmt.Sprint(os.Getpid())) {
			t.Errorf("--state-dir %s: gateway %+v refused %q", stateDir, r.Gateway, r.Refused)
		}
		if sha256Of(t, store) != before {
			t.Fatalf("--state-dir %s: store written while the gateway runs", stateDir)
		}
	}
}

// A stale lock is re-checked immediately before it is removed: a live lock
// that took its place in between survives, whether it is a new file or the
// same file rewritten, and whether it came before the last check or
// between that check and the move aside (judged by inode and bytes: a new
// lock may be given the inode number of the stale one removed).
func TestStaleLockRecheckedBeforeRemoval(t *testing.T) {
	live := fmt.Sprintf(`{"pid":%d,"createdAt":"%s"}`, os.Getpid(), time.Now().UTC().Format(time.RFC3339Nano))
	for _, c := range []struct{ how, window string }{
		{"replaced", "fix"}, {"rewritten", "fix"}, {"replaced", "last"}, {"rewritten", "last"},
	} {
		how, window := c.how, c.window
		t.Run(how+" before the "+map[string]string{"fix": "re-check", "last": "move aside"}[window], func(t *testing.T) {
			sd, _ := stateWithStore(t, []byte(`{"version":1,"jobs":[]}`))
			sess := filepath.Join(sd, "agents", "main", "sessions")
			_ = os.MkdirAll(sess, 0o700)
			lock := filepath.Join(sess, "0b7f0d7e-0000-4000-8000-000000000001.jsonl.lock")
			_ = os.WriteFile(lock, []byte(`{"pid":999999999,"createdAt":"2026-01-01T00:00:00.000Z"}`), 0o600)
			opts := fixOpts(sd)
			takeLock := func() {
				if how == "replaced" {
					_ = os.Remove(lock)
				}
				if err := os.WriteFile(lock, []byte(live), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if window == "last" {
				opts.beforeLockAside = takeLock
			} else {
				opts.beforeFix = takeLock
			}
			r, err := Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(lock); err != nil || string(b) != live {
				t.Fatalf("the live lock was removed or changed: %v %q (%v)", err, b, findingIDs(r))
			}
			if f := findingByID(r, "stale-session-lock"); f == nil || f.Fixed {
				t.Errorf("finding %+v", f)
			}
			left, _ := filepath.Glob(lock + ".oc-stale-*")
			if len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// A pid above 2^31-1 is never a live process (OpenClaw's isValidPid; kill(2)
// would see 2^32+1 as pid 1, which is alive): its lock is stale, removed by
// --fix, and no gateway runs.
func TestPidAbove31BitsIsNotAlive(t *testing.T) {
	now := time.Now().UTC().Format(time.RFC3339Nano)
	for _, pid := range []string{"4294967297", "2147483648", "9007199254740993"} {
		sd, _ := stateWithStore(t, []byte(`{"version":1,"jobs":[]}`))
		sess := filepath.Join(sd, "agents", "main", "sessions")
		_ = os.MkdirAll(sess, 0o700)
		lock := filepath.Join(sess, "0b7f0d7e-0000-4000-8000-000000000001.jsonl.lock")
		_ = os.WriteFile(lock, []byte(`{"pid":`+pid+`,"createdAt":"`+now+`"}`), 0o600)
		lockDir := filepath.Join(sd, "gw")
		_ = os.Mkdir(lockDir, 0o700)
		cfg := filepath.Join(sd, "openclaw.json")
		_ = os.WriteFile(filepath.Join(lockDir, "gateway."+hash8(cfg)+".lock"), []byte(`{"pid":`+pid+`,"createdAt":"`+now+`","configPath":"`+cfg+`"}`), 0o600)
		opts := fixOpts(sd)
		opts.GatewayLockDir = lockDir
		opts.Now = time.Now
		r, err := Run(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if r.Gateway.Running {
			t.Errorf("pid %s: gateway counted as running: %+v", pid, r.Gateway)
		}
		if f := findingByID(r, "stale-session-lock"); f == nil || !f.Fixed || exists(lock) {
			t.Errorf("pid %s: lock not judged stale and removed: %v", pid, findingIDs(r))
		}
	}
}

// FIFOs (and other special files) named like OpenClaw's files never hang
// doctor; each is a finding.
func TestSpecialFilesDoNotHang(t *testing.T) {
	sd, store := stateWithStore(t, nil)
	sess := filepath.Join(sd, "agents", "main", "sessions")
	_ = os.MkdirAll(sess, 0o700)
	fifos := []string{
		store,
		filepath.Join(sd, "cron", "jobs-state.json"),
		filepath.Join(sess, "sessions.json"),
		filepath.Join(sess, "0b7f0d7e-0000-4000-8000-000000000001.jsonl"),
		filepath.Join(sess, "0b7f0d7e-0000-4000-8000-000000000002.jsonl.lock"),
		filepath.Join(sd, "openclaw.json"),
	}
	for _, p := range fifos {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	done := make(chan *Report, 1)
	go func() {
		opts := fixOpts(sd)
		opts.Transcripts = []TranscriptCheck{RepairCheck, OwnershipCheck}
		r, err := Run(context.Background(), opts)
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	var r *Report
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("oc doctor hangs on a FIFO")
	}
	for _, id := range []string{"cron-store-not-a-file", "sessions-index-not-a-file", "lock-not-a-file", "transcript-not-a-file", "config-unreadable"} {
		if !hasFinding(r, id) {
			t.Errorf("no %s finding: %v", id, findingIDs(r))
		}
	}
	// jobs-state.json as a FIFO beside a real store.
	_ = os.Remove(store)
	if err := os.WriteFile(store, storeWithJobs("a"), 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		r, _ := Run(context.Background(), fixOpts(sd))
		done <- r
	}()
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("oc doctor hangs on a FIFO jobs-state.json")
	}
	if f := findingByID(r, "cron-state-invalid"); f == nil || !strings.Contains(f.Message, "FIFO") {
		t.Errorf("state FIFO: %+v %v", f, findingIDs(r))
	}
	for _, p := range fifos {
		if st, err := os.Lstat(p); p != store && (err != nil || st.Mode()&os.ModeNamedPipe == 0) {
			t.Errorf("%s was replaced or removed", p)
		}
	}
}

// Quarantine files of earlier oc versions ("X.jsonl.rejected-<stamp>.jsonl",
// a live session to OpenClaw) are a finding; --fix renames them to
// "X.jsonl.rejected-<stamp>", never over an existing file.
func TestOldQuarantineNamesRenamed(t *testing.T) {
	sd, _ := stateWithStore(t, []byte(`{"version":1,"jobs":[]}`))
	sess := filepath.Join(sd, "agents", "main", "sessions")
	_ = os.MkdirAll(sess, 0o700)
	id := "0b7f0d7e-0000-4000-8000-000000000001"
	_ = os.WriteFile(filepath.Join(sess, id+".jsonl"), []byte(`{"type":"session","id":"`+id+`"}`+"\n"), 0o600)
	old1 := filepath.Join(sess, id+".jsonl.rejected-20261101T101010Z.jsonl")
	old2 := filepath.Join(sess, id+".jsonl.rejected-20261102T101010Z.jsonl")
	taken := filepath.Join(sess, id+".jsonl.rejected-20261102T101010Z")
	_ = os.WriteFile(old1, []byte(`{"line":3,"reason":"unparsable","raw":"{x"}`+"\n"), 0o600)
	_ = os.WriteFile(old2, []byte("two\n"), 0o600)
	_ = os.WriteFile(taken, []byte("already here\n"), 0o600)

	r := runDoctor(t, sd, false)
	n := 0
	for _, f := range r.Findings {
		if f.ID == "quarantine-named-like-session" {
			n++
		}
	}
	if n != 2 || r.Remaining < 2 {
		t.Fatalf("%d quarantine findings, want 2: %v", n, findingIDs(r))
	}
	runDoctor(t, sd, true)
	if b, err := os.ReadFile(strings.TrimSuffix(old1, ".jsonl")); err != nil || !strings.Contains(string(b), `"unparsable"`) {
		t.Errorf("old1 not renamed with its content: %v %q", err, b)
	}
	if exists(old1) {
		t.Error("old1 still has its old name")
	}
	if b, _ := os.ReadFile(taken); string(b) != "already here\n" || !exists(old2) {
		t.Error("a rename replaced an existing file")
	}
	if r2 := runDoctor(t, sd, false); findingByID(r2, "quarantine-named-like-session") == nil {
		t.Error("the one that could not be renamed is no longer reported")
	}
}

// A cancelled context (SIGINT, SIGTERM) stops --fix cleanly: no temp file,
// no lock or backup of an unfinished write, jobs.json the original or the
// finished migration.
func TestCancelledFixLeavesNothingHalfDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sd, _ := stateWithStore(t, storeWithJobs("a"))
	before := checksums(t, sd)
	r, err := Run(ctx, fixOpts(sd))
	if err != nil {
		t.Fatal(err)
	}
	if r.Interrupted == "" || !mapsEqual(before, checksums(t, sd)) {
		t.Fatalf("a cancelled run wrote: interrupted %q", r.Interrupted)
	}
	// Cancelled at random moments of the fix: up to twice as long as an
	// uncancelled fix takes here.
	original := storeWithJobs("a", "b")
	sd, _ = stateWithStore(t, original)
	start := time.Now()
	if _, err := Run(context.Background(), fixOpts(sd)); err != nil {
		t.Fatal(err)
	}
	span := 2 * time.Since(start)
	outcomes := map[string]int{}
	for round := 0; round < 40; round++ {
		sd, store := stateWithStore(t, original)
		_ = os.WriteFile(filepath.Join(sd, "cron", "jobs-state.json"), []byte(`{"version":1,"jobs":{"a":{"updatedAtMs":1,"state":{}}}}`), 0o600)
		ctx, cancel := context.WithCancel(context.Background())
		opts := fixOpts(sd)
		delay := time.Duration(rand.Int64N(int64(span)))
		opts.beforeFix = func() { time.AfterFunc(delay, cancel) }
		r, err := Run(ctx, opts)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(filepath.Join(sd, "cron"))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
			if strings.Contains(e.Name(), ".oc-tmp-") || strings.HasSuffix(e.Name(), ".tmp") {
				t.Errorf("round %d: temp file left: %s", round, e.Name())
			}
		}
		raw, _ := os.ReadFile(store)
		backups, _ := filepath.Glob(store + ".pre-oc-doctor.*")
		reports, _ := filepath.Glob(filepath.Join(sd, "cron", "doctor-session-target-migration-*"))
		switch {
		case string(raw) == string(original):
			outcomes["untouched"]++
			if len(backups) != 0 || len(reports) != 0 || r.Interrupted == "" {
				t.Errorf("round %d: store untouched but backups %v reports %v interrupted %q", round, backups, reports, r.Interrupted)
			}
		default:
			outcomes["finished"]++
			jobs := loadJobs(t, store)
			for _, id := range []string{"a", "b"} {
				if s, _ := jobs[id].StringOf("sessionTarget"); s != "isolated" {
					t.Errorf("round %d: half-migrated store: job %s is %q", round, id, s)
				}
			}
			if len(backups) != 1 || len(reports) != 1 {
				t.Errorf("round %d: finished but backups %v reports %v (%v)", round, backups, reports, names)
			} else if b, _ := os.ReadFile(backups[0]); sha256.Sum256(b) != sha256.Sum256(original) {
				t.Errorf("round %d: backup is not the original", round)
			}
		}
	}
	t.Logf("outcomes: %v", outcomes)
	if outcomes["untouched"] == 0 || outcomes["finished"] == 0 {
		t.Errorf("outcomes %v: cancellation never fell before (or never after) the write; the test proves nothing", outcomes)
	}
}

// nestedStore is a valid store whose one job's payload holds a value nested
// so that the whole document is depth levels deep.
func nestedStore(depth int) []byte {
	inner := strings.Repeat("[", depth-4) + strings.Repeat("]", depth-4)
	return []byte(`{"version":1,"jobs":[{"id":"j1","name":"n","enabled":true,"schedule":{"kind":"every","everyMs":60000},"sessionTarget":"isolated","wakeMode":"now","payload":{"kind":"agentTurn","message":"hi","x":` + inner + `},"delivery":{"mode":"none"},"state":{}}]}`)
}

// What doctor says about a deeply nested store matches what OpenClaw
// 2026.5.6's own loader (the oracle's cron mode) does with it: a store it
// loads is not called unloadable (the old advice, "restore jobs.json.bak",
// rolled such a store back), one it fails on is.
func TestNestingMatchesOracle(t *testing.T) {
	script := filepath.Join(oracletest.SharedDir(t), "oracle", "oracle")
	if _, err := os.Stat(script); err != nil {
		oracletest.Unavailable(t, fmt.Sprintf("no oracle at %s: %v", script, err))
	}
	depths := []int{600, 1000, 3000, OpenClawCronLoadsDepth, OpenClawCronFailsDepth, 6000, jsondoc.MaxDepth + 2000}
	var jobs []oracletest.Job
	dirs := map[string]string{}
	for _, d := range depths {
		sd, store := stateWithStore(t, nestedStore(d))
		id := fmt.Sprint(d)
		dirs[id] = sd
		jobs = append(jobs, oracletest.Job{ID: id, Mode: "cron", Args: []string{store}})
	}
	res := oracletest.Batch(t, jobs, 3*time.Minute)
	compared := 0
	for _, d := range depths {
		id := fmt.Sprint(d)
		o, ok := res[id]
		if !ok {
			t.Errorf("depth %d: no oracle answer", d)
			continue
		}
		r := runDoctor(t, dirs[id], false)
		unloadable := hasFinding(r, "cron-store-too-deep") || hasFinding(r, "cron-store-invalid-json")
		if o.OK {
			var out struct {
				Errors []any `json:"errors"`
			}
			_ = json.Unmarshal(o.Out, &out)
			if unloadable || hasFinding(r, "cron-store-deeply-nested") && d <= OpenClawCronLoadsDepth {
				t.Errorf("depth %d: OpenClaw loads it (errors %v) but doctor says %v", d, out.Errors, findingIDs(r))
			}
			if len(r.Cron.Jobs) != 1 {
				t.Errorf("depth %d: OpenClaw loads one job, doctor sees %d", d, len(r.Cron.Jobs))
			}
		} else {
			if !strings.Contains(o.Error, "Maximum call stack size exceeded") {
				t.Errorf("depth %d: unexpected oracle failure %q", d, o.Error)
			}
			if !hasFinding(r, "cron-store-too-deep") {
				t.Errorf("depth %d: OpenClaw fails to load it (%s) but doctor says %v", d, o.Error, findingIDs(r))
			}
		}
		for _, f := range r.Findings {
			if strings.Contains(f.Fix, "restore "+filepath.Base("jobs.json")+" from") {
				t.Errorf("depth %d: advice to roll the store back: %q", d, f.Fix)
			}
		}
		compared++
	}
	oracletest.Compared(t, "doctor's verdict on deeply nested cron stores vs OpenClaw 2026.5.6's loader (one store per depth)", compared, len(depths))
}

// The swap is judged by the bytes it displaced, not by their inode: a
// writer whose version has the verified file's inode (written in place
// here; a new file given a freed inode number again looks the same, and
// TestConcurrentWriterLosesNoJob met it in CI) keeps it.
func TestCompareAndSwapWriterWithTheSameInode(t *testing.T) {
	_, store := stateWithStore(t, storeWithJobs("a"))
	original, _ := os.ReadFile(store)
	before, err := os.Stat(store)
	if err != nil {
		t.Fatal(err)
	}
	writer := []byte(strings.Replace(string(original), `"a"`, `"in-place"`, 1))
	err = casReplaceHook(context.Background(), store, []byte(`{"version":1,"jobs":[]}`), sha256.Sum256(original), 1<<20, func() {
		if err := os.WriteFile(store, writer, 0o600); err != nil { // the same inode, new bytes
			t.Fatal(err)
		}
	})
	if !errors.Is(err, ErrStoreChanged) {
		t.Fatalf("err = %v, want ErrStoreChanged", err)
	}
	got, _ := os.ReadFile(store)
	if string(got) != string(writer) {
		t.Fatalf("the writer's version was not kept:\n%s", got)
	}
	if after, err := os.Stat(store); err != nil || !os.SameFile(before, after) {
		t.Errorf("jobs.json is not the writer's inode after the exchange was undone")
	}
	if entries, _ := os.ReadDir(filepath.Dir(store)); len(entries) != 1 {
		t.Errorf("folder holds %d files, want only jobs.json", len(entries))
	}
}

// A writer that replaces jobs.json between doctor's last check and its swap
// (the narrowest window) keeps its version: the exchange is undone.
func TestCompareAndSwapWriterInTheLastWindow(t *testing.T) {
	_, store := stateWithStore(t, storeWithJobs("a"))
	original, _ := os.ReadFile(store)
	var writer []byte
	err := casReplaceHook(context.Background(), store, []byte(`{"version":1,"jobs":[]}`), sha256.Sum256(original), 1<<20, func() {
		openClawStyleAdd(t, store, "late")
		writer, _ = os.ReadFile(store)
	})
	if !errors.Is(err, ErrStoreChanged) {
		t.Fatalf("err = %v, want ErrStoreChanged", err)
	}
	if got, _ := os.ReadFile(store); string(got) != string(writer) {
		t.Fatalf("the writer's version was not kept:\n%s", got)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(store), ".*oc-tmp-*"))
	if len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
	// Unchanged: the swap happens, and the old bytes are gone from the folder.
	now, _ := os.ReadFile(store)
	if err := casReplace(context.Background(), store, []byte("{}"), sha256.Sum256(now), 1<<20); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(store); string(got) != "{}" {
		t.Errorf("not replaced: %s", got)
	}
	if entries, _ := os.ReadDir(filepath.Dir(store)); len(entries) != 1 {
		t.Errorf("folder holds %d files, want only jobs.json", len(entries))
	}
}

// jobs.json and jobs-state.json that are symlinks (a store kept elsewhere)
// are migrated in the files they point to; the links stay links. Before,
// the exchange swapped the link itself, took that for another writer's
// version and refused with "changed since oc doctor read it" every time.
func TestFixThroughSymlinkedStoreKeepsTheLink(t *testing.T) {
	sd, store := stateWithStore(t, storeWithJobs("a"))
	elsewhere := t.TempDir()
	realStore := filepath.Join(elsewhere, "jobs.json")
	realState := filepath.Join(elsewhere, "jobs-state.json")
	raw, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(realStore, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(realState, []byte(`{"version":1,"jobs":{"a":{"updatedAtMs":1,"state":{}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(sd, "cron", "jobs-state.json")
	if err := os.Remove(store); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{store: realStore, state: realState} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Run(context.Background(), fixOpts(sd))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Cron.Jobs) == 0 || !r.Cron.Jobs[0].Migrated {
		t.Fatalf("not migrated through the symlink: %v", findingIDs(r))
	}
	for link, target := range map[string]string{store: realStore, state: realState} {
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symlink (%v)", filepath.Base(link), err)
		}
		if got, _ := os.Readlink(link); got != target {
			t.Errorf("%s points to %q, want %q", filepath.Base(link), got, target)
		}
	}
	after, err := os.ReadFile(realStore)
	if err != nil {
		t.Fatal(err)
	}
	if string(after) == string(raw) || !strings.Contains(string(after), `"isolated"`) {
		t.Errorf("the real jobs.json was not migrated:\n%s", after)
	}
	if left, _ := filepath.Glob(filepath.Join(elsewhere, ".*")); len(left) != 0 {
		t.Errorf("temporary files left beside the real store: %v", left)
	}
}
