package doctor

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/internal/jsondoc"
)

// CronStorePath is where the JSON-era cron store lives: cron.store from the
// config (~ expanded), else <stateDir>/cron/jobs.json.
func CronStorePath(stateDir string, cfg Config) string {
	if s := strings.TrimSpace(cfg.CronStore); s != "" {
		if strings.HasPrefix(s, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				s = filepath.Join(home, s[2:])
			}
		}
		if abs, err := filepath.Abs(s); err == nil {
			return abs
		}
		return s
	}
	return filepath.Join(stateDir, "cron", "jobs.json")
}

// How deep a cron store OpenClaw 2026.5.6 loads. Its loadCronStore parses
// with JSON.parse (no depth limit) and then JSON.stringify-s the store, which
// recurses: measured with the oracle's cron mode (TestNestingMatchesOracle),
// 4,000 and 4,350 levels load and 4,400 fail with "Maximum call stack size
// exceeded" (RangeError, not "Failed to parse cron store"). The exact limit
// depends on the JavaScript stack left when the gateway loads the store, so
// the band between the two is reported as a risk, not a fact.
const (
	OpenClawCronLoadsDepth = 4000
	OpenClawCronFailsDepth = 4400
)

const tooDeepFact = "OpenClaw 2026.5.6 cannot load a cron store nested this deep (checked against its code: its loader fails from about 4,400 levels, with \"Maximum call stack size exceeded\" where the JSON is valid); oc doctor leaves it unchanged"

const tooDeepFix = "find the deeply nested value (a job's payload or state) and shorten it by hand, keeping a copy first; jobs.json.bak is only OpenClaw's copy from before its last save and may lack recent jobs"

// stateDepth is the nesting depth of the state sidecar, 0 without one.
func stateDepth(s *CronStore) int {
	if s.State == nil {
		return 0
	}
	return s.State.Parse.Depth
}

type cronPlan struct {
	store   *CronStore
	migrate []int // indexes into store.Jobs (and r.Cron.Jobs)
	verdict map[int]Verdict
	finding map[int]int // job index -> finding index
}

func (d *run) checkCron() {
	r := d.r
	path := CronStorePath(d.opts.StateDir, d.cfg)
	r.Cron = CronReport{Store: path, Layout: "none", Jobs: []CronJob{}}
	store, err := LoadCronStore(path, d.opts.MaxStoreBytes)
	if err != nil {
		d.cronStoreUnreadable(path, err)
		return
	}
	if store == nil {
		if r.Era == "sqlite" {
			r.Cron.Layout = "sqlite"
		}
		return
	}
	writeBlock := d.checkCronStore(path, store)
	d.checkCronJobs(path, store, writeBlock)
}

// cronStoreUnreadable reports a cron store that cannot be loaded.
func (d *run) cronStoreUnreadable(path string, err error) {
	var fe *FileError
	id, fix := "cron-store-unreadable", "fix or restore the file; OpenClaw cannot load it either"
	if errors.As(err, &fe) {
		switch fe.Kind {
		case "syntax":
			id, fix = "cron-store-invalid-json", "restore "+filepath.Base(path)+" from "+filepath.Base(path)+".bak or a backup; OpenClaw refuses to load it (\"Failed to parse cron store\")"
		case "too-large":
			id, fix = "cron-store-too-large", "a cron store is normally a few kilobytes: inspect it by hand"
		case "directory":
			id, fix = "cron-store-not-a-file", "move the directory away; OpenClaw expects a JSON file here"
		case "not-regular":
			id, fix = "cron-store-not-a-file", "replace it with the real jobs.json; a FIFO, socket or device is never a cron store"
		case "too-deep":
			id = "cron-store-too-deep"
			fix = tooDeepFix
			err = fmt.Errorf("%w: %s", err, tooDeepFact)
		}
	}
	d.add(Finding{ID: id, Severity: SevError, Path: path, Section: SectionCron, Message: err.Error(), Fix: fix})
	d.r.Cron.Layout = "unreadable"
}

