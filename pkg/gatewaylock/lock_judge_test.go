package gatewaylock

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// JudgeLock follows OpenClaw's readLockPayload + inspectLockPayload
// (session-write-lock in 2026.5.6): numbers are JSON numbers that are
// non-negative integers, a wrong field does not void the others, and the
// gateway's lock ({pid, createdAt, configPath, startTime}) is read too.
func TestJudgeLockPayloads(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	created := now.Add(-time.Minute).Format(time.RFC3339Nano)
	self := os.Getpid()
	start, haveStart := ProcessStartTime(self)
	dir := t.TempDir()
	type lockCase struct {
		name    string
		payload string
		pid     int
		alive   bool
		reasons []string
	}
	cases := []lockCase{
		{"live", fmt.Sprintf(`{"pid":%d,"createdAt":%q}`, self, created), self, true, nil},
		{"integral float pid", fmt.Sprintf(`{"pid":%d.0,"createdAt":%q}`, self, created), self, true, nil},
		{"pid as a string", fmt.Sprintf(`{"pid":"%d","createdAt":%q}`, self, created), 0, false, []string{"missing-pid"}},
		{"fractional pid", fmt.Sprintf(`{"pid":%d.5,"createdAt":%q}`, self, created), 0, false, []string{"missing-pid"}},
		{"wrong-typed pid keeps createdAt", fmt.Sprintf(`{"pid":true,"createdAt":%q}`, created), 0, false, []string{"missing-pid"}},
		{"dead and too old", `{"pid":999999999,"createdAt":"2026-01-01T00:00:00Z"}`, 999999999, false, []string{"dead-pid", "too-old"}},
		{"trailing garbage is not JSON", fmt.Sprintf(`{"pid":%d,"createdAt":%q}x`, self, created), 0, false, []string{"missing-pid", "invalid-createdAt"}},
		{"JSON5 is not JSON", fmt.Sprintf(`{pid:%d, createdAt:%q,}`, self, created), 0, false, []string{"missing-pid", "invalid-createdAt"}},
	}
	if haveStart {
		cases = append(cases,
			lockCase{"recycled (gateway spelling startTime)", fmt.Sprintf(`{"pid":%d,"createdAt":%q,"configPath":"/x/openclaw.json","startTime":%d}`, self, created, start+1), self, false, []string{"recycled-pid"}},
			lockCase{"starttime wins over startTime", fmt.Sprintf(`{"pid":%d,"createdAt":%q,"starttime":%d,"startTime":%d}`, self, created, start, start+1), self, true, nil},
		)
	}
	old := now.Add(-time.Hour)
	for i, c := range cases {
		p := filepath.Join(dir, fmt.Sprintf("%d.jsonl.lock", i))
		require.NoError(t, os.WriteFile(p, []byte(c.payload), 0o600))
		require.NoError(t, os.Chtimes(p, old, old))
		info, err := InspectLock(p, now, 0)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.pid, info.PID, c.name)
		assert.Equal(t, c.alive, info.Alive, c.name)
		assert.Equal(t, c.reasons, info.StaleReasons, c.name)
		assert.Equal(t, len(c.reasons) > 0, info.Stale, c.name)
	}
}

func TestJudgeLockGatewayFieldsAndUnreadable(t *testing.T) {
	now := time.Now()
	dir := t.TempDir()
	p := filepath.Join(dir, "gateway.0123abcd.lock")
	require.NoError(t, os.WriteFile(p, []byte(`{"pid":999999999,"createdAt":"2026-01-01T00:00:00.000Z","configPath":"/s/openclaw.json","startTime":42}`), 0o600))
	info, err := InspectLock(p, now, 0)
	require.NoError(t, err)
	assert.Equal(t, "/s/openclaw.json", info.ConfigPath)
	require.NotNil(t, info.Starttime)
	assert.Equal(t, int64(42), *info.Starttime)

	// A lock that cannot be read is judged like one without a payload:
	// stale once older than the grace OpenClaw gives a lock being created.
	empty := filepath.Join(dir, "s.jsonl.lock")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	fresh := JudgeLock(empty, nil, now, 0)
	assert.False(t, fresh.Stale, "seconds old: its owner may still be writing it")
	assert.False(t, fresh.Alive)
	later := JudgeLock(empty, nil, now.Add(time.Minute), 0)
	assert.Equal(t, []string{"missing-pid", "invalid-createdAt"}, later.StaleReasons)

	none, err := InspectLock(filepath.Join(dir, "none.lock"), now, 0)
	assert.NoError(t, err)
	assert.Nil(t, none)
}

// A pid beyond pid_t is never alive: kill(2) would see it truncated (2^32+1
// is pid 1, which is always alive).
func TestPIDAliveOutOfRange(t *testing.T) {
	if !PIDAlive(os.Getpid()) {
		t.Fatal("this process is not alive")
	}
	for _, pid := range []int{0, -1, 1 << 31, 1<<32 + 1, 1<<32 + os.Getpid()} {
		if PIDAlive(pid) {
			t.Errorf("PIDAlive(%d) = true", pid)
		}
	}
}
