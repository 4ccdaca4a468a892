// Package sqlitestore reads OpenClaw's SQLite-era databases (2026.8.1+
// agent databases, state/openclaw.sqlite) without ever writing them: the
// connection is read-only (mode=ro, PRAGMA query_only), waits a bounded time
// for a writer (busy timeout), reads one short transaction at a time, and
// never creates a -wal or -shm sidecar: when opening in place would create
// one, it reads a private copy of the database and its WAL instead. Reads
// go through database/sql (docs/sqlite-reader.md says why) and take the
// command's context, which interrupts a long query.
package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/openclaw-tools/oc/internal/budget"
	"github.com/openclaw-tools/oc/internal/durable"
	"modernc.org/sqlite" // pure-Go driver "sqlite"
)

// Newest agent schema this build knows (OpenClaw 2026.9.6), and the oldest
// (2026.8.1, the first stable release with transcripts in SQLite).
const (
	MinAgentSchema = 19
	MaxAgentSchema = 23
	MaxStateSchema = 18
)

// ErrUnusable is the class of errors that stop a database from being read:
// not SQLite, truncated, newer schema, locked past the busy timeout.
var ErrUnusable = errors.New("database cannot be read")

// Options tune how a database is opened.
type Options struct {
	BusyTimeout time.Duration // default 5 s, as OpenClaw's own connections
	// ForceCopy reads a private copy even when the database could be read in place.
	ForceCopy bool
	// Budget bounds the decoded bytes (zstd rows, cold archives, archived
	// generations) the run holds at once, shared by every database the run
	// opens; nil: an allowance of budget.Default of this database's own.
	Budget *budget.Bytes
}

// DB is one database opened for reading.
type DB struct {
	Path     string // the database as named
	ReadPath string // what the connection reads (Path, or the private copy)
	// CopyReason says why a private copy was read ("" when read in place).
	CopyReason string
	Schema     int // PRAGMA user_version
	Meta       int // schema_meta.schema_version (0 when absent)
	MetaRole   string
	busy       time.Duration
	budget     *budget.Bytes
	tables     map[string]bool
	columns    map[string]bool // "table.column"
	utf8       bool            // PRAGMA encoding is UTF-8
	decoders   chan *zstd.Decoder
	// mu guards src (the connections being read) and the sources and
	// folders left behind when a read moved from the file in place to a
	// private copy (see snapshot.go).
	mu      sync.Mutex
	src     *source
	retired []*source
	tmpDirs []string
}

// Close releases the connections and removes the private copies.
func (d *DB) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var err error
	for _, s := range append(d.retired, d.src) {
		if s != nil {
			err = errors.Join(err, s.conn.Close())
		}
	}
	d.src, d.retired = nil, nil
	for {
		select {
		case dec := <-d.decoders:
			dec.Close()
			continue
		default:
		}
		break
	}
	for _, dir := range d.tmpDirs {
		_ = os.RemoveAll(dir)
	}
	d.tmpDirs = nil
	return err
}

// Sidecar describes one of a database's companion files.
type Sidecar struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	Size   int64  `json:"size"`
	UID    int    `json:"uid"`
}

// Sidecars returns the database file, -wal and -shm with their owners.
func Sidecars(path string) (db, wal, shm Sidecar) {
	stat := func(p string) Sidecar {
		s := Sidecar{Path: p, UID: -1}
		if st, err := os.Stat(p); err == nil {
			s.Exists, s.Size = true, st.Size()
			if uid, _, ok := durable.FileOwner(st); ok {
				s.UID = uid
			}
		}
		return s
	}
	return stat(path), stat(path + "-wal"), stat(path + "-shm")
}

// copyReason says why the database must be read from a private copy, or "".
// Opening in place creates no file when there is no -wal (SQLite then reads
// the main file in rollback mode), or when -wal and -shm both exist and
// belong to the database's owner; anything else would leave a new sidecar,
// possibly owned by the wrong user.
func copyReason(path string) string {
	db, wal, shm := Sidecars(path)
	me := os.Geteuid()
	if !wal.Exists {
		if shm.Exists && shm.UID != db.UID {
			return fmt.Sprintf("-shm is owned by uid %d, the database by uid %d", shm.UID, db.UID)
		}
		if shm.Exists {
			return "-shm exists without -wal; reading in place would create -wal"
		}
		return ""
	}
	if !shm.Exists {
		return "-wal exists without -shm; reading in place would create -shm"
	}
	if wal.UID != db.UID || shm.UID != db.UID {
		return fmt.Sprintf("sidecars have another owner than the database (db uid %d, -wal uid %d, -shm uid %d)", db.UID, wal.UID, shm.UID)
	}
	if f, err := os.OpenFile(path+"-shm", os.O_RDWR, 0); err != nil {
		return "-shm is not writable by this user (uid " + fmt.Sprint(me) + ")"
	} else {
		f.Close()
	}
	return ""
}

