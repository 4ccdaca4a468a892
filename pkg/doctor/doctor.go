// Package doctor checks an OpenClaw state directory and fixes what is safe:
// the layout and storage era, the sessions.json indexes against the files,
// stale locks and leftover temp files, transcripts (through pkg/repair and
// pkg/transcript, wired in by the caller) and, above all, the cron jobs whose
// sessionTarget is session:<key> but whose result goes to another chat
// (contract §5, research/cron-doctor.md §8-§9).
package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/internal/jsondoc"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/gatewaylock"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// TranscriptCheck is the seam for checks other packages own (transcripts
// `oc repair --check` would change, transcript-ownership problems): it gets
// the state dir and returns findings. Fixes are never applied through it.
type TranscriptCheck func(stateDir string) ([]Finding, error)

// Options of a doctor run.
type Options struct {
	StateDir string
	Fix      bool // apply the safe fixes
	Force    bool // write even while the gateway runs
	Env      func(string) string
	Now      func() time.Time
	// MaxStoreBytes caps each JSON document read (default DefaultMaxStoreBytes).
	MaxStoreBytes int64
	// GatewayLockDir, when set, is the only folder searched for OpenClaw's
	// gateway.<hash>.lock (tests). Otherwise GatewayLockDirs are, and when
	// those are empty too, every uid's lock folder (GatewayLockDirs(Env)).
	GatewayLockDir  string
	GatewayLockDirs []string
	// Transcripts are run in the Transcripts section (may be empty).
	Transcripts []TranscriptCheck

	// beforeFix runs between the checks and the fixes (tests: a lock or a
	// store changing in between).
	beforeFix func()
	// beforeLockAside runs between a stale lock's last check and its move
	// aside (tests: a lock changing in the narrowest window).
	beforeLockAside func()
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// ErrStateDir is returned when the state dir is missing or not a directory.
var ErrStateDir = errors.New("state directory")

func (o Options) maxBytes() int64 {
	if o.MaxStoreBytes > 0 {
		return o.MaxStoreBytes
	}
	return DefaultMaxStoreBytes
}

// Run checks the state dir and, with Fix, applies the safe fixes. The error is
// for runs that could not start (state dir missing); everything else is a
// finding in the report. A cancelled ctx (SIGINT, SIGTERM) stops the run
// between two steps: every file is then either untouched or complete, no
// temp file is left, and Report.Interrupted says where it stopped.
func Run(ctx context.Context, opts Options) (*Report, error) {
	d, err := newRun(opts)
	if err != nil {
		return nil, err
	}
	r := d.r
	d.loadConfig()
	d.checkLayout()
	r.Gateway = detectGateway(d.opts.StateDir, d.opts.gatewayLockDirs(), d.opts.Env, d.now)
	d.checkSessions()
	d.checkLocksAndTemp()
	d.checkRepairFiles()
	d.checkGatewayRunning()
	d.checkTranscripts(ctx)
	cronMark := len(r.Findings)
	d.checkCron()
	for i := range r.Cron.Jobs {
		if r.Cron.Jobs[i].Store == "" {
			r.Cron.Jobs[i].Store = r.Cron.Store
		}
	}

	if ctx.Err() != nil {
		r.Interrupted = "interrupted during the checks; nothing was written and the report is incomplete"
	} else if d.opts.Fix {
		switch {
		case r.Gateway.Running && !d.opts.Force && d.fixesPending():
			r.Refused = "refusing to write while the OpenClaw gateway is running: " + r.Gateway.Reason + " (stop it, or pass --force)"
		default:
			if d.opts.beforeFix != nil {
				d.opts.beforeFix()
			}
			d.applyFixes(ctx, cronMark)
		}
	}
	for _, f := range r.Findings {
		if !f.Fixed && (f.Severity == SevWarning || f.Severity == SevError) {
			r.Remaining++
		}
	}
	r.Checks = summarize(r)
	return r, nil
}

// newRun starts a run on opts' state dir (made absolute), which must be a
// directory.
func newRun(opts Options) (*run, error) {
	now := opts.now()
	if abs, err := filepath.Abs(opts.StateDir); err == nil {
		opts.StateDir = abs // a relative --state-dir, resolved before anything compares it
	}
	st, err := os.Stat(opts.StateDir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", opts.StateDir, ErrStateDir, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: %w: not a directory", opts.StateDir, ErrStateDir)
	}
	r := &Report{StateDir: opts.StateDir, Mode: "check", Findings: []Finding{}, Changes: []Change{}}
	if opts.Fix {
		r.Mode = "fix"
	}
	return &run{opts: opts, r: r, now: now}, nil
}

