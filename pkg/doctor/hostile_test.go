package doctor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/jsondoc"
)

// stateWithStore makes a state dir whose cron/jobs.json holds data.
func stateWithStore(t *testing.T, data []byte) (string, string) {
	t.Helper()
	sd := t.TempDir()
	store := filepath.Join(sd, "cron", "jobs.json")
	if err := os.MkdirAll(filepath.Dir(store), 0o700); err != nil {
		t.Fatal(err)
	}
	if data != nil {
		if err := os.WriteFile(store, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return sd, store
}

func findingIDs(r *Report) []string {
	var ids []string
	for _, f := range r.Findings {
		ids = append(ids, f.ID+":"+f.Severity)
	}
	return ids
}

func hasFinding(r *Report, id string) bool {
	for _, f := range r.Findings {
		if f.ID == id {
			return true
		}
	}
	return false
}

const elsewhereJob = `{"id":"%s","name":"n","enabled":true,"createdAtMs":1,"updatedAtMs":1,"schedule":{"kind":"cron","expr":"0 9 * * *"},"sessionTarget":"session:project-x","wakeMode":"now","payload":{"kind":"agentTurn","message":"m"},"delivery":{"mode":"announce","channel":"slack","to":"channel:C1"},"state":{"nextRunAtMs":5}}`

// Damaged or hostile input: a clear finding, nothing written, no panic.
func TestDamagedStores(t *testing.T) {
	big := bytes.Repeat([]byte(" "), 50<<20)
	copy(big, `{"version":1,"jobs":[]}`)
	cases := []struct {
		name    string
		data    []byte
		finding string
	}{
		{"invalid JSON", []byte(`{"version":1,"jobs":[{"id":"a",}`), "cron-store-invalid-json"},
		{"not an object", []byte(`[1,2]`), "cron-store-shape"},
		{"jobs not an array", []byte(`{"version":1,"jobs":{"a":1}}`), "cron-store-shape"},
		{"job not an object", []byte(`{"version":1,"jobs":[42,` + fmt.Sprintf(elsewhereJob, "a") + `]}`), "cron-store-shape"},
		{"job without id", []byte(`{"version":1,"jobs":[` + strings.Replace(fmt.Sprintf(elsewhereJob, "a"), `"id":"a",`, "", 1) + `]}`), "cron-job-without-id"},
		{"duplicate ids", []byte(`{"version":1,"jobs":[` + fmt.Sprintf(elsewhereJob, "a") + `,` + fmt.Sprintf(elsewhereJob, "a") + `]}`), "cron-duplicate-job-id"},
		{"50 MB store", big, "cron-store-too-large"},
		{"deep nesting (unterminated)", []byte(strings.Repeat("[", 100000)), "cron-store-too-deep"},
		{"binary garbage", []byte("\x00\xff\xfe{\"jobs\""), "cron-store-invalid-json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sd, _ := stateWithStore(t, c.data)
			before := checksums(t, sd)
			r := runDoctor(t, sd, true)
			if !hasFinding(r, c.finding) {
				t.Errorf("no %s finding: %v", c.finding, findingIDs(r))
			}
			after := checksums(t, sd)
			if !mapsEqual(before, after) {
				t.Error("files changed")
			}
			for _, j := range r.Cron.Jobs {
				if j.Migrated {
					t.Errorf("job %s migrated", j.ID)
				}
			}
			if r.Remaining == 0 {
				t.Error("no remaining finding")
			}
		})
	}
}

func TestUnknownFieldsSurviveMigration(t *testing.T) {
	job := strings.Replace(fmt.Sprintf(elsewhereJob, "a"), `"name":"n",`, `"name":"n","x-custom":{"z":1,"a":[true,null]},`, 1)
	sd, store := stateWithStore(t, []byte(`{"version":1,"extra":"kept","jobs":[`+job+`]}`))
	r := runDoctor(t, sd, true)
	if !r.Cron.Jobs[0].Migrated {
		t.Fatalf("not migrated: %v", findingIDs(r))
	}
	_, v, _, err := readDoc(store, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := v.StringOf("extra"); s != "kept" || v.Members[1].Key != "extra" {
		t.Error("top-level unknown field lost or moved")
	}
	j := v.Get("jobs").Items[0]
	if got := string(jsondoc.MarshalCompact(j.Get("x-custom"))); got != `{"z":1,"a":[true,null]}` || j.Members[2].Key != "x-custom" {
		t.Errorf("unknown job field: %s", got)
	}
}

func TestStoreIsADirectoryOrUnreadable(t *testing.T) {
	sd, store := stateWithStore(t, nil)
	if err := os.Mkdir(store, 0o700); err != nil {
		t.Fatal(err)
	}
	r := runDoctor(t, sd, true)
	if !hasFinding(r, "cron-store-not-a-file") {
		t.Errorf("directory: %v", findingIDs(r))
	}
	if err := os.Remove(store); err != nil {
		t.Fatal(err)
	}
	// A symlink loop cannot be read, even by root.
	if err := os.Symlink(store, store); err != nil {
		t.Fatal(err)
	}
	r = runDoctor(t, sd, true)
	if !hasFinding(r, "cron-store-unreadable") {
		t.Errorf("unreadable: %v", findingIDs(r))
	}
}

func TestUnreadableSessionsIndexIsAFinding(t *testing.T) {
	sd, _ := stateWithStore(t, []byte(`{"version":1,"jobs":[]}`))
	idx := filepath.Join(sd, "agents", "main", "sessions", "sessions.json")
	_ = os.MkdirAll(filepath.Dir(idx), 0o700)
	_ = os.WriteFile(idx, []byte(`{"agent:main:main": {`), 0o600)
	r := runDoctor(t, sd, false)
	if !hasFinding(r, "sessions-index-unreadable") {
		t.Errorf("%v", findingIDs(r))
	}
}

func TestMissingStateDirIsAnError(t *testing.T) {
	_, err := Run(context.Background(), Options{StateDir: filepath.Join(t.TempDir(), "nope")})
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("err = %v", err)
	}
}

// A live gateway lock: --fix refuses and writes nothing; --force writes.
func TestGatewayRunningRefusesFix(t *testing.T) {
	sd, store := stateWithStore(t, []byte(`{"version":1,"jobs":[`+fmt.Sprintf(elsewhereJob, "a")+`]}`))
	lockDir := t.TempDir()
	cfgPath := filepath.Join(sd, "openclaw.json")
	lock := filepath.Join(lockDir, "gateway."+hash8(cfgPath)+".lock")
	payload := fmt.Sprintf(`{"pid":%d,"createdAt":"%s","configPath":%q}`, os.Getpid(), time.Now().UTC().Format(time.RFC3339), cfgPath)
	if err := os.WriteFile(lock, []byte(payload), 0o600); err != nil {
		t.Fatal(err)
	}
	before := sha256Of(t, store)
	opts := Options{StateDir: sd, Fix: true, GatewayLockDir: lockDir, Now: func() time.Time { return fixedNow }}
	r, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Gateway.Running || r.Refused == "" || !strings.Contains(r.Refused, fmt.Sprint(os.Getpid())) {
		t.Fatalf("gateway %+v refused %q", r.Gateway, r.Refused)
	}
	if sha256Of(t, store) != before {
		t.Fatal("store written while the gateway runs")
	}
	// A dead owner is not a running gateway.
	_ = os.WriteFile(lock, []byte(`{"pid":999999999,"createdAt":"2026-01-01T00:00:00Z","configPath":"x"}`), 0o600)
	if r, _ := Run(context.Background(), Options{StateDir: sd, GatewayLockDir: lockDir}); r.Gateway.Running {
		t.Error("dead pid counted as running")
	}
	_ = os.WriteFile(lock, []byte(payload), 0o600)
	opts.Force = true
	r, _ = Run(context.Background(), opts)
	if r.Refused != "" || !r.Cron.Jobs[0].Migrated {
		t.Fatalf("--force: refused %q migrated %v", r.Refused, r.Cron.Jobs[0].Migrated)
	}
}

func TestStaleLocksAndTempFiles(t *testing.T) {
	sd, _ := stateWithStore(t, []byte(`{"version":1,"jobs":[]}`))
	sess := filepath.Join(sd, "agents", "main", "sessions")
	_ = os.MkdirAll(sess, 0o700)
	stale := filepath.Join(sess, "0b7f0d7e-0000-4000-8000-000000000001.jsonl.lock")
	live := filepath.Join(sess, "0b7f0d7e-0000-4000-8000-000000000002.jsonl.lock")
	_ = os.WriteFile(stale, []byte(`{"pid":999999999,"createdAt":"2026-01-01T00:00:00.000Z"}`), 0o600)
	_ = os.WriteFile(live, []byte(fmt.Sprintf(`{"pid":%d,"createdAt":"%s"}`, os.Getpid(), time.Now().UTC().Format(time.RFC3339Nano))), 0o600)
	emptyTmp := filepath.Join(sd, "cron", "jobs.json.999999999.fef5e83a03c818.tmp")
	fullTmp := filepath.Join(sd, "cron", "jobs.json.999999998.0123456789abcdef.tmp")
	_ = os.WriteFile(emptyTmp, nil, 0o600)
	_ = os.WriteFile(fullTmp, []byte(`{"version":1}`), 0o600)

	ocTmp := filepath.Join(sess, ".0b7f0d7e-0000-4000-8000-000000000003.jsonl.oc-tmp-123")
	_ = os.WriteFile(ocTmp, []byte("partial"), 0o600)
	old := fixedNow.Add(-time.Hour)
	_ = os.Chtimes(ocTmp, old, old)
	r := runDoctor(t, sd, false)
	for _, id := range []string{"stale-session-lock", "session-lock-held", "leftover-temp-file"} {
		if !hasFinding(r, id) {
			t.Errorf("no %s: %v", id, findingIDs(r))
		}
	}
	if !r.Gateway.Running {
		t.Error("a live session lock should count as a running gateway")
	}
	// With the live lock gone, --fix removes the stale lock and the empty temp file only.
	_ = os.Remove(live)
	r = runDoctor(t, sd, true)
	if exists(stale) || exists(emptyTmp) || exists(ocTmp) {
		t.Error("stale lock or empty temp file not removed")
	}
	if !exists(fullTmp) {
		t.Error("a temp file with data was deleted")
	}
	if r.Remaining != 1 {
		t.Errorf("remaining %d, want 1 (the non-empty temp file): %v", r.Remaining, findingIDs(r))
	}
}

func TestSessionsIndexVersusFiles(t *testing.T) {
	sd, _ := stateWithStore(t, []byte(`{"version":1,"jobs":[]}`))
	sess := filepath.Join(sd, "agents", "main", "sessions")
	_ = os.MkdirAll(sess, 0o700)
	present := "11111111-1111-4111-8111-111111111111"
	orphan := "22222222-2222-4222-8222-222222222222"
	_ = os.WriteFile(filepath.Join(sess, present+".jsonl"), []byte("{}\n"), 0o600)
	_ = os.WriteFile(filepath.Join(sess, orphan+".jsonl"), []byte("{}\n"), 0o600)
	_ = os.WriteFile(filepath.Join(sess, "sessions.json"), []byte(`{
  "agent:main:main": {"sessionId": "`+present+`"},
  "agent:main:x": {"sessionId": "33333333-3333-4333-8333-333333333333"},
  "agent:main:y": {"sessionId": "44444444-4444-4444-8444-444444444444", "sessionFile": "/nonexistent/44444444.jsonl"}
}`), 0o600)
	r := runDoctor(t, sd, false)
	for _, id := range []string{"session-file-missing", "session-file-orphaned", "session-file-dangling"} {
		if !hasFinding(r, id) {
			t.Errorf("no %s: %v", id, findingIDs(r))
		}
	}
	for _, f := range r.Findings {
		if f.ID == "session-file-orphaned" && !strings.Contains(f.Message, orphan) {
			t.Errorf("orphan finding %q", f.Message)
		}
	}
}
