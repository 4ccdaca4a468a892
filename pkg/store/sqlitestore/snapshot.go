package sqlitestore

// One consistent snapshot per read transaction, whatever a writer does.
//
// A database read in place with its own locks (rollback journal, or WAL with
// -wal and -shm present) gets its snapshots from SQLite. A WAL database
// with no -wal is read with immutable=1 (a read-only open of it would create
// -wal and -shm): no locks, no WAL, the main file only. That is sound only
// while nobody writes the main file, and a writer can open the database,
// append, checkpoint (which writes the main file) and close (which removes
// -wal) between two looks for -wal. So every read transaction on such an
// open takes a stamp of the main file before it starts and after it ends
// (device, inode, size, modification and change times, the 100-byte
// header), and starts only once the file is steady: its times are further
// from now than a file system's timestamp granularity, so that a write
// during the read cannot leave them as they were. A stamp that differs, a
// stamp that is not the one the connections were opened on (their page
// cache would be stale), or a corrupt verdict reached under immutable=1,
// moves the database to a private copy taken while the file was steady and
// unchanged from before the copy to after it, and the transaction runs
// again there: a read never returns a torn snapshot, and a verdict of
// corruption is one the copy confirms.

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
)

// racyWindow is how far a file's times must be from now for a write to it to
// change them: the coarse clock that stamps them ticks every 1-10 ms on
// Linux (4 ms at HZ=250). A file system whose times have whole seconds only
// gets coarseRacyWindow.
const (
	racyWindow       = 25 * time.Millisecond
	coarseRacyWindow = 2100 * time.Millisecond
)

// source is one set of connections on the file a DB reads: in place, or a
// private copy.
type source struct {
	conn      *sql.DB
	path      string
	immutable bool
	// stamp is the main file when the connections were opened (immutable
	// only): a read that finds another one has a stale page cache.
	stamp fileStamp
	mu    sync.Mutex
	stmts map[string]*sql.Stmt // prepared once, on each connection as it is used
}

// prepared is q prepared on the source's connections (database/sql
// prepares it once per connection, on first use there).
func (s *source) prepared(ctx context.Context, q string) (*sql.Stmt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.stmts[q]; ok {
		return st, nil
	}
	st, err := s.conn.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	s.stmts[q] = st
	return st, nil
}

// fileStamp is what a write to a file changes.
type fileStamp struct {
	exists       bool
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds since 1970
	header       [100]byte
}

func (a fileStamp) same(b fileStamp) bool { return a == b }

// stampOf stamps the file at path (exists false when there is none).
func stampOf(path string) (fileStamp, error) {
	var s fileStamp
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return s, err
	}
	s.exists, s.size, s.mtime = true, info.Size(), info.ModTime().UnixNano()
	s.dev, s.ino, s.ctime = fileIdentity(info)
	if _, err := f.ReadAt(s.header[:], 0); err != nil && err != io.EOF {
		return s, err
	}
	return s, nil
}

// racy says how long to wait before the stamp's times are far enough from
// now (0: they are).
func (s fileStamp) racy(now time.Time) time.Duration {
	window := racyWindow
	if s.mtime%1e9 == 0 && s.ctime%1e9 == 0 {
		window = coarseRacyWindow
	}
	var wait time.Duration
	for _, t := range []int64{s.mtime, s.ctime} {
		if d := time.Duration(now.UnixNano() - t); d > -window && d < window {
			wait = max(wait, window-d)
		}
	}
	return wait
}

// steadyStamp stamps the main file once its times are far enough from now,
// waiting (at most the busy timeout) while a writer keeps changing it.
func (d *DB) steadyStamp(ctx context.Context) (fileStamp, error) {
	deadline := time.Now().Add(d.busy)
	for {
		s, err := stampOf(d.Path)
		if err != nil {
			return s, fmt.Errorf("%s: %w", d.Path, err)
		}
		wait := s.racy(time.Now())
		if wait == 0 {
			return s, nil
		}
		if time.Now().Add(wait).After(deadline) {
			return s, fmt.Errorf("%s: the database kept changing for %s (a writer is at work); run the command again: %w", d.Path, d.busy, ErrUnusable)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return s, fmt.Errorf("%s: %w", d.Path, ctx.Err())
		case <-t.C:
		}
	}
}

// current is the source reads go to.
func (d *DB) current() *source {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.src
}

// ReadTx runs fn inside one read transaction (one consistent snapshot). fn
// may run more than once, each time on a new snapshot, when the database
// read in place changed under the first one (see snapshot.go): it must
// start from scratch each time, and only the run whose result ReadTx
// returns counts (an earlier one may have read a file that changed under
// it).
func (d *DB) ReadTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return d.readTx(ctx, func(tx *sql.Tx, _ *source) error { return fn(tx) })
}