// loadConfig reads OpenClaw's config; one that does not read is a finding
// (the defaults are used).
func (d *run) loadConfig() {
	cfg, cerr := LoadConfig(d.opts.StateDir, d.opts.Env)
	if cerr != nil {
		d.add(Finding{ID: "config-unreadable", Severity: SevWarning, Path: configPathOf(cerr), Section: SectionStateDir,
			Message: "OpenClaw's config could not be read: " + cerr.Error() + "; defaults used (agent main, main key main)",
			Fix:     "fix the file with `openclaw doctor`"})
	}
	d.r.Config = cfg.Path
	d.cfg = cfg
}

// gatewayLockDirs are the directories searched for the gateway's lock.
func (o Options) gatewayLockDirs() []string {
	lockDirs := o.GatewayLockDirs
	if o.GatewayLockDir != "" {
		lockDirs = []string{o.GatewayLockDir}
	} else if len(lockDirs) == 0 {
		lockDirs = GatewayLockDirs(o.Env)
	}
	return lockDirs
}

// checkGatewayRunning counts a live session lock as a running gateway, and
// reports a running gateway (a warning when it blocks --fix).
func (d *run) checkGatewayRunning() {
	r := d.r
	if !r.Gateway.Running && d.liveSessionLock != nil {
		r.Gateway = GatewayStatus{Running: true, PID: d.liveSessionLock.PID, Lock: d.liveSessionLock.Path,
			Reason: fmt.Sprintf("session lock %s is held by live process %d", d.liveSessionLock.Path, d.liveSessionLock.PID)}
	}
	if r.Gateway.Running {
		sev := SevInfo
		if d.opts.Fix && !d.opts.Force {
			sev = SevWarning
		}
		d.add(Finding{ID: "gateway-running", Severity: sev, Path: r.Gateway.Lock, Section: SectionGateway,
			Message: "an OpenClaw gateway is running (" + r.Gateway.Reason + "): it keeps the cron store in memory and writes it back",
			Fix:     "stop the gateway (`openclaw gateway stop`) before `oc doctor --fix`, or pass --force"})
	}
}

// checkTranscripts runs the transcript checks, stopping before the next one
// once ctx is cancelled.
func (d *run) checkTranscripts(ctx context.Context) {
	for _, check := range d.opts.Transcripts {
		if ctx.Err() != nil {
			break // the transcript scans are the long part of a check: stop before the next one
		}
		found, err := check(d.opts.StateDir)
		if err != nil {
			d.add(Finding{ID: "transcript-check-failed", Severity: SevError, Path: d.opts.StateDir, Section: SectionTranscripts, Message: err.Error(), Fix: "run `oc repair --check` and `oc inspect` on the state dir"})
		}
		for _, f := range found {
			if f.Section == "" {
				f.Section = SectionTranscripts
			}
			d.add(f)
		}
	}
}

func configPathOf(err error) string {
	var fe *FileError
	if errors.As(err, &fe) {
		return fe.Path
	}
	return ""
}

type run struct {
	opts            Options
	r               *Report
	cfg             Config
	now             time.Time
	index           SessionIndex
	liveSessionLock *gatewaylock.LockInfo
	// pending fixes
	staleLocks     []int // finding indexes
	tempFiles      []int
	ocTemps        []int
	oldQuarantines []int
	lockSnaps      map[int]gatewaylock.Snapshot // stale lock finding -> what was judged
	cron           *cronPlan
}