// checkCronStore reports on the store as a whole (layout, syntax, depth,
// shape) and returns why oc doctor must not rewrite it ("" when it may).
func (d *run) checkCronStore(path string, store *CronStore) (writeBlock string) {
	r := d.r
	r.Cron.Layout = "inline-state"
	if store.State != nil {
		r.Cron.StateFile = store.State.Path
		r.Cron.Layout = "state-sidecar"
		if store.State.Invalid != "" {
			d.add(Finding{ID: "cron-state-invalid", Severity: SevWarning, Path: store.State.Path, Section: SectionCron,
				Message: "OpenClaw ignores this state file (" + store.State.Invalid + "): jobs fall back to their inline state and next run times are recomputed",
				Fix:     "restore it from a backup, or let the gateway rewrite it"})
		}
	}
	if r.Era == "sqlite" {
		r.Cron.Layout = "sqlite"
		writeBlock = "SQLite era: OpenClaw imports this jobs.json itself; oc doctor does not edit it"
		d.add(Finding{ID: "legacy-cron-store-pending", Severity: SevInfo, Path: path, Section: SectionCron,
			Message: "a JSON cron store next to SQLite state: OpenClaw will import it on its next doctor run or startup", Fix: "run `openclaw doctor --fix`"})
	}
	if store.Parse.JSON5 {
		d.add(Finding{ID: "cron-store-json5", Severity: SevInfo, Path: path, Section: SectionCron,
			Message: "the store uses JSON5 syntax (comments, trailing commas, unquoted keys…); OpenClaw reads it, and the next save rewrites it as strict JSON", Fix: "nothing needed"})
	}
	if len(store.Parse.DuplicateKeys) > 0 {
		d.add(Finding{ID: "cron-store-duplicate-keys", Severity: SevWarning, Path: path, Section: SectionCron,
			Message: fmt.Sprintf("%d %s twice in one object (the last value wins): %s", len(store.Parse.DuplicateKeys), plural(len(store.Parse.DuplicateKeys), "key appears", "keys appear"), listSome(store.Parse.DuplicateKeys)),
			Fix:     "remove the duplicates by hand"})
	}
	if block := d.checkCronDepth(path, store); writeBlock == "" {
		writeBlock = block
	}
	for _, s := range store.Shape {
		d.add(Finding{ID: "cron-store-shape", Severity: SevError, Path: path, Section: SectionCron, Message: s, Fix: "restore the store from jobs.json.bak or a backup"})
	}
	if w := store.Writable(); w != "" && writeBlock == "" {
		writeBlock = "the store's shape is damaged: " + w
	}
	return writeBlock
}

// checkCronDepth reports a store nested as deep as OpenClaw fails to load,
// or close to it, and returns why it must not be rewritten ("" when deep
// nesting is no reason).
func (d *run) checkCronDepth(path string, store *CronStore) (writeBlock string) {
	if depth := max(store.Parse.Depth, stateDepth(store)); depth >= OpenClawCronFailsDepth {
		d.add(Finding{ID: "cron-store-too-deep", Severity: SevError, Path: path, Section: SectionCron,
			Message: fmt.Sprintf("JSON nested %d levels deep: %s", depth, tooDeepFact), Fix: tooDeepFix})
		return "the store is nested too deeply for OpenClaw to load"
	} else if depth > OpenClawCronLoadsDepth {
		d.add(Finding{ID: "cron-store-deeply-nested", Severity: SevWarning, Path: path, Section: SectionCron,
			Message: fmt.Sprintf("JSON nested %d levels deep: close to where OpenClaw 2026.5.6's cron loader runs out of stack (checked against its code: %d levels load, %d fail with \"Maximum call stack size exceeded\"); the gateway may fail to load it", depth, OpenClawCronLoadsDepth, OpenClawCronFailsDepth),
			Fix:     tooDeepFix})
		return "the store is nested close to the depth OpenClaw fails to load"
	}
	return ""
}

