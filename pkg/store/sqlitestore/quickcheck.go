package sqlitestore

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// mapSize is the most of a database a connection reads through a memory map
// (PRAGMA mmap_size) instead of one pread system call per page: inspect
// reads every page, quick_check again.
//
// A map turns a file cut short under it into a fault on access. SQLite's
// locks rule that out for its own writers while a read transaction lives,
// but not an operator's truncate, nor a writer appearing while an immutable
// open reads. Every read runs under guardFault, which makes that fault an
// error instead of a crash.
const mapSize = 1 << 40

// guardFault runs fn with a fault on mapped memory turned into an error
// (debug.SetPanicOnFault). faulted reports that case: fn stopped inside
// SQLite holding its locks and database/sql's, so the caller must leave the
// connection alone (never reuse it, never close it; the process reports the
// error and exits). Any other panic goes on.
func (d *DB) guardFault(fn func() error) (err error, faulted bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			// a fault in the map panics with a runtime.Error that has the
			// faulting address (a nil dereference has none)
			re, ok := r.(interface {
				runtime.Error
				Addr() uintptr
			})
			if !ok {
				panic(r)
			}
			err, faulted = fmt.Errorf("%s: the file changed size while it was read (a fault at %#x); run the command again: %w", d.Path, re.Addr(), ErrUnusable), true
		}
	}()
	return fn(), false
}

// QuickCheck runs PRAGMA quick_check and returns its answer as one line
// ("ok" when the database is sound), on a connection of its own so that it
// can run beside the sessions' reads.
func (d *DB) QuickCheck() (answer string, err error) {
	ctx := context.Background()
	conn, err := d.conn.Conn(ctx)
	if err != nil {
		return "", d.classify(err)
	}
	var msgs []string
	err, faulted := d.guardFault(func() error {
		rows, err := conn.QueryContext(ctx, "PRAGMA quick_check")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var m string
			if err := rows.Scan(&m); err != nil {
				return err
			}
			msgs = append(msgs, m)
		}
		return rows.Err()
	})
	if faulted {
		return "", err // the connection is abandoned (guardFault)
	}
	conn.Close()
	if err != nil {
		return "", d.classify(err)
	}
	if d.immutable && fileExists(d.Path+"-wal") {
		return "", fmt.Errorf("%s: a writer opened the database while oc read it; run the command again: %w", d.Path, ErrUnusable)
	}
	return strings.Join(msgs, "; "), nil
}