func (d *run) maxBytes() int64 { return d.opts.maxBytes() }

func (d *run) add(f Finding) int {
	d.r.Findings = append(d.r.Findings, f)
	return len(d.r.Findings) - 1
}

func (d *run) fixesPending() bool {
	return len(d.staleLocks) > 0 || len(d.tempFiles) > 0 || len(d.ocTemps) > 0 || len(d.oldQuarantines) > 0 || (d.cron != nil && len(d.cron.migrate) > 0)
}

// ------------------------------------------------------------ layout and era

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func (d *run) checkLayout() {
	sd := d.opts.StateDir
	sqlite := []string{}
	if p := filepath.Join(sd, "state", "openclaw.sqlite"); exists(p) {
		sqlite = append(sqlite, p)
	}
	agentDBs, _ := filepath.Glob(filepath.Join(sd, "agents", "*", "agent", "openclaw-agent.sqlite"))
	sqlite = append(sqlite, agentDBs...)
	switch {
	case len(sqlite) > 0:
		d.r.Era = "sqlite"
		d.add(Finding{ID: "sqlite-era", Severity: SevInfo, Path: sqlite[0], Section: SectionStateDir,
			Message: fmt.Sprintf("SQLite state found (%d %s): %s; oc reads the databases read-only and never writes them", len(sqlite), plural(len(sqlite), "database", "databases"), sqliteEraWords(agentDBs)),
			Fix:     "fixes to SQLite-era cron jobs go through OpenClaw's CLI (the commands are printed with the cron jobs)"})
	case exists(filepath.Join(sd, "agents")) || exists(filepath.Join(sd, "cron")):
		d.r.Era = EraJSONL
	default:
		d.r.Era = "empty"
		d.add(Finding{ID: "state-dir-empty", Severity: SevInfo, Path: sd, Section: SectionStateDir,
			Message: "no agents/ or cron/ directory: nothing of OpenClaw's state is here yet", Fix: "check --state-dir / $OPENCLAW_STATE_DIR"})
	}
	if p := filepath.Join(sd, "sessions"); exists(p) {
		d.add(Finding{ID: "legacy-sessions-dir", Severity: SevWarning, Path: p, Section: SectionStateDir,
			Message: "legacy sessions/ directory at the top of the state dir (before per-agent sessions)",
			Fix:     "run `openclaw doctor --fix` to move it into agents/<agentId>/sessions/"})
	}
	migrated, _ := filepath.Glob(filepath.Join(sd, "cron", "*.migrated*"))
	if len(migrated) > 0 {
		d.add(Finding{ID: "cron-store-imported", Severity: SevInfo, Path: migrated[0], Section: SectionStateDir,
			Message: fmt.Sprintf("%d %s named *.migrated: OpenClaw already imported a JSON cron store into SQLite", len(migrated), plural(len(migrated), "file", "files")),
			Fix:     "nothing to do; they are OpenClaw's archive"})
	}
}

// sqliteEraWords says which releases keep what in SQLite: cron jobs since
// 2026.6.1, sessions since 2026.8.1 (agent databases).
func sqliteEraWords(agentDBs []string) string {
	if len(agentDBs) > 0 {
		return "this install runs OpenClaw 2026.8.1 or later (sessions in agent databases, cron jobs in state/openclaw.sqlite)"
	}
	return "this install runs OpenClaw 2026.6.1 or later (cron jobs in state/openclaw.sqlite; sessions move to SQLite from 2026.8.1)"
}

// ------------------------------------------------------------ sessions index vs files

