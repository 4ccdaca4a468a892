package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/pkg/gatewaylock"
)

func findingByID(r *Report, id string) *Finding {
	for i := range r.Findings {
		if r.Findings[i].ID == id {
			return &r.Findings[i]
		}
	}
	return nil
}

// The index check is pkg/transcript's: a sqlite: marker is not a path, a
// topic transcript belongs to its session, any primary transcript can be an
// orphan, and an entry with an unusable sessionFile is reported once.
func TestSessionsIndexFollowsTranscriptRules(t *testing.T) {
	sd, _ := stateWithStore(t, []byte(`{"version":1,"jobs":[]}`))
	sess := filepath.Join(sd, "agents", "main", "sessions")
	_ = os.MkdirAll(sess, 0o700)
	present := "11111111-1111-4111-8111-111111111111"
	for _, n := range []string{present + ".jsonl", present + "-topic-5.jsonl", "2026-05-01T10-00-00-000Z_stray.jsonl"} {
		_ = os.WriteFile(filepath.Join(sess, n), []byte("{}\n"), 0o600)
	}
	_ = os.WriteFile(filepath.Join(sess, "sessions.json"), []byte(`{
  "agent:main:main": {"sessionId": "`+present+`"},
  "agent:main:sqlite": {"sessionId": "`+present+`", "sessionFile": "sqlite:main:`+present+`:/db"},
  "agent:main:gone": {"sessionId": "55555555-5555-4555-8555-555555555555", "sessionFile": "55555555.jsonl"},
  "agent:main:moved": {"sessionId": "`+present+`", "sessionFile": "/home/nobody-here/.openclaw/agents/main/sessions/`+present+`.jsonl"}
}`), 0o600)
	r := runDoctor(t, sd, false)
	orph := findingByID(r, "session-file-orphaned")
	if orph == nil || !strings.Contains(orph.Message, "_stray.jsonl") || strings.Contains(orph.Message, "-topic-") {
		t.Errorf("orphan finding %+v", orph)
	}
	dang := findingByID(r, "session-file-dangling")
	// "moved": the file is here, but OpenClaw 2026.5.6 reads the other machine's path as written.
	if dang == nil || !strings.Contains(dang.Message, "agent:main:gone, agent:main:moved") || strings.Contains(dang.Message, "sqlite") {
		t.Errorf("dangling finding %+v", dang)
	}
	if f := findingByID(r, "session-file-missing"); f != nil {
		t.Errorf("the dangling entry is reported twice: %+v", f)
	}
}

// session.store in the config moves sessions.json and its transcripts.
func TestSessionsIndexHonoursConfiguredStore(t *testing.T) {
	sd, _ := stateWithStore(t, []byte(`{"version":1,"jobs":[]}`))
	store := filepath.Join(sd, "stores", "main")
	_ = os.MkdirAll(store, 0o700)
	_ = os.WriteFile(filepath.Join(sd, "openclaw.json"), []byte(`{session: {store: "`+filepath.Join(sd, "stores", "{agentId}", "sessions.json")+`"}}`), 0o600)
	_ = os.WriteFile(filepath.Join(store, "22222222-2222-4222-8222-222222222222.jsonl"), []byte("{}\n"), 0o600)
	r := runDoctor(t, sd, false)
	f := findingByID(r, "sessions-index-missing")
	if f == nil || f.Path != filepath.Join(store, "sessions.json") {
		t.Fatalf("finding %+v: %v", f, findingIDs(r))
	}
}

// Locks are judged by pkg/jsonl: a lock without a payload is left to its
// owner for the few seconds OpenClaw grants, then it is stale.
func TestPayloadlessSessionLock(t *testing.T) {
	sd, _ := stateWithStore(t, []byte(`{"version":1,"jobs":[]}`))
	sess := filepath.Join(sd, "agents", "main", "sessions")
	_ = os.MkdirAll(sess, 0o700)
	lock := filepath.Join(sess, "0b7f0d7e-0000-4000-8000-000000000001.jsonl.lock")
	_ = os.WriteFile(lock, nil, 0o600)
	_ = os.Chtimes(lock, fixedNow, fixedNow)
	r := runDoctor(t, sd, true)
	if f := findingByID(r, "session-lock-held"); f == nil || f.Fixable || !exists(lock) {
		t.Fatalf("a lock being created was touched: %v", findingIDs(r))
	}
	old := fixedNow.Add(-time.Hour)
	_ = os.Chtimes(lock, old, old)
	r = runDoctor(t, sd, true)
	f := findingByID(r, "stale-session-lock")
	if f == nil || !f.Fixed || exists(lock) || !strings.Contains(f.Message, "missing-pid, invalid-createdAt") {
		t.Fatalf("stale lock %+v: %v", f, findingIDs(r))
	}
}

// A gateway lock whose pid was reused by another process (its startTime
// differs) is no running gateway.
func TestGatewayLockRecycledPid(t *testing.T) {
	start, ok := gatewaylock.ProcessStartTime(os.Getpid())
	if !ok {
		t.Skip("no /proc start time on this system")
	}
	sd, _ := stateWithStore(t, []byte(`{"version":1,"jobs":[]}`))
	lockDir := t.TempDir()
	cfgPath := filepath.Join(sd, "openclaw.json")
	lock := filepath.Join(lockDir, "gateway."+hash8(cfgPath)+".lock")
	write := func(st int64) {
		payload := fmt.Sprintf(`{"pid":%d,"createdAt":"%s","configPath":%q,"startTime":%d}`, os.Getpid(), time.Now().UTC().Format(time.RFC3339), cfgPath, st)
		if err := os.WriteFile(lock, []byte(payload), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(start)
	if r, _ := Run(context.Background(), Options{StateDir: sd, GatewayLockDir: lockDir}); !r.Gateway.Running {
		t.Error("live gateway with matching startTime not detected")
	}
	write(start + 1)
	if r, _ := Run(context.Background(), Options{StateDir: sd, GatewayLockDir: lockDir}); r.Gateway.Running {
		t.Error("recycled pid counted as a running gateway")
	}
}