// checkCronJobs classifies each job, records the migration plan in d.cron
// and reports jobs without an id or sharing one.
func (d *run) checkCronJobs(path string, store *CronStore, writeBlock string) {
	ids := map[string]int{}
	for _, j := range store.Jobs {
		ids[JobID(j)]++
	}
	plan := &cronPlan{store: store, verdict: map[int]Verdict{}, finding: map[int]int{}}
	d.cron = plan
	var noID, dupIDs []string
	for i, job := range store.Jobs {
		id := JobID(job)
		if id == "" {
			noID = append(noID, fmt.Sprintf("jobs[%d]", store.JobIndex[i]))
		} else if ids[id] > 1 && !slices.Contains(dupIDs, id) {
			dupIDs = append(dupIDs, id)
		}
		v := Classify(job, d.index, d.cfg)
		cj := cronJobReport(job, id, v)
		if v.Class != "" {
			plan.verdict[i] = v
		}
		block := writeBlock
		if block == "" {
			block = cronJobBlock(id, ids[id], v)
		}
		d.cronJobFinding(path, plan, i, job, &cj, v, block)
		d.r.Cron.Jobs = append(d.r.Cron.Jobs, cj)
	}
	if len(noID) > 0 {
		d.add(Finding{ID: "cron-job-without-id", Severity: SevWarning, Path: path, Section: SectionCron,
			Message: fmt.Sprintf("%d %s without a string id (%s): OpenClaw cannot address %s", len(noID), plural(len(noID), "job", "jobs"), listSome(noID), plural(len(noID), "it", "them")), Fix: "run `openclaw doctor --fix` (it assigns ids)"})
	}
	if len(dupIDs) > 0 {
		d.add(Finding{ID: "cron-duplicate-job-id", Severity: SevWarning, Path: path, Section: SectionCron,
			Message: fmt.Sprintf("%d %s used by more than one job (%s): runs and state get mixed up", len(dupIDs), plural(len(dupIDs), "id", "ids"), listSome(dupIDs)), Fix: "give one of each pair a new id by hand"})
	}
}

// cronJobReport is the report's entry for one job and its verdict.
func cronJobReport(job *jsondoc.Value, id string, v Verdict) CronJob {
	name, _ := job.StringOf("name")
	cj := CronJob{ID: id, Name: name, Enabled: true}
	if e := job.Get("enabled"); e != nil && e.Kind == jsondoc.Bool {
		cj.Enabled = e.Bool
	}
	if st, ok := job.StringOf("sessionTarget"); ok {
		s := st
		cj.SessionTarget = &s
	}
	if v.Class != "" {
		c, reason := v.Class, v.Reason
		cj.Classification, cj.Reason = &c, &reason
		cj.Key = v.Key
		if !v.KeyRoute.empty() {
			kr := v.KeyRoute
			cj.KeyRoute = &kr
		}
		if !v.Target.empty() {
			t := v.Target
			cj.Target = &t
		}
	}
	return cj
}

// cronJobBlock says why a job delivering elsewhere cannot be migrated
// ("" when it can); idCount is how many jobs have its id.
func cronJobBlock(id string, idCount int, v Verdict) string {
	switch {
	case id == "":
		return "the job has no id"
	case idCount > 1:
		return "another job has the same id"
	case len(v.Legacy) > 0:
		return "legacy row shape (" + strings.Join(v.Legacy, "; ") + "): run `openclaw doctor --fix` first, then `oc doctor --fix`"
	case v.Reason != ReasonWebhook && v.Target.Channel == "":
		return "no route to make explicit"
	}
	return ""
}

