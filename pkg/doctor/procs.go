package doctor

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// Locks are read and judged by pkg/jsonl (OpenClaw's session-write-lock
// rules: missing-pid, dead-pid, recycled-pid, invalid-createdAt, too-old);
// only where OpenClaw keeps the gateway's lock is doctor's own business.

// GatewayStatus says whether an OpenClaw gateway owns this state dir now.
type GatewayStatus struct {
	Running bool   `json:"running"`
	PID     int    `json:"pid,omitempty"`
	Lock    string `json:"lock,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// GatewayLockDir is OpenClaw's resolveGatewayLockDir: $TMPDIR/openclaw-<uid>,
// $TMPDIR read through env (nil or unset: os.TempDir()).
func GatewayLockDir(env func(string) string) string {
	tmp := ""
	if env != nil {
		tmp = env("TMPDIR")
	}
	if tmp == "" {
		tmp = os.TempDir()
	}
	return filepath.Join(tmp, fmt.Sprintf("openclaw-%d", os.Getuid()))
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
	want := "gateway." + hash8(gatewayConfigPath(stateDir, env)) + ".lock"
	matches, _ := filepath.Glob(filepath.Join(lockDir, "gateway.*.lock"))
	absState, _ := filepath.Abs(stateDir)
	for _, m := range matches {
		li, err := jsonl.InspectLock(m, now, 0)
		if err != nil || li == nil {
			continue // unreadable, or released since the glob: no live owner to name
		}
		mine := filepath.Base(m) == want
		if !mine && li.ConfigPath != "" {
			if abs, err := filepath.Abs(filepath.Dir(li.ConfigPath)); err == nil && abs == absState {
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
