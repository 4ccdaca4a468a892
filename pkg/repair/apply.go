package repair

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"
	"unicode/utf8"

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
// may be nil). Untouched lines are copied byte for byte with their line ends.
func (p *Plan) Render(r io.Reader, w io.Writer, q io.Writer) error {
	rd := jsonl.NewReader(r)
	next := 0
	var qenc *json.Encoder
	if q != nil {
		qenc = json.NewEncoder(q)
		qenc.SetEscapeHTML(false)
	}
	write := func(b []byte) error {
		_, err := w.Write(b)
		return err
	}
	for {
		ln, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		var ed *edit
		if next < len(p.edits) && p.edits[next].line == ln.Num {
			ed = p.edits[next]
			next++
		}
		if ed == nil {
			if err := write(ln.Data); err != nil {
				return err
			}
			term := ln.Term.Bytes()
			if ln.Term == jsonl.TermNone && p.finalNL {
				term = []byte{'\n'}
			}
			if err := write(term); err != nil {
				return err
			}
			continue
		}
		term := ed.term.Bytes()
		if ed.term == jsonl.TermNone {
			term = []byte{'\n'}
		}
		for _, b := range ed.before {
			if err := write(append(b[:len(b):len(b)], term...)); err != nil {
				return err
			}
		}
		if ed.keep {
			if err := write(ln.Data); err != nil {
				return err
			}
			if err := write(term); err != nil {
				return err
			}
			for _, pc := range ed.pieces {
				for _, a := range pc.after {
					if err := write(append(a[:len(a):len(a)], term...)); err != nil {
						return err
					}
				}
			}
			continue
		}
		if !bytes.Equal(ed.orig, ln.Data) {
			return fmt.Errorf("%s:%d: %w", p.Path, ln.Num, ErrFileChanged)
		}
		for _, pc := range ed.pieces {
			if err := write(pc.b); err != nil {
				return err
			}
			if err := write(term); err != nil {
				return err
			}
			for _, a := range pc.after {
				if err := write(append(a[:len(a):len(a)], term...)); err != nil {
					return err
				}
			}
		}
		if qenc != nil {
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
			if err := qenc.Encode(rec); err != nil {
				return err
			}
		}
	}
	if next != len(p.edits) {
		return fmt.Errorf("%s: %w (it has fewer lines than when planned)", p.Path, ErrFileChanged)
	}
	return nil
}

// ApplyOptions tune ApplyFile and Undo.
type ApplyOptions struct {
	Options
	BackupDir string // where backups and quarantine files go ("" = beside the file)
	Compress  bool   // zstd-compress the backup
	Lock      jsonl.LockOptions
	FS        jsonl.FS // nil: the real file system
}

// FileReport is the outcome for one file, as `oc repair --json` prints it.
type FileReport struct {
	Path       string             `json:"path"`
	Changed    bool               `json:"changed"`
	Rules      map[string]int     `json:"rules"`
	Lines      map[string][]int64 `json:"lines"`
	Backup     string             `json:"backup,omitempty"`
	Quarantine string             `json:"quarantine,omitempty"`
	Skipped    string             `json:"skipped,omitempty"`
	Error      string             `json:"error,omitempty"`
	// StaleLockBroken is the stale lock removed before repairing, if any.
	StaleLockBroken *jsonl.LockInfo `json:"staleLockBroken,omitempty"`
	Plan            *Plan           `json:"-"`
}

// ReportOf turns a plan into a report (changed tells whether it was applied).
func ReportOf(p *Plan, changed bool) *FileReport {
	return &FileReport{Path: p.Path, Changed: changed, Rules: p.Counts, Lines: p.LineNums, Skipped: p.Skipped, Plan: p}
}

// QuarantinePath is "<file>.rejected-<stamp>", beside the file or in dir.
// The name must not end in ".jsonl": OpenClaw 2026.9.6's upgrade treats every
// such file in a sessions folder as a transcript (and archives it).
func QuarantinePath(file, dir, stamp string) string {
	if dir != "" {
		return filepath.Join(dir, filepath.Base(file)+".rejected-"+stamp)
	}
	return file + ".rejected-" + stamp
}