// cronJobFinding reports what the verdict says of job i; a job delivering
// elsewhere is either planned for migration or blocked (block != "").
func (d *run) cronJobFinding(path string, plan *cronPlan, i int, job *jsondoc.Value, cj *CronJob, v Verdict, block string) {
	label := jobLabel(cj.Name, cj.ID)
	switch v.Class {
	case Elsewhere:
		msg := fmt.Sprintf("%s: %s delivers to %s, not to that chat (%s)%s", label, sessionTargetOf(job), describeTarget(v), v.Reason, disabledNote(v))
		if block != "" {
			cj.Blocked = block
			plan.finding[i] = d.add(Finding{ID: "cron-session-target-elsewhere", Severity: SevWarning, Path: path, Section: SectionCron,
				Message: msg + "; not migrated: " + block, Fix: "migrate it by hand to sessionTarget \"isolated\" with an explicit delivery"})
		} else {
			preview := migrateJob(job.Clone(), v, nil, d.now.UnixMilli())
			cj.Migration = &preview
			cj.Pending = true
			plan.migrate = append(plan.migrate, i)
			plan.finding[i] = d.add(Finding{ID: "cron-session-target-elsewhere", Severity: SevWarning, Path: path, Section: SectionCron,
				Message: msg, Fix: "oc doctor --fix moves it to a background session (sessionTarget \"isolated\", explicit delivery)", Fixable: true})
		}
	case Undecidable:
		d.add(Finding{ID: "cron-session-target-undecidable", Severity: SevWarning, Path: path, Section: SectionCron,
			Message: fmt.Sprintf("%s: %s: cannot tell where it delivers (%s)%s; left unchanged", label, sessionTargetOf(job), v.Reason, disabledNote(v)),
			Fix:     undecidableHint(v.Reason)})
	case InChat:
		if v.Reason == ReasonThreadUnspecified {
			d.add(Finding{ID: "cron-session-target-thread-unspecified", Severity: SevInfo, Path: path, Section: SectionCron,
				Message: fmt.Sprintf("%s: delivers to the chat of %s without naming its thread %s; same conversation under OpenClaw's rule, left unchanged", label, v.Key, v.KeyRoute.ThreadID),
				Fix:     "add delivery.threadId if the result belongs in that thread"})
		}
	}
}

func jobLabel(name, id string) string {
	if id == "" {
		id = "no id"
	}
	if name == "" {
		return "(" + id + ")"
	}
	return fmt.Sprintf("%q (%s)", name, id)
}

func sessionTargetOf(job *jsondoc.Value) string { s, _ := job.StringOf("sessionTarget"); return s }

func disabledNote(v Verdict) string {
	if v.Disabled {
		return " [disabled]"
	}
	return ""
}

func describeTarget(v Verdict) string {
	if v.Reason == ReasonWebhook {
		return "webhook " + v.Target.To
	}
	if v.Target.empty() {
		return "an unknown route"
	}
	return v.Target.String()
}

func undecidableHint(r Reason) string {
	switch r {
	case ReasonAgentMismatch:
		return "set agentId to the key's agent, or change the target to the job's agent's session"
	case ReasonCaseOnly:
		return "check the recipient's spelling; ids of some channels are case-sensitive"
	case ReasonKeyRouteUnkown:
		return "the key has no entry in sessions.json: give the job an explicit delivery, or use sessionTarget \"isolated\""
	case ReasonInvalidPayload:
		return "session:<key> jobs need payload.kind \"agentTurn\"; OpenClaw rejects this job"
	case ReasonInvalidKey:
		return "the key is empty or contains / \\ or NUL; OpenClaw rejects this job"
	}
	return "check the job by hand"
}

func contextLoss(v Verdict, id string) string {
	if v.Reason == ReasonNamedNoChatRoute {
		return fmt.Sprintf("runs in its own session cron:%s; no longer continues the named session %s and loses the history it built there", id, v.Key)
	}
	return fmt.Sprintf("runs in its own session cron:%s; no longer sees the %s conversation as context", id, v.Key)
}

