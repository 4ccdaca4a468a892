package sqlitestore

import (
	"context"
	"database/sql"
	"strings"
)

// QuickCheck runs PRAGMA quick_check and returns its answer as one line
// ("ok" when the database is sound), in a read transaction of its own so
// that it can run beside the sessions' reads. Damage found in a file read in
// place with immutable=1 is confirmed on a private copy before it is
// reported (a writer checkpointing meanwhile looks like damage): the copy's
// answer is the answer.
func (d *DB) QuickCheck(ctx context.Context) (answer string, err error) {
	for attempt := 0; ; attempt++ {
		var msgs []string
		var used *source
		err := d.readTx(ctx, func(tx *sql.Tx, src *source) error {
			msgs, used = msgs[:0], src
			rows, err := tx.QueryContext(ctx, "PRAGMA quick_check")
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
		if err != nil {
			return "", err
		}
		answer := strings.Join(msgs, "; ")
		if answer != "ok" && used.immutable && attempt == 0 {
			if err := d.leaveInPlace(ctx, used, "quick_check of the file in place found damage (confirmed on a copy)"); err != nil {
				return "", err
			}
			continue
		}
		return answer, nil
	}
}
