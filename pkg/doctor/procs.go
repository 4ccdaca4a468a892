package doctor

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// pidAlive reports whether a process with this pid exists (kill -0).
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// procStartTime is field 22 of /proc/<pid>/stat (clock ticks since boot),
// what OpenClaw stores as a lock's starttime; ok=false when unknown.
func procStartTime(pid int) (int64, bool) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 20 {
		return 0, false
	}
	n, err := strconv.ParseInt(fields[19], 10, 64)
	return n, err == nil
}

// LockInfo is one OpenClaw lock file: a session's <file>.jsonl.lock
// ({pid, createdAt, starttime}) or the gateway's lock
// ({pid, createdAt, configPath, startTime}).
type LockInfo struct {
	Path      string   `json:"path"`
	PID       int      `json:"pid,omitempty"`
	CreatedAt string   `json:"createdAt,omitempty"`
	Alive     bool     `json:"alive"`
	Stale     []string `json:"stale,omitempty"` // OpenClaw's stale reasons
	Config    string   `json:"configPath,omitempty"`
}

// SessionLockStaleAfter is OpenClaw's DEFAULT_STALE_MS for session locks.
const SessionLockStaleAfter = 30 * time.Minute

// inspectLock reads a lock file the way OpenClaw's session-write-lock does and
// gives its stale reasons: missing-pid, dead-pid, recycled-pid,
// invalid-createdAt, too-old.
func inspectLock(path string, now time.Time) LockInfo {
	li := LockInfo{Path: path}
	raw, err := os.ReadFile(path)
	var doc *Value
	if err == nil {
		doc, _, err = Parse(raw)
	}
	pidV := doc.Get("pid")
	if err == nil && pidV != nil && pidV.Kind == Number && pidV.Num > 0 && pidV.Num == float64(int(pidV.Num)) {
		li.PID = int(pidV.Num)
	}
	li.CreatedAt, _ = doc.StringOf("createdAt")
	li.Config, _ = doc.StringOf("configPath")
	var start *Value
	if s := doc.Get("starttime"); s != nil {
		start = s
	} else {
		start = doc.Get("startTime")
	}
	switch {
	case li.PID == 0:
		li.Stale = append(li.Stale, "missing-pid")
	case !pidAlive(li.PID):
		li.Stale = append(li.Stale, "dead-pid")
	default:
		li.Alive = true
		if start != nil && start.Kind == Number {
			if cur, ok := procStartTime(li.PID); ok && float64(cur) != start.Num {
				li.Alive = false
				li.Stale = append(li.Stale, "recycled-pid")
			}
		}
	}
	created, perr := time.Parse(time.RFC3339Nano, li.CreatedAt)
	if perr != nil {
		li.Stale = append(li.Stale, "invalid-createdAt")
	} else if now.Sub(created) > SessionLockStaleAfter {
		li.Stale = append(li.Stale, "too-old")
	}
	return li
}

// GatewayStatus says whether an OpenClaw gateway owns this state dir now.
type GatewayStatus struct {
	Running bool   `json:"running"`
	PID     int    `json:"pid,omitempty"`
	Lock    string `json:"lock,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// DefaultGatewayLockDir is OpenClaw's resolveGatewayLockDir: $TMPDIR/openclaw-<uid>.
func DefaultGatewayLockDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("openclaw-%d", os.Getuid()))
}

// gatewayConfigPath is the config path OpenClaw hashes into the lock name.
func gatewayConfigPath(stateDir string, env func(string) string) string {
	if env != nil {
		if p := strings.TrimSpace(env("OPENCLAW_CONFIG_PATH")); p != "" {
			return p
		}
	}
	for _, n := range []string{"openclaw.json", "clawdbot.json"} {
		p := filepath.Join(stateDir, n)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return filepath.Join(stateDir, "openclaw.json")
}

// detectGateway looks for a live gateway of this state dir: the lock file
// gateway.<sha256(configPath)[:8]>.lock in lockDir (or any gateway lock whose
// configPath lies in stateDir), owned by a live process.
func detectGateway(stateDir, lockDir string, env func(string) string, now time.Time) GatewayStatus {
	cfgPath := gatewayConfigPath(stateDir, env)
	sum := sha256.Sum256([]byte(cfgPath))
	want := "gateway." + hex.EncodeToString(sum[:])[:8] + ".lock"
	matches, _ := filepath.Glob(filepath.Join(lockDir, "gateway.*.lock"))
	absState, _ := filepath.Abs(stateDir)
	for _, m := range matches {
		li := inspectLock(m, now)
		mine := filepath.Base(m) == want
		if !mine && li.Config != "" {
			if abs, err := filepath.Abs(filepath.Dir(li.Config)); err == nil && abs == absState {
				mine = true
			}
		}
		if mine && li.Alive {
			return GatewayStatus{Running: true, PID: li.PID, Lock: m, Reason: fmt.Sprintf("gateway lock %s is held by live process %d", m, li.PID)}
		}
	}
	return GatewayStatus{}
}

// hash8 is the first 8 hex digits of sha256(s): the gateway lock name's hash.
func hash8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:8]
}
