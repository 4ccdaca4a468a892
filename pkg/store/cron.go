package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"

	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
)

// CronJob is one cron_jobs row of state/openclaw.sqlite (2026.6.1+): the
// job definition (job_json, canonical since 2026.8.1) and its runtime state.
type CronJob struct {
	StoreKey string          `json:"storeKey"`
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Enabled  bool            `json:"enabled"`
	Job      json.RawMessage `json:"job"`
	State    json.RawMessage `json:"state"`
}

// CronJobs reads every cron job of the state database, in the order the
// service loads them; nil without a state database.
func (s *State) CronJobs(ctx context.Context) ([]CronJob, error) {
	out := []CronJob{}
	found, err := s.readStateTable(ctx, "cron_jobs", func(tx *sql.Tx) error {
		out = out[:0]
		rows, err := tx.QueryContext(ctx, "SELECT store_key, job_id, name, enabled, job_json, state_json FROM cron_jobs ORDER BY store_key, sort_order, updated_at, job_id")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var j CronJob
			var enabled int
			var job, state string
			if err := rows.Scan(&j.StoreKey, &j.ID, &j.Name, &enabled, &job, &state); err != nil {
				return err
			}
			j.Enabled, j.Job, j.State = enabled != 0, json.RawMessage(job), json.RawMessage(state)
			out = append(out, j)
		}
		return rows.Err()
	})
	if !found {
		return nil, err
	}
	return out, err
}

// readStateTable runs fn in one read transaction of the state database when
// it has table. found is false without a state database (nil results); a
// database without the table counts as found, with nothing in it. fn may
// run more than once (sqlitestore.DB.ReadTx).
func (s *State) readStateTable(ctx context.Context, table string, fn func(tx *sql.Tx) error) (found bool, err error) {
	if _, err := os.Stat(s.StateDBPath()); err != nil {
		return false, nil
	}
	db, err := sqlitestore.Open(ctx, s.StateDBPath(), s.opts.SQLite)
	if err != nil {
		return false, err
	}
	defer db.Close()
	if !db.HasTable(table) {
		return true, nil
	}
	return true, db.ReadTx(ctx, fn)
}