// readTx is ReadTx that also hands fn the source (for its prepared
// statements).
func (d *DB) readTx(ctx context.Context, fn func(tx *sql.Tx, src *source) error) error {
	for attempt := 0; ; attempt++ {
		src := d.current()
		if src == nil {
			return fmt.Errorf("%s: the database is closed", d.Path)
		}
		var before fileStamp
		if src.immutable {
			var err error
			if before, err = d.steadyStamp(ctx); err != nil {
				return err
			}
			if !before.same(src.stamp) {
				// changed since the connections opened: their cache is stale
				if err := d.leaveInPlace(ctx, src, "the database changed since oc opened it"); err != nil {
					return err
				}
				continue
			}
		}
		err := runTx(ctx, src, fn)
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", d.Path, ctx.Err())
		}
		if src.immutable && attempt < 2 {
			after, serr := stampOf(d.Path)
			why := ""
			switch {
			case serr != nil || !after.same(before):
				why = "the database changed while oc read it in place"
			case isCorrupt(err):
				why = "a read in place found it damaged (confirmed on a copy)"
			}
			if why != "" {
				if err := d.leaveInPlace(ctx, src, why); err != nil {
					return err
				}
				continue
			}
		}
		return d.classify(err)
	}
}

// runTx runs fn in one read transaction on src.
func runTx(ctx context.Context, src *source, fn func(tx *sql.Tx, src *source) error) error {
	tx, err := src.conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	if err := fn(tx, src); err != nil {
		return err
	}
	return tx.Commit()
}

// query runs q, prepared once per connection, in tx.
func query(ctx context.Context, tx *sql.Tx, src *source, q string, args ...any) (*sql.Rows, error) {
	st, err := src.prepared(ctx, q)
	if err != nil {
		return nil, err
	}
	return tx.StmtContext(ctx, st).QueryContext(ctx, args...)
}

// queryRow is query for one row.
func queryRow(ctx context.Context, tx *sql.Tx, src *source, q string, args ...any) *sql.Row {
	st, err := src.prepared(ctx, q)
	if err != nil {
		// database/sql has no Row of an error: prepare it in tx, which fails alike
		return tx.QueryRowContext(ctx, q, args...)
	}
	return tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
}

// isCorrupt: an error SQLite gives for a damaged file (which a file
// changing under an immutable read also gives).
func isCorrupt(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	msg := se.Error()
	for _, s := range []string{"SQLITE_CORRUPT", "malformed", "SQLITE_NOTADB", "not a database", "SQLITE_IOERR", "disk I/O error"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// leaveInPlace moves the reads from src (the file in place, immutable=1)
// to a private copy taken while the file is steady; a read that moved
// already (another worker saw the change first) leaves it as it is.
func (d *DB) leaveInPlace(ctx context.Context, src *source, why string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.src != src {
		return nil
	}
	cp, err := d.openCopy(ctx)
	if err != nil {
		return fmt.Errorf("%s: %s, and a private copy could not be taken: %w", d.Path, why, err)
	}
	d.retired = append(d.retired, src)
	d.src = cp
	return nil
}

// openCopy copies the database (with its -wal and -journal, if any) into
// a private folder while nothing changes it (the main file steady and the
// same from before the copy to after it, the -wal with the same header),
// and opens connections on the copy; the folder is removed by Close. It
// gives up after the busy timeout.
func (d *DB) openCopy(ctx context.Context) (*source, error) {
	deadline := time.Now().Add(d.busy)
	for {
		dir, consistent, err := d.copyOnce(ctx)
		if err != nil {
			return nil, err
		}
		if consistent {
			d.tmpDirs = append(d.tmpDirs, dir)
			return d.openSource(ctx, filepath.Join(dir, filepath.Base(d.Path)), false)
		}
		_ = os.RemoveAll(dir)
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("it kept changing while it was copied for %s (a writer is at work); run the command again: %w", d.busy, ErrUnusable)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// copyOnce makes one copy into a new folder: consistent when nothing
// changed the files meanwhile.
func (d *DB) copyOnce(ctx context.Context) (dir string, consistent bool, err error) {
	before, err := d.steadyStamp(ctx)
	if err != nil {
		return "", false, err
	}
	walBefore, err := stampOf(d.Path + "-wal")
	if err != nil {
		return "", false, err
	}
	dir, err = os.MkdirTemp("", "oc-sqlite-read-")
	if err != nil {
		return "", false, err
	}
	dst := filepath.Join(dir, filepath.Base(d.Path))
	for _, ext := range []string{"", "-wal", "-journal"} {
		err := copyFile(d.Path+ext, dst+ext)
		if ext != "" && errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			_ = os.RemoveAll(dir)
			return "", false, err
		}
	}
	after, err := stampOf(d.Path)
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", false, err
	}
	walAfter, err := stampOf(d.Path + "-wal")
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", false, err
	}
	// A -wal may grow while it is copied (a frame cut off at the end is
	// not part of the log); restarted (a new header) or cut short, the
	// copy mixes two logs.
	walSame := walBefore.exists == walAfter.exists && walBefore.ino == walAfter.ino &&
		walAfter.size >= walBefore.size && bytes.Equal(walBefore.header[:32], walAfter.header[:32])
	return dir, after.same(before) && walSame && after.racy(time.Now()) == 0, nil
}