// migrateJob rewrites one ELSEWHERE job in place (contract §5, research §9.1)
// and returns the record for the report.
func migrateJob(job *jsondoc.Value, v Verdict, state *StateFile, nowMs int64) Migration {
	id := JobID(job)
	name, _ := job.StringOf("name")
	agent, _ := job.StringOf("agentId")
	m := Migration{ID: id, Name: name, AgentID: agent, Enabled: !v.Disabled, OldSessionTarget: sessionTargetOf(job), NewSessionTarget: "isolated",
		Key: v.Key, Classification: v.Class, Reason: v.Reason, KeyRoute: v.KeyRoute, Route: v.Target, UpdatedAtMs: nowMs, ContextLoss: contextLoss(v, id)}
	before := job.Get("delivery")
	m.DeliveryBefore = compactOrNull(before)

	job.Set("sessionTarget", jsondoc.NewString("isolated"))
	if v.Reason != ReasonWebhook {
		d := job.Get("delivery")
		if d == nil || d.Kind != jsondoc.Object {
			d = jsondoc.NewObject()
			job.SetAfter("delivery", d, false, "payload")
		}
		if mode, _ := d.StringOf("mode"); !strings.EqualFold(strings.TrimSpace(mode), "announce") {
			d.SetAfter("mode", jsondoc.NewString("announce"), true)
		}
		if c, _ := d.StringOf("channel"); strings.TrimSpace(c) == "" || strings.EqualFold(strings.TrimSpace(c), "last") {
			d.SetAfter("channel", jsondoc.NewString(v.Target.Channel), true, "mode")
		}
		if t, _ := d.StringOf("to"); strings.TrimSpace(t) == "" && v.Target.To != "" {
			d.SetAfter("to", jsondoc.NewString(v.Target.To), true, "mode", "channel")
		}
		if slices.Contains(v.Inherited, "accountId") {
			d.SetAfter("accountId", jsondoc.NewString(v.Target.AccountID), true, "mode", "channel", "to")
		}
		if slices.Contains(v.Inherited, "threadId") {
			d.SetAfter("threadId", jsondoc.NewString(v.Target.ThreadID), true, "mode", "channel", "to", "accountId")
		}
	}
	if sk, ok := job.StringOf("sessionKey"); ok && strings.TrimSpace(sk) == v.Key {
		job.Delete("sessionKey")
		m.RemovedSessionKey = sk
	}
	entry := state.Entry(id)
	if job.Has("updatedAtMs") || entry == nil {
		job.SetAfter("updatedAtMs", jsondoc.NewNumber(float64(nowMs)), false, "createdAtMs")
	}
	if entry != nil && entry.Kind == jsondoc.Object {
		entry.SetAfter("updatedAtMs", jsondoc.NewNumber(float64(nowMs)), true)
	}
	m.DeliveryAfter = compactOrNull(job.Get("delivery"))
	return m
}

func compactOrNull(v *jsondoc.Value) []byte {
	if v == nil {
		return []byte("null")
	}
	return jsondoc.MarshalCompact(v)
}

// applyCron migrates the pending jobs: backups of the bytes that were read,
// then jobs.json (compare-and-swap against those bytes), then the sidecar,
// then the report file beside the store. ErrStoreChanged means jobs.json
// changed since it was read: nothing of this attempt is left (the caller
// re-plans); a cancelled ctx stops before jobs.json is replaced.
func (d *run) applyCron(ctx context.Context) error {
	store := d.cron.store
	newStore, state, newState, migs := d.migrateCronJobs()
	if err := ctx.Err(); err != nil {
		return err
	}
	// Backups first: the exact bytes the plan was made from, for every file
	// about to change.
	backups, err := d.backupCronFiles(ctx, state, newState)
	if err != nil {
		return err
	}
	if err := casReplace(ctx, store.Path, newStore, sha256.Sum256(store.Raw), d.maxBytes()); err != nil {
		d.removeCronBackups(backups)
		return err
	}
	d.noteCronMigrated(backups, len(migs))
	if newState != nil {
		d.writeCronState(ctx, state, newState)
	}
	d.writeCronReport(ctx, state, backups, migs)
	return nil
}

// migrateCronJobs migrates the pending jobs in a copy of the store (and of
// its state sidecar, when that is valid) and returns the new jobs.json bytes,
// the copied sidecar, its new bytes (nil when unchanged or absent) and the
// migrations.
func (d *run) migrateCronJobs() (newStore []byte, state *StateFile, newState []byte, migs []Migration) {
	p := d.cron
	store := p.store
	root := store.Root.Clone()
	jobs := root.Get("jobs").Items
	if store.State != nil && store.State.Invalid == "" {
		state = &StateFile{Path: store.State.Path, Raw: store.State.Raw, Info: store.State.Info, Root: store.State.Root.Clone()}
	}
	nowMs := d.now.UnixMilli()
	for _, i := range p.migrate {
		m := migrateJob(jobs[store.JobIndex[i]], p.verdict[i], state, nowMs)
		migs = append(migs, m)
		d.r.Cron.Jobs[i].Migration = &m
	}
	newStore = jsondoc.Marshal(root)
	if state != nil {
		newState = jsondoc.Marshal(state.Root)
		if string(newState) == string(state.Raw) {
			newState = nil
		}
	}
	return newStore, state, newState, migs
}