// ApplyFile repairs path in place: it takes OpenClaw's write lock, plans,
// and when something changes writes the backup (original bytes, same mode),
// the quarantine file (every dropped or rewritten line), then replaces the
// file atomically keeping its mode and owner. Any failure leaves the file as
// it was. A file that needs nothing is not touched and gets no backup.
func ApplyFile(path string, opts ApplyOptions) (*FileReport, error) {
	fsys := opts.FS
	if fsys == nil {
		fsys = jsonl.OSFS{}
	}
	// The gateway locks the path it knows; a symlinked transcript is repaired
	// where its bytes are, so the link stays a link (renaming over the link
	// would replace it with a copy and leave the real file unrepaired).
	lockPath := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	lockOpts := opts.Lock
	lockOpts.FS = fsys
	lock, err := jsonl.AcquireLock(lockPath, lockOpts)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	jsonl.RemoveStaleTemps(path, 0, time.Now())

	plan, err := PlanFile(path, opts.Options)
	if err != nil {
		return nil, err
	}
	rep := ReportOf(plan, false)
	rep.StaleLockBroken = lock.Broken
	if !plan.Changed() {
		return rep, nil
	}
	if plan.compression != jsonl.Plain {
		return rep, fmt.Errorf("%s: %s-compressed transcripts are checked, not repaired in place", path, plan.compression)
	}
	if opts.BackupDir != "" {
		if err := os.MkdirAll(opts.BackupDir, 0o700); err != nil {
			return rep, fmt.Errorf("backup dir: %w", err)
		}
	}
	stamp := jsonl.UniqueStamp(opts.now(), func(s string) bool {
		_, e1 := os.Lstat(jsonl.BackupPath(path, opts.BackupDir, s, opts.Compress))
		_, e2 := os.Lstat(QuarantinePath(path, opts.BackupDir, s))
		return e1 == nil || e2 == nil
	})
	backup := jsonl.BackupPath(path, opts.BackupDir, stamp, opts.Compress)
	linked, err := jsonl.LinkOrWriteBackup(fsys, path, backup, st.Mode().Perm(), opts.Compress)
	if err != nil {
		return rep, fmt.Errorf("backup: %w", err)
	}
	if !linked {
		chownLike(backup, st)
	}
	ok := false
	defer func() {
		if !ok {
			_ = fsys.Remove(backup)
		}
	}()

	var qf jsonl.File
	quarantine := ""
	if plan.NeedsQuarantine() {
		quarantine = QuarantinePath(path, opts.BackupDir, stamp)
		qf, err = fsys.CreateExcl(quarantine, st.Mode().Perm())
		if err != nil {
			return rep, fmt.Errorf("quarantine: %w", err)
		}
		defer func() {
			if !ok {
				_ = qf.Close()
				_ = fsys.Remove(quarantine)
			}
		}()
	}
	in, err := os.Open(path)
	if err != nil {
		return rep, err
	}
	defer in.Close()
	var qbuf *bufio.Writer
	if qf != nil {
		qbuf = bufio.NewWriterSize(qf, 64<<10)
	}
	err = jsonl.ReplaceAtomic(path, jsonl.AtomicOptions{
		FS:       fsys,
		KeepFrom: st,
		BeforeRename: func() error {
			if qf != nil {
				if err := qbuf.Flush(); err != nil {
					return fmt.Errorf("%s: write: %w", quarantine, err)
				}
				if err := qf.Sync(); err != nil {
					return fmt.Errorf("%s: fsync: %w", quarantine, err)
				}
				if err := qf.Close(); err != nil {
					return fmt.Errorf("%s: close: %w", quarantine, err)
				}
				qf = nil
			}
			now, err := os.Stat(path)
			if err != nil {
				return err
			}
			if now.Size() != st.Size() || !now.ModTime().Equal(st.ModTime()) {
				return fmt.Errorf("%s: %w", path, ErrFileChanged)
			}
			return nil
		},
	}, func(w io.Writer) error {
		var q io.Writer
		if qbuf != nil {
			q = qbuf
		}
		return plan.Render(in, w, q)
	})
	if err != nil {
		return rep, err
	}
	ok = true
	rep.Changed = true
	rep.Backup = backup
	rep.Quarantine = quarantine
	return rep, nil
}

func chownLike(path string, st os.FileInfo) {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && os.Geteuid() == 0 {
		_ = os.Lchown(path, int(sys.Uid), int(sys.Gid))
	}
}

// Undo restores the newest oc backup of path atomically (under the write
// lock) and returns the backup it used. The backup itself is kept.
func Undo(path string, opts ApplyOptions) (string, error) {
	fsys := opts.FS
	if fsys == nil {
		fsys = jsonl.OSFS{}
	}
	backup, err := jsonl.NewestBackup(path, opts.BackupDir)
	if err != nil {
		return "", err
	}
	lockOpts := opts.Lock
	lockOpts.FS = fsys
	lock, err := jsonl.AcquireLock(path, lockOpts)
	if err != nil {
		return "", err
	}
	defer lock.Release()
	keep, err := os.Stat(path)
	if err != nil {
		if keep, err = os.Stat(backup); err != nil {
			return "", err
		}
	}
	src, err := jsonl.Open(backup, nil)
	if err != nil {
		return "", err
	}
	defer src.Close()
	err = jsonl.ReplaceAtomic(path, jsonl.AtomicOptions{FS: fsys, KeepFrom: keep}, func(w io.Writer) error {
		_, err := io.Copy(w, src)
		return err
	})
	if err != nil {
		return "", err
	}
	return backup, nil
}
