package repair

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/pkg/gatewaylock"
	"github.com/openclaw-tools/oc/pkg/jsonl"
)

func sortEdits(eds []*edit) {
	sort.Slice(eds, func(i, j int) bool { return eds[i].line < eds[j].line })
}

// ErrFileChanged is returned when the file changed between planning and writing.
var ErrFileChanged = errors.New("file changed while being repaired (is the gateway writing it?)")

// QuarantineRecord is one line of the quarantine file: an original line that
// was dropped or rewritten, byte for byte (Text when it is valid UTF-8, else
// Base64), with its line number and why.
type QuarantineRecord struct {
	Line   int64    `json:"line"`
	Rules  []string `json:"rules"`
	Reason string   `json:"reason,omitempty"`
	Text   *string  `json:"text,omitempty"`
	Base64 string   `json:"base64,omitempty"`
}

// Original returns the record's original bytes.
func (q QuarantineRecord) Original() ([]byte, error) {
	if q.Text != nil {
		return []byte(*q.Text), nil
	}
	return base64.StdEncoding.DecodeString(q.Base64)
}

// NeedsQuarantine reports whether applying the plan drops or rewrites a line.
func (p *Plan) NeedsQuarantine() bool {
	for _, ed := range p.edits {
		if ed.quarantined() {
			return true
		}
	}
	return false
}

// Render writes the repaired transcript to w, reading the original from r,
// and writes a QuarantineRecord for every dropped or rewritten line to q (q
// may be nil). Untouched lines are copied byte for byte with their line ends:
// the bytes between two edited lines are copied as they are, a large block
// at a time, and only the edited lines are read one by one. The original
// must be what was planned: an edited line that is not where the plan saw
// it, or as it was, or an input of another length is ErrFileChanged.
func (p *Plan) Render(r io.Reader, w io.Writer, q io.Writer) error {
	var qenc *json.Encoder
	if q != nil {
		qenc = json.NewEncoder(q)
		qenc.SetEscapeHTML(false)
	}
	cp := spanCopier{r: r, w: w, buf: make([]byte, renderBlock)}
	var line []byte
	for _, ed := range p.edits {
		if err := cp.copyTo(ed.off); err != nil {
			return p.changed(err)
		}
		n := ed.size + ed.term.Len()
		line = slices.Grow(line[:0], n)[:n]
		if _, err := io.ReadFull(r, line); err != nil {
			return p.changed(err)
		}
		cp.pos += int64(n)
		ln := jsonl.Line{Num: ed.line, Offset: ed.off, Data: line[:ed.size], Term: ed.term}
		if !bytes.Equal(line[ed.size:], ed.term.Bytes()) {
			return fmt.Errorf("%s:%d: %w", p.Path, ed.line, ErrFileChanged)
		}
		if err := p.renderEdited(w, ln, ed); err != nil {
			return err
		}
		if !ed.keep && qenc != nil {
			if err := qenc.Encode(quarantineRecord(ln, ed)); err != nil {
				return err
			}
		}
	}
	tail := cp.pos
	if err := cp.copyAll(); err != nil {
		return err
	}
	if cp.pos != p.scanned {
		return fmt.Errorf("%s: %w (%d bytes, %d when planned)", p.Path, ErrFileChanged, cp.pos, p.scanned)
	}
	if p.finalNL && cp.pos > tail && cp.last != '\n' {
		// the untouched last line lacks its newline: the repair adds it
		return writeAll(w, []byte{'\n'})
	}
	return nil
}

// renderBlock is how much of the untouched bytes Render copies at a time.
const renderBlock = 1 << 20

// changed is err (the original ended early) as ErrFileChanged.
func (p *Plan) changed(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: %w (it is shorter than when planned)", p.Path, ErrFileChanged)
	}
	return err
}

// spanCopier copies r to w a block at a time, counting the bytes.
type spanCopier struct {
	r    io.Reader
	w    io.Writer
	buf  []byte
	pos  int64 // bytes read from r
	last byte  // the last byte copied
}

