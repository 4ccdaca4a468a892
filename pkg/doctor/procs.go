package doctor

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/pkg/gatewaylock"
	"github.com/openclaw-tools/oc/pkg/openclawconfig"
)

// Locks are judged by pkg/jsonl (OpenClaw's session-write-lock rules:
// missing-pid, dead-pid, recycled-pid, invalid-createdAt, too-old); where
// OpenClaw keeps the gateway's lock, and reading locks without blocking, are
// doctor's own business.

// GatewayStatus says whether an OpenClaw gateway owns this state dir now.
type GatewayStatus struct {
	Running bool   `json:"running"`
	PID     int    `json:"pid,omitempty"`
	Lock    string `json:"lock,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

func tempBase(env func(string) string) string {
	tmp := ""
	if env != nil {
		tmp = env("TMPDIR")
	}
	if tmp == "" {
		tmp = os.TempDir()
	}
	return tmp
}

// GatewayLockDirs are the gateway lock folders of every user that exist:
// openclaw-<uid> (and "openclaw", OpenClaw's name where there is no uid) in
// $TMPDIR and in /tmp. The gateway runs as its user, so `sudo oc doctor`
// must look in that user's folder, not root's.
func GatewayLockDirs(env func(string) string) []string {
	var out []string
	for _, base := range []string{tempBase(env), "/tmp"} {
		matches, _ := filepath.Glob(filepath.Join(base, "openclaw-*"))
		matches = append(matches, filepath.Join(base, "openclaw"))
		for _, m := range matches {
			if st, err := os.Stat(m); err != nil || !st.IsDir() {
				continue
			}
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// realPath is path made absolute with every symlink resolved (as far as it
// exists).
func realPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// detectGateway looks for a live gateway of this state dir in every lock
// folder: the lock gateway.<sha256(configPath)[:8]>.lock for the config path
// as given or resolved, or any gateway lock whose configPath lies in the
// state dir, compared by real path (a symlinked state dir is the same dir).
func detectGateway(stateDir string, lockDirs []string, env func(string) string, now time.Time) GatewayStatus {
	realState := realPath(stateDir)
	want := map[string]bool{}
	for _, sd := range []string{stateDir, realState} {
		cp := openclawconfig.Path(sd, env)
		want["gateway."+hash8(cp)+".lock"] = true
		want["gateway."+hash8(realPath(cp))+".lock"] = true
	}
	for _, dir := range lockDirs {
		matches, _ := filepath.Glob(filepath.Join(dir, "gateway.*.lock"))
		for _, m := range matches {
			raw, _, err := readRegular(m, maxLockBytes)
			if err != nil {
				continue // unreadable, not a file, or released since the glob: no live owner to name
			}
			li := judgeLock(m, raw, now)
			mine := want[filepath.Base(m)]
			if !mine && li.ConfigPath != "" && filepath.IsAbs(li.ConfigPath) {
				mine = realPath(filepath.Dir(li.ConfigPath)) == realState
			}
			if mine && li.Alive {
				return GatewayStatus{Running: true, PID: li.PID, Lock: m,
					Reason: fmt.Sprintf("gateway lock %s is held by live process %d%s", m, li.PID, processNote(li.PID))}
			}
		}
	}
	return GatewayStatus{}
}

// processNote names a live process for messages: " (node, uid 1000)".
func processNote(pid int) string {
	var parts []string
	if comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); err == nil {
		if c := strings.TrimSpace(string(comm)); c != "" {
			parts = append(parts, safeText(c))
		}
	}
	if st, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
		if uid, _, ok := owner(st); ok {
			parts = append(parts, "uid "+strconv.Itoa(uid))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// safeText keeps printable characters only (a process name is not trusted).
func safeText(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
}

// judgeLock is gatewaylock.JudgeLock with OpenClaw's isValidPid: a pid that is not
// a positive 32-bit integer is never a live process (Node's process.kill
// rejects it; kill(2) would see it truncated, e.g. 2^32+1 as init).
func judgeLock(lockPath string, raw []byte, now time.Time) *gatewaylock.LockInfo {
	li := gatewaylock.JudgeLock(lockPath, raw, now, 0)
	if li.PID > math.MaxInt32 {
		li.Alive = false
		reasons := []string{"dead-pid"}
		for _, r := range li.StaleReasons {
			if r != "dead-pid" && r != "recycled-pid" {
				reasons = append(reasons, r)
			}
		}
		li.StaleReasons = reasons
		li.Stale = true
	}
	return li
}

// hash8 is the first 8 hex digits of sha256(s): the gateway lock name's hash.
func hash8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:8]
}
