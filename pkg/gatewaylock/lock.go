package gatewaylock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/internal/durable"
)

// OpenClaw's session write lock (src/agents/session-write-lock.ts in 2026.5.6):
// "<realpath of the folder>/<file name>.lock", created with O_EXCL, holding
// JSON.stringify({pid, createdAt[, starttime]}, null, 2). A lock is stale when
// its pid is missing, dead, a zombie or recycled (starttime, field 22 of
// /proc/<pid>/stat, differs), or when it is older than 30 minutes.

// DefaultLockStaleAfter is OpenClaw's session.writeLock.staleMs default.
const DefaultLockStaleAfter = 30 * time.Minute

// orphanPayloadGrace is how long a lock without a readable pid/createdAt is
// presumed to be mid-creation (OpenClaw's ORPHAN_LOCK_PAYLOAD_GRACE_MS).
const orphanPayloadGrace = 5 * time.Second

// LockInfo describes an existing lock file: a session write lock, or the
// gateway's lock ({pid, createdAt, configPath, startTime}), which is judged
// by the same rules.
type LockInfo struct {
	Path         string   `json:"path"`
	PID          int      `json:"pid,omitempty"`
	CreatedAt    string   `json:"createdAt,omitempty"`
	Starttime    *int64   `json:"starttime,omitempty"`
	ConfigPath   string   `json:"configPath,omitempty"` // gateway lock only
	Alive        bool     `json:"alive"`
	Stale        bool     `json:"stale"`
	StaleReasons []string `json:"staleReasons,omitempty"`
}

// ErrLocked is returned when a live process holds the lock.
var ErrLocked = errors.New("locked by a live process")

// ErrStaleLock is returned when a stale lock exists and breaking it was not allowed.
var ErrStaleLock = errors.New("stale lock (use --break-stale-locks to remove it)")

// LockError carries the lock that stopped an acquisition.
type LockError struct {
	Info LockInfo
	Err  error // ErrLocked or ErrStaleLock
}

func (e *LockError) Error() string {
	who := "unknown owner"
	if e.Info.PID > 0 {
		who = "pid " + strconv.Itoa(e.Info.PID)
	}
	if errors.Is(e.Err, ErrStaleLock) {
		return fmt.Sprintf("%s: %v: %s, %s", e.Info.Path, e.Err, who, strings.Join(e.Info.StaleReasons, ", "))
	}
	return fmt.Sprintf("%s: %v (%s)", e.Info.Path, e.Err, who)
}

func (e *LockError) Unwrap() error { return e.Err }

// LockPath is the lock file OpenClaw uses for a transcript: the folder's real
// path joined with "<base>.lock".
func LockPath(file string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		abs = file
	}
	dir := filepath.Dir(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.Join(dir, filepath.Base(abs)+".lock")
}

// InspectLock reads a lock file and judges it the way OpenClaw does. It
// returns nil and no error when there is no lock.
func InspectLock(lockPath string, now time.Time, staleAfter time.Duration) (*LockInfo, error) {
	raw, err := durable.ReadRegular(lockPath) // a FIFO named <file>.lock must not hang us
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	return JudgeLock(lockPath, raw, now, staleAfter), nil
}

// JudgeLock judges a lock file whose content is raw: OpenClaw's
// inspectLockPayload. A payload JSON.parse would reject (or nil, for a lock
// that could not be read) has no pid and no createdAt, like OpenClaw's
// readLockPayload returning null. The gateway's lock spells the start time
// "startTime"; it is read when "starttime" is absent.
func JudgeLock(lockPath string, raw []byte, now time.Time, staleAfter time.Duration) *LockInfo {
	if staleAfter <= 0 {
		staleAfter = DefaultLockStaleAfter
	}
	info := &LockInfo{Path: lockPath}
	var payload map[string]json.RawMessage
	if json.Unmarshal(raw, &payload) == nil {
		if n, ok := lockNumber(payload["pid"]); ok && n > 0 {
			info.PID = int(n)
		}
		info.CreatedAt = lockString(payload["createdAt"])
		start, ok := payload["starttime"]
		if !ok {
			start = payload["startTime"]
		}
		if n, ok := lockNumber(start); ok {
			info.Starttime = &n
		}
		info.ConfigPath = lockString(payload["configPath"])
	}
	var reasons []string
	switch {
	case info.PID == 0:
		reasons = append(reasons, "missing-pid")
	case !PIDAlive(info.PID):
		reasons = append(reasons, "dead-pid")
	default:
		info.Alive = true
		if info.Starttime != nil {
			if cur, ok := ProcessStartTime(info.PID); ok && cur != *info.Starttime {
				info.Alive = false
				reasons = append(reasons, "recycled-pid")
			}
		}
	}
	created, err := time.Parse(time.RFC3339Nano, info.CreatedAt)
	if err != nil {
		reasons = append(reasons, "invalid-createdAt")
	} else if now.Sub(created) > staleAfter {
		reasons = append(reasons, "too-old")
	}
	if len(reasons) > 0 && onlyPayloadProblems(reasons) {
		// A lock being created right now has no payload yet: OpenClaw gives it
		// a few seconds before calling it stale.
		if st, err := os.Stat(lockPath); err == nil && now.Sub(st.ModTime()) <= orphanPayloadGrace {
			reasons = nil
		}
	}
	info.StaleReasons = reasons
	info.Stale = len(reasons) > 0
	return info
}