// checkSessions reads each agent's sessions.json (with doctor's size cap and
// JSON5 reader, into d.index for the cron classifier) and builds its
// findings from pkg/transcript's cross-check, the one `oc inspect` uses.
func (d *run) checkSessions() {
	sd := d.opts.StateDir
	agents := ListAgents(sd)
	def := d.cfg.defaultAgent()
	if !slices.Contains(agents, def) {
		agents = append(agents, def)
	}
	for _, agent := range agents {
		idxPath := transcript.StorePath(sd, d.cfg.SessionStore, agent)
		a := transcript.Agent{ID: agent, SessionsDir: filepath.Dir(idxPath), IndexPath: idxPath}
		_, doc, res, err := readDoc(idxPath, d.opts.MaxStoreBytes)
		if errors.Is(err, fs.ErrNotExist) {
			if live, _ := transcript.PrimaryTranscripts(a.SessionsDir); len(live) > 0 {
				fix := "start the gateway once (OpenClaw rebuilds the index), or restore sessions.json from a backup"
				if d.r.Era == "sqlite" {
					// 2026.9.6's import archives sessions.json on purpose:
					// the index of an imported agent is its database.
					fix = "OpenClaw 2026.9.6 archives sessions.json when it imports an agent (its index is now the database): `openclaw doctor --fix` imports these transcripts; nothing to restore"
				}
				d.add(Finding{ID: "sessions-index-missing", Severity: SevWarning, Path: idxPath, Section: SectionSessions,
					Message: fmt.Sprintf("agent %s has %d %s but no sessions.json", agent, len(live), plural(len(live), "transcript", "transcripts")),
					Fix:     fix})
			}
			d.index.Add(agent, nil)
			continue
		}
		var fe *FileError
		if errors.As(err, &fe) && (fe.Kind == "not-regular" || fe.Kind == "too-deep") {
			id, fix := "sessions-index-not-a-file", "replace it with the real sessions.json; a FIFO, socket or device is never a session index"
			if fe.Kind == "too-deep" {
				id, fix = "sessions-index-too-deep", "check the file by hand: oc doctor does not read JSON nested this deep"
			}
			d.add(Finding{ID: id, Severity: SevError, Path: idxPath, Section: SectionSessions, Message: err.Error(), Fix: fix})
			d.index.Add(agent, nil)
			continue
		}
		if err != nil {
			d.add(Finding{ID: "sessions-index-unreadable", Severity: SevError, Path: idxPath, Section: SectionSessions,
				Message: err.Error(), Fix: "restore sessions.json from a backup; OpenClaw cannot route replies without it"})
			d.index.Add(agent, nil)
			continue
		}
		if doc.Kind != jsondoc.Object {
			d.add(Finding{ID: "sessions-index-invalid", Severity: SevError, Path: idxPath, Section: SectionSessions,
				Message: fmt.Sprintf("sessions.json is a JSON %s, not an object of session entries", doc.Kind), Fix: "restore sessions.json from a backup"})
			d.index.Add(agent, nil)
			continue
		}
		if len(res.DuplicateKeys) > 0 {
			d.add(Finding{ID: "sessions-index-duplicate-keys", Severity: SevWarning, Path: idxPath, Section: SectionSessions,
				Message: fmt.Sprintf("%d %s twice (the last one wins), e.g. %q", len(res.DuplicateKeys), plural(len(res.DuplicateKeys), "session key appears", "session keys appear"), res.DuplicateKeys[0]),
				Fix:     "let the gateway rewrite the index (any session update saves it)"})
		}
		d.index.Add(agent, doc)
		ic, err := transcript.CheckEntries(a, indexEntries(d.index.Agents[agent]))
		if err != nil {
			d.add(Finding{ID: "sessions-dir-unreadable", Severity: SevWarning, Path: a.SessionsDir, Section: SectionSessions,
				Message: "the sessions folder cannot be listed, so sessions.json was not compared with the files: " + err.Error(),
				Fix:     "check the folder's permissions"})
			continue
		}
		d.indexFindings(a, ic)
	}
}