// Open opens a database read-only and checks that it is SQLite. ctx bounds
// the reads Open makes (versions, catalog) and the wait for a steady file.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = 5 * time.Second
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory: %w", path, ErrUnusable)
	}
	if !st.Mode().IsRegular() {
		// A FIFO or device is never opened: a FIFO without a writer blocks open forever.
		return nil, fmt.Errorf("%s: not a regular file: %w", path, ErrUnusable)
	}
	if err := checkHeader(path, st.Size()); err != nil {
		return nil, err
	}
	d := &DB{Path: path, ReadPath: path, busy: opts.BusyTimeout, budget: opts.Budget,
		decoders: make(chan *zstd.Decoder, runtime.GOMAXPROCS(0)+1)}
	if d.budget == nil {
		d.budget = budget.New(0)
	}
	reason := copyReason(path)
	if opts.ForceCopy && reason == "" {
		reason = "a private copy was asked for"
	}
	if reason != "" {
		src, err := d.openCopy(ctx)
		if err != nil {
			d.Close()
			return nil, fmt.Errorf("%s: %s, and copying it failed: %w", path, reason, err)
		}
		d.src, d.CopyReason = src, reason
	} else {
		// A WAL database with no -wal has no open connection anywhere (SQLite
		// keeps -wal while one is open) and all its content in the main
		// file; a read-only open would still create -wal and -shm.
		// immutable=1 reads the main file without sidecars or locks; every
		// read transaction then checks that the file stayed as it was
		// (snapshot.go).
		immutable := walMode(path) && !fileExists(path+"-wal")
		src, err := d.openSource(ctx, path, immutable)
		if err != nil {
			d.Close()
			return nil, err
		}
		d.src = src
	}
	if err := d.readVersions(ctx); err != nil {
		d.Close()
		if reason == "" && strings.Contains(err.Error(), "READONLY") {
			// A hot journal left by a crashed writer must be rolled back before
			// reading; a read-only connection cannot, a private copy can.
			return Open(ctx, path, Options{BusyTimeout: opts.BusyTimeout, ForceCopy: true, Budget: opts.Budget})
		}
		return nil, err
	}
	if err := d.readCatalog(ctx); err != nil {
		d.Close()
		return nil, err
	}
	d.ReadPath = d.current().path
	return d, nil
}

// openSource opens connections on the file at readPath: read-only
// (mode=ro, PRAGMA query_only), waiting at most the busy timeout for a
// writer's lock, with immutable=1 when asked (the stamp of a steady file is
// taken first).
func (d *DB) openSource(ctx context.Context, readPath string, immutable bool) (*source, error) {
	// A relative path would be read as the URI's authority ("file://dir/..."):
	// the URI gets the absolute path.
	uriPath, err := filepath.Abs(readPath)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Path, err)
	}
	src := &source{path: readPath, immutable: immutable, stmts: map[string]*sql.Stmt{}}
	if immutable {
		if src.stamp, err = d.steadyStamp(ctx); err != nil {
			return nil, err
		}
	}
	u := url.URL{Scheme: "file", Path: uriPath}
	q := url.Values{}
	q.Set("mode", "ro")
	if immutable {
		q.Set("immutable", "1")
	}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", d.busy.Milliseconds()))
	q.Add("_pragma", "query_only(1)")
	u.RawQuery = q.Encode()
	conn, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Path, err)
	}
	conn.SetMaxOpenConns(runtime.NumCPU() + 1)
	conn.SetMaxIdleConns(runtime.NumCPU() + 1)
	src.conn = conn
	return src, nil
}

// checkHeader refuses files that are not SQLite or are shorter than their
// header says (a truncated copy).
func checkHeader(path string, size int64) error {
	f, _, err := durable.OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	hdr := make([]byte, 100)
	n, _ := io.ReadFull(f, hdr)
	if n < 16 || string(hdr[:16]) != "SQLite format 3\x00" {
		return fmt.Errorf("%s: not an SQLite database (no \"SQLite format 3\" header): %w", path, ErrUnusable)
	}
	if n < 100 {
		return fmt.Errorf("%s: truncated SQLite database (%d bytes, header cut off): %w", path, size, ErrUnusable)
	}
	pageSize := int64(hdr[16])<<8 | int64(hdr[17])
	if pageSize == 1 {
		pageSize = 65536
	}
	pages := int64(hdr[28])<<24 | int64(hdr[29])<<16 | int64(hdr[30])<<8 | int64(hdr[31])
	if pageSize >= 512 && pages > 0 && size < pages*pageSize {
		// The in-header size is valid only when change counters agree, but a
		// main file shorter than it claims is a cut-off copy either way, unless
		// a WAL holds the rest.
		if _, err := os.Stat(path + "-wal"); err != nil {
			return fmt.Errorf("%s: truncated SQLite database (%d bytes, header says %d pages of %d): %w", path, size, pages, pageSize, ErrUnusable)
		}
	}
	return nil
}

