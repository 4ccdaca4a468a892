package sqlitestore

import (
	"database/sql"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// rawConn is a read-only connection through SQLite's own C API, as
// modernc.org/sqlite/lib exports it, for the reads that go row after row
// through a whole transcript. database/sql and the driver cost as much as
// SQLite itself there: every value is copied into a new Go slice and boxed,
// every column read takes the connection's mutex, and every session's
// statement is prepared anew. A rawConn prepares each statement once, hands
// out a value where SQLite keeps it (valid until the next step), and is
// opened without a mutex (SQLITE_OPEN_NOMUTEX): one goroutine at a time has
// it, from DB.rawConns.
//
// It opens the file database/sql's connections open, with the same URI
// (mode=ro, immutable=1 when Open chose it) and the same PRAGMAs
// (query_only, busy_timeout, mmap_size), so that it can create no sidecar
// and write nothing either.
type rawConn struct {
	tls   *libc.TLS
	db    uintptr
	stmts map[string]uintptr
}

// rawRows is one statement being stepped.
type rawRows struct {
	c   *rawConn
	st  uintptr
	err error
}

// rawOpenFlags: read-only whatever the URI says, the URI's parameters
// applied, no mutex (one goroutine at a time uses the connection).
const rawOpenFlags = sqlite3.SQLITE_OPEN_READONLY | sqlite3.SQLITE_OPEN_URI | sqlite3.SQLITE_OPEN_NOMUTEX

// openRaw opens a rawConn on uri.
func openRaw(uri string, busyMS int32) (*rawConn, error) {
	c := &rawConn{tls: libc.NewTLS(), stmts: map[string]uintptr{}}
	name, err := libc.CString(uri)
	if err != nil {
		c.tls.Close()
		return nil, err
	}
	defer libc.Xfree(c.tls, name)
	out := c.tls.Alloc(int(unsafe.Sizeof(uintptr(0))))
	rc := sqlite3.Xsqlite3_open_v2(c.tls, name, out, rawOpenFlags, 0)
	c.db = *cPtr[uintptr](out)
	c.tls.Free(int(unsafe.Sizeof(uintptr(0))))
	if rc != sqlite3.SQLITE_OK {
		err := c.errstr(rc)
		c.close()
		return nil, err
	}
	// as the driver does: an error names its extended code
	sqlite3.Xsqlite3_extended_result_codes(c.tls, c.db, 1)
	if rc := sqlite3.Xsqlite3_busy_timeout(c.tls, c.db, busyMS); rc != sqlite3.SQLITE_OK {
		err := c.errstr(rc)
		c.close()
		return nil, err
	}
	for _, p := range []string{"PRAGMA query_only=1", fmt.Sprintf("PRAGMA mmap_size=%d", int64(mapSize))} {
		if err := c.exec(p); err != nil {
			c.close()
			return nil, err
		}
	}
	return c, nil
}

// close finalizes the statements and closes the connection.
func (c *rawConn) close() {
	for _, st := range c.stmts {
		sqlite3.Xsqlite3_finalize(c.tls, st)
	}
	c.stmts = nil
	if c.db != 0 {
		sqlite3.Xsqlite3_close_v2(c.tls, c.db)
		c.db = 0
	}
	c.tls.Close()
}

// errstr is the driver's error for rc (modernc.org/sqlite errstrForDB):
// "<errstr>: <errmsg> (<rc>)", so that DB.classify reads both alike.
func (c *rawConn) errstr(rc int32) error {
	str := libc.GoString(sqlite3.Xsqlite3_errstr(c.tls, rc))
	busy := ""
	if rc == sqlite3.SQLITE_BUSY {
		busy = " (SQLITE_BUSY)"
	}
	if c.db == 0 {
		return fmt.Errorf("%s (%v)%s", str, rc, busy)
	}
	if msg := libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db)); msg != str {
		return fmt.Errorf("%s: %s (%v)%s", str, msg, rc, busy)
	}
	return fmt.Errorf("%s (%v)%s", str, rc, busy)
}

// exec runs statements that return no rows (PRAGMA, BEGIN, COMMIT).
func (c *rawConn) exec(q string) error {
	z, err := libc.CString(q)
	if err != nil {
		return err
	}
	defer libc.Xfree(c.tls, z)
	if rc := sqlite3.Xsqlite3_exec(c.tls, c.db, z, 0, 0, 0); rc != sqlite3.SQLITE_OK {
		return c.errstr(rc)
	}
	return nil
}