// indexEntries are one agent's sessions.json entries (last duplicate key
// wins, as with JSON.parse) in pkg/transcript's model.
func indexEntries(entries map[string]*jsondoc.Value) []transcript.IndexEntry {
	out := make([]transcript.IndexEntry, 0, len(entries))
	for key, e := range entries {
		ie := transcript.IndexEntry{Key: key}
		ie.SessionID, _ = e.StringOf("sessionId")
		ie.SessionFile, _ = e.StringOf("sessionFile")
		out = append(out, ie)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// indexFindings turns an agent's index cross-check into findings. An entry
// with an unusable sessionFile is reported once, as dangling.
func (d *run) indexFindings(a transcript.Agent, ic *transcript.IndexCheck) {
	var dangling, missing, orphans []string
	isDangling := map[string]bool{}
	what := "that does not exist"
	for _, r := range ic.Dangling {
		dangling = append(dangling, r.Key)
		isDangling[r.Key] = true
		if !strings.Contains(r.Reason, "does not exist") {
			what = "that does not exist or lies outside the sessions folder"
		}
	}
	for _, r := range ic.MissingFiles {
		if !isDangling[r.Key] {
			missing = append(missing, r.Key)
		}
	}
	for _, f := range ic.OrphanFiles {
		orphans = append(orphans, filepath.Base(f))
	}
	if len(dangling) > 0 {
		d.add(Finding{ID: "session-file-dangling", Severity: SevWarning, Path: a.IndexPath, Section: SectionSessions,
			Message: fmt.Sprintf("%d entr%s name a sessionFile %s (%s)", len(dangling), plural(len(dangling), "y", "ies"), what, listSome(dangling)),
			Fix:     "the next message in those sessions starts a new transcript; restore the files from a backup if history matters"})
	}
	if len(missing) > 0 {
		d.add(Finding{ID: "session-file-missing", Severity: SevInfo, Path: a.IndexPath, Section: SectionSessions,
			Message: fmt.Sprintf("%d entr%s no transcript <sessionId>.jsonl (%s)", len(missing), plural(len(missing), "y has", "ies have"), listSome(missing)),
			Fix:     "nothing needed unless history is expected there"})
	}
	if len(orphans) > 0 {
		d.add(Finding{ID: "session-file-orphaned", Severity: SevInfo, Path: a.SessionsDir, Section: SectionSessions,
			Message: fmt.Sprintf("%d %s not referenced by sessions.json (%s)", len(orphans), plural(len(orphans), "transcript", "transcripts"), listSome(orphans)),
			Fix:     "`oc inspect` them; archive or delete the ones you do not need"})
	}
}

// ------------------------------------------------------------ locks and temp files

// tempName is OpenClaw's (and oc's) temp file pattern <file>.<pid>.<hex or uuid>.tmp.
var tempName = lazyre.New(`^(.+)\.(\d+)\.([0-9a-fA-F-]{8,})\.tmp$`)

func (d *run) checkLocksAndTemp() {
	sd := d.opts.StateDir
	locks, _ := filepath.Glob(filepath.Join(sd, "agents", "*", "sessions", "*.lock"))
	for _, l := range locks {
		d.checkSessionLock(l)
	}
	dirs := []string{sd, filepath.Join(sd, "cron")}
	sessDirs, _ := filepath.Glob(filepath.Join(sd, "agents", "*", "sessions"))
	dirs = append(dirs, sessDirs...)
	for _, dir := range dirs {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			d.checkLeftover(dir, e)
		}
	}
}

// checkSessionLock judges one session lock file as OpenClaw does: held by
// a live process, just created, or stale (removable when it could be read).
func (d *run) checkSessionLock(l string) {
	raw, st, err := readRegular(l, maxLockBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return // released since the glob
	}
	if errors.Is(err, errNotRegular) {
		d.add(Finding{ID: "lock-not-a-file", Severity: SevWarning, Path: l, Section: SectionLocks,
			Message: "named like a session lock but is " + fileKind(st.Mode()) + ": oc does not open it",
			Fix:     "remove it by hand if nothing uses it (doctor never removes what is not a lock file)"})
		return
	}
	var li *gatewaylock.LockInfo
	if err != nil {
		// OpenClaw reads a lock it cannot read as one without a payload.
		li = judgeLock(l, nil, d.now)
	} else {
		li = judgeLock(l, raw, d.now)
	}
	switch {
	case li.Alive:
		if d.liveSessionLock == nil {
			d.liveSessionLock = li
		}
		d.add(Finding{ID: "session-lock-held", Severity: SevInfo, Path: l, Section: SectionLocks,
			Message: fmt.Sprintf("held by live process %d since %s", li.PID, li.CreatedAt), Fix: "nothing: the gateway is writing this session"})
	case !li.Stale:
		// No payload yet, but only seconds old: OpenClaw gives its owner time to write it.
		d.add(Finding{ID: "session-lock-held", Severity: SevInfo, Path: l, Section: SectionLocks,
			Message: "just created; its owner has not written its pid yet", Fix: "nothing: run oc doctor again in a minute"})
	default:
		i := d.add(Finding{ID: "stale-session-lock", Severity: SevWarning, Path: l, Section: SectionLocks,
			Message: "stale lock (" + strings.Join(li.StaleReasons, ", ") + ")" + pidNote(li.PID),
			Fix:     "oc doctor --fix removes it (its owner is gone)", Fixable: err == nil})
		if err == nil {
			d.staleLocks = append(d.staleLocks, i)
			if d.lockSnaps == nil {
				d.lockSnaps = map[int]gatewaylock.Snapshot{}
			}
			d.lockSnaps[i] = gatewaylock.Snapshot{Path: l, Raw: raw, Info: st}
		}
	}
}

// checkLeftover reports a file in dir that an interrupted write or an old oc
// left behind: oc's temp files, old quarantine names, and temp files of a
// process that is gone (an empty one is removable).
func (d *run) checkLeftover(dir string, e fs.DirEntry) {
	sd := d.opts.StateDir
	if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), durable.TempPrefix) {
		d.ocTempFile(dir, e)
		return
	}
	if m := oldQuarantineName().FindStringSubmatch(e.Name()); m != nil && dir != sd && filepath.Base(dir) == "sessions" {
		d.oldQuarantine(dir, e, m[1]+".rejected-"+m[2])
		return
	}
	m := tempName().FindStringSubmatch(e.Name())
	if m == nil {
		return
	}
	p := filepath.Join(dir, e.Name())
	var pid int
	fmt.Sscan(m[2], &pid)
	if gatewaylock.PIDAlive(pid) && pid != os.Getpid() {
		return // a write in progress
	}
	info, err := e.Info()
	if err != nil {
		return
	}
	if info.Size() == 0 {
		i := d.add(Finding{ID: "leftover-temp-file", Severity: SevWarning, Path: p, Section: SectionLocks,
			Message: fmt.Sprintf("empty temp file left by an interrupted write of %s (process %d is gone)", m[1], pid),
			Fix:     "oc doctor --fix removes it", Fixable: true})
		d.tempFiles = append(d.tempFiles, i)
		return
	}
	d.add(Finding{ID: "leftover-temp-file", Severity: SevWarning, Path: p, Section: SectionLocks,
		Message: fmt.Sprintf("%d-byte temp file left by an interrupted write of %s (process %d is gone)", info.Size(), m[1], pid),
		Fix:     "compare it with " + m[1] + " and remove it by hand (doctor never deletes data)"})
}