// lockNumber is OpenClaw's isValidLockNumber: a JSON number (not a string)
// that is a non-negative integer, 1234.0 and 1.5e3 included as JSON.parse
// reads them.
func lockNumber(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, false
	}
	if i, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return i, i >= 0
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f < 0 || f != math.Trunc(f) || f > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// lockString is a JSON string member's value, "" for anything else.
func lockString(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func onlyPayloadProblems(reasons []string) bool {
	for _, r := range reasons {
		if r != "missing-pid" && r != "invalid-createdAt" {
			return false
		}
	}
	return true
}

// PIDAlive is OpenClaw's isPidAlive: kill(pid, 0) succeeds and the process
// is not a zombie.
func PIDAlive(pid int) bool {
	// kill(2) takes a pid_t: a larger number would be truncated to some
	// other process's pid. Node's process.kill throws for it too.
	if pid <= 0 || pid > math.MaxInt32 {
		return false
	}
	if err := signalZero(pid); err != nil {
		return false
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "State:") {
				f := strings.Fields(strings.TrimPrefix(line, "State:"))
				if len(f) > 0 && f[0] == "Z" {
					return false
				}
				break
			}
		}
	}
	return true
}

// ProcessStartTime reads field 22 (starttime) of /proc/<pid>/stat.
func ProcessStartTime(pid int) (int64, bool) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
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
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// LockOptions tune AcquireLock.
type LockOptions struct {
	Wait       time.Duration // keep retrying a live lock this long (0: fail at once)
	BreakStale bool          // remove a stale lock instead of failing
	StaleAfter time.Duration // 0: DefaultLockStaleAfter
	FS         durable.FS
	Now        func() time.Time
}

// Lock is a held session write lock.
type Lock struct {
	Path   string
	Broken *LockInfo // the stale lock that was removed to take this one, if any
	fsys   durable.FS
	pid    int
}

// AcquireLock takes OpenClaw's write lock for a transcript, writing the same
// payload the gateway writes. A live lock fails with a *LockError wrapping
// ErrLocked (after Wait); a stale one with ErrStaleLock unless BreakStale.
// A cancelled ctx stops a Wait early.
func AcquireLock(ctx context.Context, file string, opts LockOptions) (*Lock, error) {
	fsys := opts.FS
	if fsys == nil {
		fsys = durable.OSFS{}
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	lockPath := LockPath(file)
	start := now()
	var broken *LockInfo
	for attempt := 1; ; attempt++ {
		f, err := fsys.CreateExcl(lockPath, 0o644)
		if err == nil {
			pid := os.Getpid()
			payload := fmt.Sprintf("{\n  \"pid\": %d,\n  \"createdAt\": %q", pid, now().UTC().Format("2006-01-02T15:04:05.000Z"))
			if st, ok := ProcessStartTime(pid); ok {
				payload += fmt.Sprintf(",\n  \"starttime\": %d", st)
			}
			payload += "\n}"
			_, werr := f.Write([]byte(payload))
			cerr := f.Close()
			if werr != nil || cerr != nil {
				_ = fsys.Remove(lockPath)
				return nil, fmt.Errorf("%s: write lock: %w", lockPath, errors.Join(werr, cerr))
			}
			return &Lock{Path: lockPath, Broken: broken, fsys: fsys, pid: pid}, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("%s: create lock: %w", lockPath, err)
		}
		info, ierr := InspectLock(lockPath, now(), opts.StaleAfter)
		if ierr != nil {
			return nil, fmt.Errorf("%s: read lock: %w", lockPath, ierr)
		}
		if info == nil {
			continue // released between our create and our read
		}
		if info.Stale {
			if !opts.BreakStale {
				return nil, &LockError{Info: *info, Err: ErrStaleLock}
			}
			if err := fsys.Remove(lockPath); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("%s: remove stale lock: %w", lockPath, err)
			}
			broken = info
			continue
		}
		if err := waitForLive(ctx, info, attempt, now().Sub(start), opts.Wait); err != nil {
			return nil, err
		}
	}
}

// waitForLive waits before the next look at the live lock info (50 ms more
// each attempt, at most a second, never past wait); once wait is used up,
// or ctx is done, it returns why the lock could not be had.
func waitForLive(ctx context.Context, info *LockInfo, attempt int, elapsed, wait time.Duration) error {
	if elapsed >= wait {
		return &LockError{Info: *info, Err: ErrLocked}
	}
	delay := min(time.Duration(attempt)*50*time.Millisecond, time.Second, wait-elapsed)
	t := time.NewTimer(delay)
	select {
	case <-ctx.Done():
		t.Stop()
		return fmt.Errorf("%s: waiting for the lock: %w", info.Path, ctx.Err())
	case <-t.C:
		return nil
	}
}

// Release removes the lock file if it is still ours.
func (l *Lock) Release() error {
	if l == nil {
		return nil
	}
	info, err := InspectLock(l.Path, time.Now(), 0)
	if err != nil || info == nil || info.PID != l.pid {
		return err
	}
	if err := l.fsys.Remove(l.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: remove lock: %w", l.Path, err)
	}
	return nil
}