// stmt is q prepared on the connection, once.
func (c *rawConn) stmt(q string) (uintptr, error) {
	if st, ok := c.stmts[q]; ok {
		return st, nil
	}
	z, err := libc.CString(q)
	if err != nil {
		return 0, err
	}
	defer libc.Xfree(c.tls, z)
	out := c.tls.Alloc(int(unsafe.Sizeof(uintptr(0))))
	defer c.tls.Free(int(unsafe.Sizeof(uintptr(0))))
	if rc := sqlite3.Xsqlite3_prepare_v3(c.tls, c.db, z, -1, sqlite3.SQLITE_PREPARE_PERSISTENT, out, 0); rc != sqlite3.SQLITE_OK {
		return 0, c.errstr(rc)
	}
	st := *cPtr[uintptr](out)
	c.stmts[q] = st
	return st, nil
}

// query starts q with the text arguments args; the caller steps it with
// next and ends it with close.
func (c *rawConn) query(q string, args ...string) (*rawRows, error) {
	st, err := c.stmt(q)
	if err != nil {
		return nil, err
	}
	for i, a := range args {
		z, err := libc.CString(a)
		if err != nil {
			return nil, err
		}
		// SQLITE_TRANSIENT: SQLite copies the text at once
		rc := sqlite3.Xsqlite3_bind_text(c.tls, st, int32(i+1), z, int32(len(a)), sqlite3.SQLITE_TRANSIENT)
		libc.Xfree(c.tls, z)
		if rc != sqlite3.SQLITE_OK {
			sqlite3.Xsqlite3_clear_bindings(c.tls, st)
			return nil, c.errstr(rc)
		}
	}
	return &rawRows{c: c, st: st}, nil
}

// next steps to the next row: false at the end or on an error (r.err).
func (r *rawRows) next() bool {
	if r.err != nil {
		return false
	}
	switch rc := sqlite3.Xsqlite3_step(r.c.tls, r.st); rc {
	case sqlite3.SQLITE_ROW:
		return true
	case sqlite3.SQLITE_DONE:
		return false
	default:
		r.err = r.c.errstr(rc)
		return false
	}
}

// close resets the statement for its next use and returns the error that
// ended the rows, if any.
func (r *rawRows) close() error {
	sqlite3.Xsqlite3_reset(r.c.tls, r.st)
	sqlite3.Xsqlite3_clear_bindings(r.c.tls, r.st)
	return r.err
}

func (r *rawRows) colType(i int) int32 { return sqlite3.Xsqlite3_column_type(r.c.tls, r.st, int32(i)) }
func (r *rawRows) isNull(i int) bool   { return r.colType(i) == sqlite3.SQLITE_NULL }

// bytes is column i's bytes as a BLOB (nil for NULL and for an empty
// value, as the driver's are): SQLite's own copy, valid until the next step.
func (r *rawRows) bytes(i int) []byte {
	p := sqlite3.Xsqlite3_column_blob(r.c.tls, r.st, int32(i))
	n := sqlite3.Xsqlite3_column_bytes(r.c.tls, r.st, int32(i))
	if p == 0 || n <= 0 {
		return nil
	}
	return unsafe.Slice(cPtr[byte](p), n)
}

// value is column i as the driver hands it to database/sql: int64,
// float64, string, []byte (nil when empty) or nil.
func (r *rawRows) value(i int) any {
	switch r.colType(i) {
	case sqlite3.SQLITE_INTEGER:
		return sqlite3.Xsqlite3_column_int64(r.c.tls, r.st, int32(i))
	case sqlite3.SQLITE_FLOAT:
		return sqlite3.Xsqlite3_column_double(r.c.tls, r.st, int32(i))
	case sqlite3.SQLITE_TEXT:
		p := sqlite3.Xsqlite3_column_text(r.c.tls, r.st, int32(i))
		n := sqlite3.Xsqlite3_column_bytes(r.c.tls, r.st, int32(i))
		if p == 0 || n <= 0 {
			return ""
		}
		return string(unsafe.Slice(cPtr[byte](p), n))
	case sqlite3.SQLITE_BLOB:
		if b := r.bytes(i); b != nil {
			return append([]byte(nil), b...)
		}
		return []byte(nil)
	}
	return nil
}