// oldQuarantineName is the quarantine name of oc before 2026-12
// ("<transcript>.jsonl.rejected-<stamp>.jsonl"), which OpenClaw takes for a
// live session; the current name drops the final ".jsonl".
var oldQuarantineName = lazyre.New(`^(.+\.jsonl)\.rejected-(\d{8}T\d{6}Z)\.jsonl$`)

// oldQuarantine reports a quarantine file with the old name; --fix renames it.
func (d *run) oldQuarantine(dir string, e fs.DirEntry, newName string) {
	if !e.Type().IsRegular() {
		return
	}
	p := filepath.Join(dir, e.Name())
	i := d.add(Finding{ID: "quarantine-named-like-session", Severity: SevWarning, Path: p, Section: SectionLocks,
		Message: "quarantine file of an earlier oc version named like a live transcript: OpenClaw 2026.5.6 counts every such *.jsonl as a session (its doctor offers to archive it, its disk-budget cleanup may delete it) and 2026.9.6's upgrade imports it as history",
		Fix:     "oc doctor --fix renames it to " + newName + " (same content; oc repair --undo still finds it)", Fixable: true})
	d.oldQuarantines = append(d.oldQuarantines, i)
}

// ocTempFileMinAge: an oc temp file younger than this may belong to a run in progress.
const ocTempFileMinAge = 10 * time.Minute