// backupCronFiles backs up jobs.json and, when it changes, the state
// sidecar; on an error no backup of this attempt is left.
func (d *run) backupCronFiles(ctx context.Context, state *StateFile, newState []byte) ([]string, error) {
	store := d.cron.store
	b, err := backupBytes(ctx, store.Path, store.Raw, store.Info, d.now)
	if err != nil {
		return nil, err
	}
	backups := []string{b}
	if newState != nil {
		b, err := backupBytes(ctx, state.Path, state.Raw, state.Info, d.now)
		if err != nil {
			d.removeCronBackups(backups)
			return nil, err
		}
		backups = append(backups, b)
	}
	return backups, nil
}

// removeCronBackups removes the backups of an attempt that did not migrate.
func (d *run) removeCronBackups(backups []string) {
	for _, b := range backups {
		_ = durable.Remove(nil, b)
	}
	d.r.Cron.Backups = nil
}

// noteCronMigrated reports the backups and the jobs.json write, and marks the
// migrated jobs and their findings.
func (d *run) noteCronMigrated(backups []string, migrated int) {
	p, r := d.cron, d.r
	for _, b := range backups {
		r.Changes = append(r.Changes, Change{Action: "backup", Path: b})
	}
	r.Cron.Backups = backups
	r.Changes = append(r.Changes, Change{Action: "write", Path: p.store.Path, Detail: fmt.Sprintf("%d %s migrated to isolated", migrated, plural(migrated, "job", "jobs"))})
	for _, i := range p.migrate {
		r.Cron.Jobs[i].Migrated = true
		r.Cron.Jobs[i].Pending = false
		r.Findings[p.finding[i]].Fixed = true
	}
}

// writeCronState writes the state sidecar after jobs.json was migrated; a
// failure is a finding, not an error.
func (d *run) writeCronState(ctx context.Context, state *StateFile, newState []byte) {
	// Written even when ctx was cancelled meanwhile: jobs.json is done,
	// and this write is as short.
	err := casReplace(context.WithoutCancel(ctx), state.Path, newState, sha256.Sum256(state.Raw), d.maxBytes())
	switch {
	case errors.Is(err, ErrStoreChanged):
		d.add(Finding{ID: "cron-state-changed", Severity: SevInfo, Path: state.Path, Section: SectionCron,
			Message: "the state file changed while oc doctor worked (the gateway writes it), so the migrated jobs' updatedAtMs were not written there (jobs.json was migrated)", Fix: "nothing needed"})
	case err != nil:
		d.add(Finding{ID: "cron-state-write-failed", Severity: SevError, Path: state.Path, Section: SectionCron,
			Message: err.Error() + " (jobs.json was migrated; only updatedAtMs in the state file is stale)", Fix: "nothing urgent: the gateway rewrites the state file"})
	default:
		d.r.Changes = append(d.r.Changes, Change{Action: "write", Path: state.Path, Detail: "updatedAtMs of the migrated jobs"})
	}
}

// writeCronReport writes the migration report beside jobs.json; a failure
// is a finding, not an error (the migration itself succeeded).
func (d *run) writeCronReport(ctx context.Context, state *StateFile, backups []string, migs []Migration) {
	store := d.cron.store
	mf := MigrationFile{Tool: "oc doctor", CreatedAt: d.now.UTC().Format(time.RFC3339), StateDir: d.opts.StateDir, Store: store.Path, Backups: backups, Jobs: migs}
	if state != nil {
		mf.StateFile = state.Path
	}
	base := filepath.Join(filepath.Dir(store.Path), "doctor-session-target-migration-"+durable.Stamp(d.now))
	reportPath, err := writeNewFile(context.WithoutCancel(ctx), func(n int) string {
		if n == 1 {
			return base + ".json"
		}
		return fmt.Sprintf("%s-%d.json", base, n)
	}, append(marshalIndent(mf), '\n'), 0o600, store.Info)
	if err != nil {
		d.add(Finding{ID: "cron-report-write-failed", Severity: SevError, Path: base + ".json", Section: SectionCron, Message: err.Error(), Fix: "the migration itself succeeded; the terminal report lists it"})
		return
	}
	d.r.Cron.MigrationReport = reportPath
	d.r.Changes = append(d.r.Changes, Change{Action: "report", Path: reportPath})
}