// rawBytes is column i as database/sql's Scan into a *sql.RawBytes has it
// (a number as its decimal text): a BLOB or TEXT value where SQLite keeps
// it.
func (r *rawRows) rawBytes(i int) []byte {
	switch r.colType(i) {
	case sqlite3.SQLITE_INTEGER:
		return strconv.AppendInt(nil, sqlite3.Xsqlite3_column_int64(r.c.tls, r.st, int32(i)), 10)
	case sqlite3.SQLITE_FLOAT:
		return strconv.AppendFloat(nil, sqlite3.Xsqlite3_column_double(r.c.tls, r.st, int32(i)), 'g', -1, 64)
	case sqlite3.SQLITE_NULL:
		return nil
	}
	return r.bytes(i)
}

// int64At is column i (named name) as database/sql's Scan into an *int64
// has it, its error included.
func (r *rawRows) int64At(i int, name string) (int64, error) {
	if r.colType(i) == sqlite3.SQLITE_INTEGER {
		return sqlite3.Xsqlite3_column_int64(r.c.tls, r.st, int32(i)), nil
	}
	return scanAs[int64](r.value(i), i, name)
}

// intAt is int64At for an *int.
func (r *rawRows) intAt(i int, name string) (int, error) {
	if r.colType(i) == sqlite3.SQLITE_INTEGER && strconv.IntSize == 64 {
		return int(sqlite3.Xsqlite3_column_int64(r.c.tls, r.st, int32(i))), nil
	}
	return scanAs[int](r.value(i), i, name)
}

// nullStringAt is column i as database/sql's Scan into a *sql.NullString
// has it.
func (r *rawRows) nullStringAt(i int, name string) (sql.NullString, error) {
	var s sql.NullString
	if err := s.Scan(r.value(i)); err != nil {
		return s, scanError(i, name, err)
	}
	return s, nil
}

// scanAs converts v, a driver value, as database/sql's Scan into a *T does
// (sql.Null[T].Scan is that conversion; NULL is Scan's error).
func scanAs[T int | int64](v any, i int, name string) (T, error) {
	if v == nil {
		var zero T
		return zero, scanError(i, name, fmt.Errorf("converting NULL to %s is unsupported", reflect.TypeFor[T]().Kind()))
	}
	var n sql.Null[T]
	if err := n.Scan(v); err != nil {
		return n.V, scanError(i, name, err)
	}
	return n.V, nil
}

// scanError is database/sql's Scan error for column i.
func scanError(i int, name string, err error) error {
	return fmt.Errorf("sql: Scan error on column index %d, name %q: %w", i, name, err)
}

// cPtr is the C address p (memory of SQLite's, outside the Go heap) as a
// *T. The address is read out of p's variable rather than converted from
// the uintptr, the one form of the conversion go vet cannot tell from a
// misuse.
func cPtr[T any](p uintptr) *T { return *(**T)(unsafe.Pointer(&p)) }

// rawTx runs fn in one read transaction on an idle rawConn (a new one when
// none is idle), under guardFault, as ReadTx runs its fn: a fault abandons
// the connection, and an immutable open that a writer appeared beside
// meanwhile is an error.
func (d *DB) rawTx(fn func(c *rawConn) error) error {
	var c *rawConn
	select {
	case c = <-d.rawConns:
	default:
		err, faulted := d.guardFault(func() (err error) {
			c, err = openRaw(d.rawURI, int32(min(d.busy.Milliseconds(), math.MaxInt32)))
			return err
		})
		if faulted {
			return err // the connection is abandoned (guardFault)
		}
		if err != nil {
			return d.classify(err)
		}
	}
	err, faulted := d.guardFault(func() error {
		if err := c.exec("BEGIN"); err != nil {
			return err
		}
		if err := fn(c); err != nil {
			_ = c.exec("ROLLBACK")
			return err
		}
		return c.exec("COMMIT")
	})
	if faulted {
		return err // the connection is abandoned (guardFault)
	}
	select {
	case d.rawConns <- c:
	default:
		c.close()
	}
	if err != nil {
		return d.classify(err)
	}
	if d.immutable && fileExists(d.Path+"-wal") {
		return fmt.Errorf("%s: a writer opened the database while oc read it; run the command again: %w", d.Path, ErrUnusable)
	}
	return nil
}

// closeRawConns closes the idle rawConns.
func (d *DB) closeRawConns() {
	for {
		select {
		case c := <-d.rawConns:
			c.close()
		default:
			return
		}
	}
}