// ocTempFile reports a temp file an interrupted oc run left (".<base>.oc-tmp-*");
// the original was never replaced, so removing it loses nothing.
func (d *run) ocTempFile(dir string, e fs.DirEntry) {
	info, err := e.Info()
	if err != nil || d.now.Sub(info.ModTime()) < ocTempFileMinAge {
		return
	}
	p := filepath.Join(dir, e.Name())
	i := d.add(Finding{ID: "leftover-temp-file", Severity: SevWarning, Path: p, Section: SectionLocks,
		Message: fmt.Sprintf("temp file of an interrupted oc write (%d bytes); the original was never replaced", info.Size()),
		Fix:     "oc doctor --fix removes it", Fixable: true})
	d.ocTemps = append(d.ocTemps, i)
}

func pidNote(pid int) string {
	if pid > 0 {
		return fmt.Sprintf(", pid %d", pid)
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func listSome(items []string) string {
	sort.Strings(items)
	if len(items) > 3 {
		return strings.Join(items[:3], ", ") + fmt.Sprintf(", and %d more", len(items)-3)
	}
	return strings.Join(items, ", ")
}

// ------------------------------------------------------------ applying fixes

// applyFixes applies the planned fixes, checking ctx before each one.
// cronMark is where the cron findings begin: a store that changed since it
// was read is planned again from what is on disk (up to three times).
func (d *run) applyFixes(ctx context.Context, cronMark int) {
	for _, i := range d.staleLocks {
		if d.stopped(ctx, "removing stale locks") {
			return
		}
		d.removeStaleLock(i)
	}
	for _, i := range d.tempFiles {
		if d.stopped(ctx, "removing temp files") {
			return
		}
		d.removeEmptyTemp(i)
	}
	for _, i := range d.ocTemps {
		if d.stopped(ctx, "removing temp files") {
			return
		}
		d.removeOCTemp(i)
	}
	for _, i := range d.oldQuarantines {
		if d.stopped(ctx, "renaming quarantine files") {
			return
		}
		d.renameOldQuarantine(i)
	}
	d.migrateCron(ctx, cronMark)
}

// stopped reports whether ctx was cancelled, and then notes the run as
// interrupted before what.
func (d *run) stopped(ctx context.Context, what string) bool {
	if ctx.Err() == nil {
		return false
	}
	d.r.Interrupted = "interrupted before " + what + "; every file is either untouched or complete"
	return true
}

// removeEmptyTemp removes the empty leftover temp file of finding i, unless
// it changed since the check.
func (d *run) removeEmptyTemp(i int) {
	f := &d.r.Findings[i]
	if st, err := os.Lstat(f.Path); err != nil || !st.Mode().IsRegular() || st.Size() != 0 {
		return // changed since the check: leave it
	}
	if err := durable.Remove(nil, f.Path); err != nil {
		f.Message += "; could not remove: " + err.Error()
		return
	}
	f.Fixed = true
	d.r.Changes = append(d.r.Changes, Change{Action: "remove", Path: f.Path, Detail: "empty leftover temp file"})
}

// removeOCTemp removes the oc temp file of finding i, unless it is gone or
// was written to since the check.
func (d *run) removeOCTemp(i int) {
	f := &d.r.Findings[i]
	if st, err := os.Lstat(f.Path); err != nil || !st.Mode().IsRegular() || time.Since(st.ModTime()) < ocTempFileMinAge {
		return // gone, or written to since the check: a run in progress owns it
	}
	if err := durable.Remove(nil, f.Path); err != nil {
		f.Message += "; could not remove: " + err.Error()
		return
	}
	f.Fixed = true
	d.r.Changes = append(d.r.Changes, Change{Action: "remove", Path: f.Path, Detail: "oc temp file"})
}

// renameOldQuarantine gives the quarantine file of finding i its current
// name (never replacing a file).
func (d *run) renameOldQuarantine(i int) {
	f := &d.r.Findings[i]
	m := oldQuarantineName().FindStringSubmatch(filepath.Base(f.Path))
	to := filepath.Join(filepath.Dir(f.Path), m[1]+".rejected-"+m[2])
	if err := durable.MoveNoReplace(nil, f.Path, to); err != nil {
		f.Message += "; not renamed: " + err.Error()
		return
	}
	f.Fixed = true
	d.r.Changes = append(d.r.Changes, Change{Action: "rename", Path: to, Detail: "was " + filepath.Base(f.Path)})
}

// migrateCron applies the cron migration; when another writer changed
// jobs.json meanwhile, the cron findings from cronMark on are planned again
// from what it holds (up to maxCronAttempts times).
func (d *run) migrateCron(ctx context.Context, cronMark int) {
	for attempt := 1; d.cron != nil && len(d.cron.migrate) > 0; attempt++ {
		if d.stopped(ctx, "migrating cron jobs") {
			return
		}
		err := d.applyCron(ctx)
		switch {
		case err == nil:
			return
		case errors.Is(err, ErrStoreChanged) && attempt < maxCronAttempts && ctx.Err() == nil:
			// Another writer changed jobs.json: plan again from what it holds now.
			d.r.Findings = d.r.Findings[:cronMark]
			d.checkCron()
			continue
		case ctx.Err() != nil:
			d.r.Interrupted = "interrupted before jobs.json was replaced: " + err.Error() + "; nothing of the migration was kept"
		case errors.Is(err, ErrStoreChanged):
			d.add(Finding{ID: "cron-migration-failed", Severity: SevError, Path: d.cron.store.Path, Section: SectionCron,
				Message: fmt.Sprintf("%v (another writer, %d times in a row): nothing was changed in the store", err, attempt),
				Fix:     "stop whatever writes the cron store (the gateway, `openclaw cron …`) and run oc doctor --fix again"})
		default:
			d.add(Finding{ID: "cron-migration-failed", Severity: SevError, Path: d.cron.store.Path, Section: SectionCron,
				Message: err.Error(), Fix: "nothing was changed in the store; fix the cause and run oc doctor --fix again"})
		}
		return
	}
}

// maxCronAttempts bounds re-planning when jobs.json keeps changing.
const maxCronAttempts = 3

// removeStaleLock removes the lock of finding i if it is still the stale
// lock that was judged (gatewaylock.BreakStaleLock: same inode, same bytes,
// still stale, moved aside and checked again before it is removed, so that
// a live lock taken at the same moment is never the one removed).
func (d *run) removeStaleLock(i int) {
	f := &d.r.Findings[i]
	removed, err := gatewaylock.BreakStaleLock(d.lockSnaps[i], gatewaylock.BreakOptions{Now: d.now, BeforeAside: d.opts.beforeLockAside})
	switch {
	case errors.Is(err, gatewaylock.ErrLockChanged):
		f.Message += "; not removed: " + strings.TrimPrefix(err.Error(), f.Path+": ")
		return
	case err != nil:
		f.Message += "; could not remove: " + err.Error()
		return
	}
	f.Fixed = true // removed, or its owner or the gateway removed it meanwhile
	if removed {
		d.r.Changes = append(d.r.Changes, Change{Action: "remove", Path: f.Path, Detail: "stale session lock"})
	}
}

func marshalIndent(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n")
}