// summarize builds the one status line per section.
func summarize(r *Report) []CheckSummary {
	order := []string{SectionStateDir, SectionGateway, SectionCron, SectionSessions, SectionLocks, SectionTranscripts}
	rank := map[string]int{"ok": 0, SevInfo: 1, SevWarning: 2, SevError: 3}
	out := make([]CheckSummary, 0, len(order))
	for _, sec := range order {
		status, open, fixed := "ok", 0, 0
		for _, f := range r.Findings {
			if f.Section != sec {
				continue
			}
			if f.Fixed {
				fixed++
				continue
			}
			if f.Severity != SevInfo {
				open++
			}
			if rank[f.Severity] > rank[status] {
				status = f.Severity
			}
		}
		detail := ""
		switch sec {
		case SectionStateDir:
			detail = "era: " + r.Era
		case SectionGateway:
			detail = "not running"
			if r.Gateway.Running {
				detail = fmt.Sprintf("running (pid %d)", r.Gateway.PID)
			}
		case SectionCron:
			detail = cronDetail(r)
		case SectionSessions:
			if len(r.Databases) > 0 {
				n := 0
				for _, db := range r.Databases {
					n += db.Sessions
				}
				detail = fmt.Sprintf("%d %s in %d agent %s", n, plural(n, "session", "sessions"), len(r.Databases), plural(len(r.Databases), "database", "databases"))
				waiting := 0
				for _, f := range r.Findings {
					if f.ID == "jsonl-awaiting-import" {
						waiting++
					}
				}
				if waiting > 0 {
					detail += fmt.Sprintf(", %d JSONL awaiting import", waiting)
				}
			}
		}
		if fixed > 0 {
			if detail != "" {
				detail += "; "
			}
			detail += fmt.Sprintf("%d fixed", fixed)
		}
		out = append(out, CheckSummary{Section: sec, Status: status, Detail: detail})
	}
	return out
}

func cronDetail(r *Report) string {
	if r.Cron.Layout == "none" {
		return "no cron store"
	}
	if r.Cron.Layout == "unreadable" {
		return "store unreadable"
	}
	n, pending, sqlite := 0, 0, 0
	for _, j := range r.Cron.Jobs {
		if j.Classification != nil {
			n++
		}
		if j.Pending {
			pending++
		}
		if j.Command != nil || strings.HasSuffix(j.Store, ".sqlite") {
			sqlite++
		}
	}
	if r.Cron.Layout == "sqlite" || sqlite > 0 {
		// Each store with its jobs: state/openclaw.sqlite, and a jobs.json
		// still waiting for OpenClaw's import.
		var stores []string
		count := map[string]int{}
		for _, j := range r.Cron.Jobs {
			if count[j.Store] == 0 {
				stores = append(stores, j.Store)
			}
			count[j.Store]++
		}
		if count[r.Cron.Store] == 0 {
			stores = append([]string{r.Cron.Store}, stores...)
		}
		parts := make([]string, len(stores))
		for i, st := range stores {
			parts[i] = fmt.Sprintf("%d %s (%s)", count[st], plural(count[st], "job", "jobs"), relTo(r.StateDir, st))
		}
		text := strings.Join(parts, ", ")
		if pending > 0 {
			text += fmt.Sprintf(", %d to migrate", pending)
		}
		return text
	}
	return fmt.Sprintf("%d %s, %d with session:<key>", len(r.Cron.Jobs), plural(len(r.Cron.Jobs), "job", "jobs"), n)
}
