package sqlitestore

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// quickCheckMap is the most of the database PRAGMA quick_check reads through
// a memory map instead of one pread per page (a 4 KiB page is a system call,
// and quick_check reads every page).
const quickCheckMap = 1 << 40

// QuickCheck runs PRAGMA quick_check and returns its answer as one line
// ("ok" when the database is sound).
//
// It reads through a memory map, on a connection of its own. A map turns a
// file cut short under it (which SQLite's locks rule out, but not an operator's
// truncate, nor a writer while an immutable open reads) into a fault on
// access: that fault becomes an error here, and the connection is
// abandoned, never reused.
func (d *DB) QuickCheck() (answer string, err error) {
	ctx := context.Background()
	conn, err := d.conn.Conn(ctx)
	if err != nil {
		return "", d.classify(err)
	}
	faulted := false
	defer func() {
		// After a fault the connection stopped inside SQLite, holding its
		// locks and database/sql's: it is left alone (never reused, never
		// closed; the process is about to report and exit).
		if !faulted {
			_ = conn.Close()
		}
	}()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA mmap_size=%d", int64(quickCheckMap))); err != nil {
		return "", d.classify(err)
	}
	msgs, err := func() (msgs []string, err error) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if r := recover(); r != nil {
				// a fault in the map panics with a runtime.Error that
				// has the faulting address (debug.SetPanicOnFault)
				re, ok := r.(interface {
					runtime.Error
					Addr() uintptr
				})
				if !ok {
					panic(r)
				}
				faulted = true
				err = fmt.Errorf("%s: the file changed size while it was read (a fault at %#x); run the command again: %w", d.Path, re.Addr(), ErrUnusable)
			}
		}()
		rows, err := conn.QueryContext(ctx, "PRAGMA quick_check")
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var m string
			if err := rows.Scan(&m); err != nil {
				return nil, err
			}
			msgs = append(msgs, m)
		}
		return msgs, rows.Err()
	}()
	if faulted {
		return "", err
	}
	if err != nil {
		return "", d.classify(err)
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA mmap_size=0"); err != nil {
		return "", d.classify(err)
	}
	if d.immutable && fileExists(d.Path+"-wal") {
		return "", fmt.Errorf("%s: a writer opened the database while oc read it; run the command again: %w", d.Path, ErrUnusable)
	}
	return strings.Join(msgs, "; "), nil
}