// copyTo copies up to offset off of r (io.ErrUnexpectedEOF: r ends before).
func (c *spanCopier) copyTo(off int64) error {
	for c.pos < off {
		k := int(min(off-c.pos, int64(len(c.buf))))
		n, err := io.ReadFull(c.r, c.buf[:k])
		if err := c.write(n); err != nil {
			return err
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// copyAll copies the rest of r.
func (c *spanCopier) copyAll() error {
	for {
		n, err := io.ReadFull(c.r, c.buf)
		if err := c.write(n); err != nil {
			return err
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (c *spanCopier) write(n int) error {
	if n == 0 {
		return nil
	}
	c.pos += int64(n)
	c.last = c.buf[n-1]
	return writeAll(c.w, c.buf[:n])
}

// writeAll writes b to w.
func writeAll(w io.Writer, b []byte) error {
	_, err := w.Write(b)
	return err
}

// writeTerminated writes each line followed by term, one write per line.
func writeTerminated(w io.Writer, lines [][]byte, term []byte) error {
	for _, b := range lines {
		if err := writeAll(w, append(b[:len(b):len(b)], term...)); err != nil {
			return err
		}
	}
	return nil
}

// renderEdited writes what the edit makes of a line: the lines inserted
// before it, then the line kept as it is or replaced by its pieces, each
// followed by the lines inserted after it.
func (p *Plan) renderEdited(w io.Writer, ln jsonl.Line, ed *edit) error {
	term := ed.term.Bytes()
	if ed.term == jsonl.TermNone {
		term = []byte{'\n'}
	}
	if err := writeTerminated(w, ed.before, term); err != nil {
		return err
	}
	if ed.keep {
		if err := writeAll(w, ln.Data); err != nil {
			return err
		}
		if err := writeAll(w, term); err != nil {
			return err
		}
		for _, pc := range ed.pieces {
			if err := writeTerminated(w, pc.after, term); err != nil {
				return err
			}
		}
		return nil
	}
	if !bytes.Equal(ed.orig, ln.Data) {
		return fmt.Errorf("%s:%d: %w", p.Path, ln.Num, ErrFileChanged)
	}
	for _, pc := range ed.pieces {
		if err := writeAll(w, pc.b); err != nil {
			return err
		}
		if err := writeAll(w, term); err != nil {
			return err
		}
		if err := writeTerminated(w, pc.after, term); err != nil {
			return err
		}
	}
	return nil
}

// quarantineRecord is the record of a line the edit drops or rewrites.
func quarantineRecord(ln jsonl.Line, ed *edit) QuarantineRecord {
	rec := QuarantineRecord{Line: ln.Num}
	var details []string
	for _, h := range ed.hits {
		if !containsStr(rec.Rules, h.rule) {
			rec.Rules = append(rec.Rules, h.rule)
		}
		if h.detail != "" {
			details = append(details, h.detail)
		}
	}
	rec.Reason = joinDetails(details)
	if utf8.Valid(ln.Data) {
		s := string(ln.Data)
		rec.Text = &s
	} else {
		rec.Base64 = base64.StdEncoding.EncodeToString(ln.Data)
	}
	return rec
}

// ApplyOptions tune ApplyFile and Undo.
type ApplyOptions struct {
	Options
	BackupDir string // where backups and quarantine files go ("" = beside the file)
	Compress  bool   // zstd-compress the backup
	Lock      gatewaylock.LockOptions
	FS        durable.FS // nil: the real file system
	// Force (undo only) restores even when the file changed since the
	// repair, after backing up its current content.
	Force bool
}

func (o ApplyOptions) fs() durable.FS {
	if o.FS != nil {
		return o.FS
	}
	return durable.OSFS{}
}

// FileReport is the outcome for one file, as `oc repair --json` prints it.
type FileReport struct {
	Path       string             `json:"path"`
	Changed    bool               `json:"changed"`
	Rules      map[string]int     `json:"rules"`
	Lines      map[string][]int64 `json:"lines"`
	Backup     string             `json:"backup,omitempty"`
	Quarantine string             `json:"quarantine,omitempty"`
	// Manifest is the backup's manifest (source file, digests).
	Manifest string `json:"manifest,omitempty"`
	Skipped  string `json:"skipped,omitempty"`
	// Unrepairable is why repair cannot fix what --check flags (Plan.Unrepairable).
	Unrepairable string `json:"unrepairable,omitempty"`
	Error        string `json:"error,omitempty"`
	// Busy: a live OpenClaw process holds the file's lock, so it was left
	// alone (repair) or not read (--check, --dry-run); Error says whose lock.
	// Nothing is wrong with the file: retry later (exit 11).
	Busy bool `json:"busy,omitempty"`
	// Warnings are things the operator should know (a hard-linked file).
	Warnings []string `json:"warnings,omitempty"`
	// StaleLockBroken is the stale lock removed before repairing, if any.
	StaleLockBroken *gatewaylock.LockInfo `json:"staleLockBroken,omitempty"`
	Plan            *Plan                 `json:"-"`
}

// ReportOf turns a plan into a report (changed tells whether it was applied).
func ReportOf(p *Plan, changed bool) *FileReport {
	return &FileReport{Path: p.Path, Changed: changed, Rules: p.Counts, Lines: p.LineNums, Skipped: p.Skipped, Unrepairable: p.Unrepairable(), Plan: p}
}

// QuarantineInfix comes between a transcript's name and the stamp of its
// quarantine file: "<file>.rejected-<stamp>". The name does not end in
// ".jsonl": OpenClaw counts every "*.jsonl" of a sessions folder that is not
// an archive as a live session (isPrimarySessionTranscriptFileName).
const QuarantineInfix = ".rejected-"

// QuarantinePath is "<file>.rejected-<stamp>", beside the file or in dir.
func QuarantinePath(file, dir, stamp string) string {
	if dir != "" {
		return filepath.Join(dir, filepath.Base(file)+QuarantineInfix+stamp)
	}
	return file + QuarantineInfix + stamp
}

// LegacyQuarantinePath is the name oc before 2026-11 gave a quarantine file,
// "<file>.rejected-<stamp>.jsonl"; undo still reads it.
func LegacyQuarantinePath(file, dir, stamp string) string {
	return QuarantinePath(file, dir, stamp) + ".jsonl"
}

// maxReplans is how often a file that changed while being repaired is
// planned again before giving up.
const maxReplans = 3

// lockAll takes OpenClaw's write lock for every path (the name given and the
// real file behind a symlink: the gateway may know either), in a fixed order.
func lockAll(ctx context.Context, paths []string, opts gatewaylock.LockOptions) (release func(), broken *gatewaylock.LockInfo, err error) {
	seen := map[string]string{}
	for _, p := range paths {
		seen[gatewaylock.LockPath(p)] = p
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var held []*gatewaylock.Lock
	release = func() {
		for i := len(held) - 1; i >= 0; i-- {
			_ = held[i].Release()
		}
	}
	for _, k := range keys {
		l, err := gatewaylock.AcquireLock(ctx, seen[k], opts)
		if err != nil {
			release()
			return func() {}, nil, err
		}
		if l.Broken != nil && broken == nil {
			broken = l.Broken
		}
		held = append(held, l)
	}
	return release, broken, nil
}

// ApplyFile repairs path in place. It takes OpenClaw's write lock (for the
// name given and, behind a symlink, for the real file), opens the file (only
// a regular file), records its identity, size and mtime, plans, and when
// something changes writes the backup (a hard link to the original inode, or
// a complete copy published under its name only when finished), the
// quarantine file (every dropped or rewritten line, also published only when
// complete) and the manifest (source, digests), then replaces the file
// atomically keeping its mode and owner, provided the file is still what was
// planned. A file that changed meanwhile (an unlocked writer) is planned
// again, up to maxReplans times, then given up with ErrFileChanged. Any
// failure or cancellation before the replacement leaves the file as it was
// and removes what oc made. A file that needs nothing is not touched.
//
// Cancelling ctx (SIGINT, SIGTERM) before the file is replaced removes
// everything oc made and leaves the file as it was; after, the repair is
// finished.
func ApplyFile(ctx context.Context, path string, opts ApplyOptions) (*FileReport, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	real := realPath(path)
	if st, err := os.Stat(real); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, durable.ErrNotRegular)
	}
	lockOpts := opts.Lock
	lockOpts.FS = opts.fs()
	release, broken, err := lockAll(ctx, []string{path, real}, lockOpts)
	if err != nil {
		return nil, err
	}
	defer release()
	durable.RemoveStaleTemps(real, 0, time.Now())

	var rep *FileReport
	for attempt := 1; ; attempt++ {
		rep, err = applyOnce(ctx, real, opts)
		if err == nil || !errors.Is(err, ErrFileChanged) || attempt == maxReplans {
			break
		}
	}
	if rep != nil {
		rep.StaleLockBroken = broken
	}
	if errors.Is(err, ErrFileChanged) && (rep == nil || !rep.Changed) {
		err = fmt.Errorf("%w; gave up after %d attempts, nothing written", err, maxReplans)
	}
	return rep, err
}

func applyOnce(ctx context.Context, path string, opts ApplyOptions) (_ *FileReport, err error) {
	f, st, err := durable.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	plan, err := planOpened(f, st, path, opts.Options)
	if err != nil {
		return nil, err
	}
	rep := ReportOf(plan, false)
	if w := hardLinkWarning(path, st); w != "" {
		rep.Warnings = append(rep.Warnings, w)
	}
	if !plan.Changed() {
		return rep, nil
	}
	if plan.compression != jsonl.Plain {
		return rep, fmt.Errorf("%s: %s", path, plan.Unrepairable())
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	if opts.BackupDir != "" {
		if err := os.MkdirAll(opts.BackupDir, 0o700); err != nil {
			return rep, fmt.Errorf("backup dir: %w", err)
		}
	}
	j := newRepairJob(ctx, path, opts, st, plan)
	// Everything made below is removed unless the file was replaced.
	defer j.removeMade()
	return j.run(rep)
}

// repairJob is one repair of one planned file: the backup, the quarantine
// file, the manifest and the atomic replacement, with everything it made so
// far, to be removed if the file is not replaced.
type repairJob struct {
	ctx        context.Context
	path       string
	opts       ApplyOptions
	fsys       durable.FS
	st         os.FileInfo
	plan       *Plan
	stamp      string
	backup     string
	quarantine string

	made     []string
	replaced bool

	// The backup, under a temporary name until its manifest is written.
	backupTmp    string
	backupDigest durable.Digest
	linked       bool

	// The quarantine file, under a temporary name until it is complete.
	qf    durable.File
	qbuf  *bufio.Writer
	qh    *durable.Hasher
	qOpen bool

	origH, outH *durable.BackgroundHasher
	manifest    string
}

func newRepairJob(ctx context.Context, path string, opts ApplyOptions, st os.FileInfo, plan *Plan) *repairJob {
	j := &repairJob{ctx: ctx, path: path, opts: opts, fsys: opts.fs(), st: st, plan: plan}
	j.stamp = durable.UniqueStamp(opts.now(), j.stampTaken)
	j.backup = durable.BackupPath(path, opts.BackupDir, j.stamp, opts.Compress)
	if plan.NeedsQuarantine() {
		j.quarantine = QuarantinePath(path, opts.BackupDir, j.stamp)
	}
	j.qh = durable.NewHasher()
	j.origH, j.outH = durable.NewBackgroundHasher(), durable.NewBackgroundHasher()
	return j
}

// stampTaken says whether any file a repair with this stamp would make exists.
func (j *repairJob) stampTaken(s string) bool {
	path, dir := j.path, j.opts.BackupDir
	for _, p := range []string{
		durable.BackupPath(path, dir, s, false), durable.BackupPath(path, dir, s, true),
		QuarantinePath(path, dir, s), LegacyQuarantinePath(path, dir, s),
		ManifestPath(durable.BackupPath(path, dir, s, false)),
	} {
		if _, err := os.Lstat(p); err == nil {
			return true
		}
	}
	return false
}

func (j *repairJob) chown(f durable.File) error { return chownFileLike(f, j.st) }

func (j *repairJob) removeMade() {
	if !j.replaced {
		for i := len(j.made) - 1; i >= 0; i-- {
			_ = j.fsys.Remove(j.made[i])
		}
	}
}

// unchanged fails when the file is no longer the one that was planned.
func (j *repairJob) unchanged() error {
	now, err := os.Stat(j.path)
	if err != nil || !os.SameFile(now, j.st) || now.Size() != j.st.Size() || !now.ModTime().Equal(j.st.ModTime()) {
		return fmt.Errorf("%s: %w", j.path, ErrFileChanged)
	}
	return nil
}

// run writes the backup and the quarantine file, then replaces the file.
func (j *repairJob) run(rep *FileReport) (*FileReport, error) {
	// the digests' goroutines end however the run does
	defer j.origH.Digest()
	defer j.outH.Digest()
	in, inSt, err := durable.OpenRegular(j.path)
	if err != nil {
		return rep, err
	}
	defer in.Close()
	if !os.SameFile(inSt, j.st) {
		return rep, fmt.Errorf("%s: %w", j.path, ErrFileChanged)
	}
	if err := j.makeBackupTemp(); err != nil {
		return rep, err
	}
	if j.quarantine != "" {
		err := j.openQuarantineTemp()
		defer j.closeQuarantine()
		if err != nil {
			return rep, err
		}
	}
	err = durable.ReplaceAtomic(j.path, durable.AtomicOptions{
		FS:           j.fsys,
		KeepFrom:     j.st,
		BeforeRename: j.publish,
		AfterRename:  func() { j.replaced = true },
	}, func(w io.Writer) error {
		var q io.Writer
		if j.qbuf != nil {
			q = j.qbuf
		}
		return j.plan.Render(io.TeeReader(in, j.origH), durable.NewContextWriter(j.ctx, io.MultiWriter(w, j.outH)), q)
	})
	if !j.replaced {
		return rep, err
	}
	rep.Changed = true
	rep.Backup = j.backup
	rep.Quarantine = j.quarantine
	rep.Manifest = j.manifest
	return rep, err
}

// makeBackupTemp makes the backup under a temporary name until its manifest
// is written: a backup is never visible without its manifest (undo would
// take it for an old oc's backup, checked by mtime only). It hard-links the
// original when it can, and copies it otherwise.
func (j *repairJob) makeBackupTemp() error {
	if !j.opts.Compress {
		if tmp, err := durable.LinkTemp(j.fsys, j.path, j.backup); err == nil {
			j.backupTmp = tmp
			j.made = append(j.made, j.backupTmp)
			j.linked = true
			if bst, err := os.Lstat(j.backupTmp); err != nil || !os.SameFile(bst, j.st) {
				return fmt.Errorf("%s: %w", j.path, ErrFileChanged)
			}
			return nil
		}
	}
	src, srcSt, err := durable.OpenRegular(j.path)
	if err != nil {
		return err
	}
	if !os.SameFile(srcSt, j.st) {
		src.Close()
		return fmt.Errorf("%s: %w", j.path, ErrFileChanged)
	}
	j.backupTmp, j.backupDigest, err = durable.WriteBackupTemp(j.ctx, j.fsys, src, j.backup, j.st.Mode().Perm(), j.opts.Compress, j.chown)
	src.Close()
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	j.made = append(j.made, j.backupTmp)
	return nil
}

// openQuarantineTemp creates the quarantine file under a temporary name
// until it is complete.
func (j *repairJob) openQuarantineTemp() error {
	qf, err := j.fsys.CreateTemp(filepath.Dir(j.quarantine), "."+filepath.Base(j.quarantine)+durable.TempPrefix+"*")
	if err != nil {
		return fmt.Errorf("quarantine: %w", err)
	}
	j.qf = qf
	j.qOpen = true
	j.made = append(j.made, qf.Name())
	if err := qf.Chmod(j.st.Mode().Perm() | 0o400); err != nil {
		return fmt.Errorf("quarantine: %w", err)
	}
	if err := j.chown(qf); err != nil {
		return fmt.Errorf("quarantine: %w", err)
	}
	j.qbuf = bufio.NewWriterSize(io.MultiWriter(qf, j.qh), 64<<10)
	return nil
}

func (j *repairJob) closeQuarantine() {
	if j.qOpen {
		_ = j.qf.Close()
	}
}

// publish runs just before the rename: it completes the quarantine file,
// checks the original is unchanged and fully read, writes the manifest and
// gives the backup its name.
func (j *repairJob) publish() error {
	if err := j.ctx.Err(); err != nil {
		return err
	}
	if j.qf != nil {
		if err := j.publishQuarantine(); err != nil {
			return err
		}
	}
	if err := j.unchanged(); err != nil {
		return err
	}
	if j.origH.Digest().Size != j.st.Size() {
		return fmt.Errorf("%s: %w (read %d bytes, expected %d)", j.path, ErrFileChanged, j.origH.Digest().Size, j.st.Size())
	}
	if j.linked {
		j.backupDigest = j.origH.Digest() // the backup is the original inode, unchanged
	}
	if err := j.writeManifest(); err != nil {
		return err
	}
	if err := j.ctx.Err(); err != nil {
		return err
	}
	if err := durable.PublishNew(j.fsys, j.backupTmp, j.backup); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	j.made = append(j.made, j.backup)
	return j.unchanged()
}

// publishQuarantine flushes, syncs and closes the quarantine file and gives
// it its name.
func (j *repairJob) publishQuarantine() error {
	if err := j.qbuf.Flush(); err != nil {
		return fmt.Errorf("%s: write: %w", j.quarantine, err)
	}
	if err := j.qf.Sync(); err != nil {
		return fmt.Errorf("%s: fsync: %w", j.quarantine, err)
	}
	j.qOpen = false
	if err := j.qf.Close(); err != nil {
		return fmt.Errorf("%s: close: %w", j.quarantine, err)
	}
	if err := durable.PublishNew(j.fsys, j.qf.Name(), j.quarantine); err != nil {
		return fmt.Errorf("quarantine: %w", err)
	}
	j.made = append(j.made, j.quarantine)
	return nil
}

func (j *repairJob) writeManifest() error {
	m := &Manifest{Kind: "repair", Source: realAbs(j.path), Stamp: j.stamp, Backup: j.backupDigest,
		Compressed: j.opts.Compress, Original: j.origH.Digest(), Written: j.outH.Digest()}
	if j.quarantine != "" {
		d := j.qh.Digest()
		m.Quarantine, m.QuarantineName = &d, filepath.Base(j.quarantine)
	}
	mp, err := writeManifest(j.ctx, j.fsys, j.backup, m, j.chown)
	if err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	j.manifest = mp
	j.made = append(j.made, mp)
	return nil
}

// hardLinkWarning says that a file with several names is repaired under one.
func hardLinkWarning(path string, st os.FileInfo) string {
	if n := durable.Nlink(st); n > 1 {
		return fmt.Sprintf("hard-linked: this file has %d names; a repair replaces only %s, %s the old content", n, path, plural(int(n)-1, "the other name keeps", "the other names keep"))
	}
	return ""
}

// chownFileLike gives f the owner of st when oc runs as root (a file oc makes
// for a transcript belongs to the transcript's owner).
func chownFileLike(f durable.File, st os.FileInfo) error {
	if uid, gid, ok := durable.FileOwner(st); ok && os.Geteuid() == 0 {
		return f.Chown(uid, gid)
	}
	return nil
}