// copyFile copies the regular file src to the new file dst (a FIFO named
// like a sidecar is refused, never waited on).
func copyFile(src, dst string) error {
	in, _, err := durable.OpenRegular(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// classify turns a driver error into one line naming the database; other
// errors (the caller's, a context's, a damaged row's) get the database's
// name in front, their chain kept.
func (d *DB) classify(err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		if errors.Is(err, ErrUnusable) || strings.HasPrefix(err.Error(), d.Path+":") {
			return err
		}
		return fmt.Errorf("%s: %w", d.Path, err)
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked"):
		return fmt.Errorf("%s: database is locked (still busy after %s): %w", d.Path, d.busy, ErrUnusable)
	case strings.Contains(msg, "SQLITE_NOTADB") || strings.Contains(msg, "file is not a database"):
		return fmt.Errorf("%s: not an SQLite database: %w", d.Path, ErrUnusable)
	case strings.Contains(msg, "SQLITE_CORRUPT") || strings.Contains(msg, "malformed"):
		return fmt.Errorf("%s: database disk image is malformed (truncated or damaged): %w", d.Path, ErrUnusable)
	case strings.Contains(msg, "SQLITE_CANTOPEN") || strings.Contains(msg, "unable to open"):
		return fmt.Errorf("%s: cannot open database: %w", d.Path, ErrUnusable)
	case strings.Contains(msg, "SQLITE_IOERR") || strings.Contains(msg, "disk I/O error"):
		return fmt.Errorf("%s: cannot read the database (%s; truncated or unreadable): %w", d.Path, oneLineErr(err), ErrUnusable)
	}
	return fmt.Errorf("%s: %s: %w", d.Path, oneLineErr(err), ErrUnusable)
}

func (d *DB) readVersions(ctx context.Context) error {
	return d.ReadTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&d.Schema); err != nil {
			return err
		}
		var enc string
		if err := tx.QueryRowContext(ctx, "PRAGMA encoding").Scan(&enc); err != nil {
			return err
		}
		d.utf8 = enc == "UTF-8"
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE type='table' AND name='schema_meta'").Scan(&n); err != nil {
			return err
		}
		d.Meta, d.MetaRole = 0, ""
		if n > 0 {
			row := tx.QueryRowContext(ctx, "SELECT schema_version, role FROM schema_meta ORDER BY meta_key='primary' DESC LIMIT 1")
			if err := row.Scan(&d.Meta, &d.MetaRole); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		return nil
	})
}

// CheckAgentSchema refuses an agent database whose schema this build does
// not know (newer than 2026.9.6's, or older than 2026.8.1's).
func (d *DB) CheckAgentSchema() error {
	v := d.Schema
	if d.Meta > v {
		v = d.Meta
	}
	if v > MaxAgentSchema {
		return fmt.Errorf("%s: agent schema version %d is newer than the newest this oc knows (%d, OpenClaw 2026.9.6); upgrade oc: %w", d.Path, v, MaxAgentSchema, ErrUnusable)
	}
	if d.Schema < MinAgentSchema {
		return fmt.Errorf("%s: agent schema version %d is older than %d (OpenClaw 2026.8.1); not a stable-release agent database: %w", d.Path, d.Schema, MinAgentSchema, ErrUnusable)
	}
	if d.Meta != 0 && d.Meta != d.Schema {
		return fmt.Errorf("%s: PRAGMA user_version %d disagrees with schema_meta.schema_version %d: %w", d.Path, d.Schema, d.Meta, ErrUnusable)
	}
	return nil
}

// HasColumn reports whether table has column (schema 19 lacks event_zstd).
func (d *DB) HasColumn(table, column string) bool { return d.columns[table+"."+column] }

// HasTable reports whether a table exists.
func (d *DB) HasTable(table string) bool { return d.tables[table] }

// readCatalog learns the tables and columns once, at open.
func (d *DB) readCatalog(ctx context.Context) error {
	return d.ReadTx(ctx, func(tx *sql.Tx) error {
		d.tables, d.columns = map[string]bool{}, map[string]bool{}
		rows, err := tx.QueryContext(ctx, "SELECT m.name, p.name FROM sqlite_schema AS m JOIN pragma_table_info(m.name) AS p WHERE m.type = 'table'")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var t, c string
			if err := rows.Scan(&t, &c); err != nil {
				return err
			}
			d.tables[t] = true
			d.columns[t+"."+c] = true
		}
		return rows.Err()
	})
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// walMode reports whether the database header says WAL (file format
// read/write versions 2).
func walMode(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 2)
	if _, err := f.ReadAt(b, 18); err != nil {
		return false
	}
	return b[0] == 2 || b[1] == 2
}
