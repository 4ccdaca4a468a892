// Package benchdb writes SQLite-era agent databases for benchmarks: the
// OpenClaw 2026.9.6 agent schema filled with generated sessions (a header
// and alternating user/assistant messages of a given text size, one linear
// branch each). Used by scripts/benchgen and the inspect benchmarks.
package benchdb

import (
	"database/sql"
	"fmt"
	"os"
	"strings"

	_ "modernc.org/sqlite" // pure-Go driver "sqlite"
)

// Spec is what to generate.
type Spec struct {
	Sessions int // sessions (session_nodes rows)
	Events   int // events per session, header included
	Text     int // bytes of text per message
}

// Generate creates the database out (which must not exist) with the schema
// ddl (research/sqlite-era/agent-schema-2026.9.6.sql).
func Generate(ddl, out string, spec Spec) error {
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("%s exists", out)
	}
	db, err := sql.Open("sqlite", "file:"+out+"?_pragma=journal_mode(wal)&_pragma=synchronous(off)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(ddl); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	if _, err := db.Exec(`PRAGMA user_version=23; INSERT INTO schema_meta VALUES ('primary','agent',23,'main','2026.9.6',0,0)`); err != nil {
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // committed below
	node, err := tx.Prepare(`INSERT INTO session_nodes(session_key, current_session_id, entry_json, updated_at) VALUES (?,?,?,?)`)
	if err != nil {
		return err
	}
	win, err := tx.Prepare(`INSERT INTO session_windows(session_id, session_key, reason, created_at, updated_at) VALUES (?,?,'initial',0,0)`)
	if err != nil {
		return err
	}
	ev, err := tx.Prepare(`INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES (?,?,?,?)`)
	if err != nil {
		return err
	}
	body := strings.Repeat("lorem ipsum ", spec.Text/12+1)[:spec.Text]
	for s := 0; s < spec.Sessions; s++ {
		id := fmt.Sprintf("b0000000-0000-4000-8000-%012d", s)
		key := fmt.Sprintf("agent:main:bench:%d", s)
		if _, err := node.Exec(key, id, fmt.Sprintf(`{"sessionId":%q,"updatedAt":%d}`, id, 1770000000000+s), 1770000000000+s); err != nil {
			return err
		}
		if _, err := win.Exec(id, key); err != nil {
			return err
		}
		for k := 0; k < spec.Events; k++ {
			var line string
			if k == 0 {
				line = fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-02-03T03:46:30.573Z","cwd":"/root"}`, id)
			} else {
				parent := "null"
				if k > 1 {
					parent = fmt.Sprintf(`"%08x"`, k-1)
				}
				role, extra := "user", ""
				if k%2 == 0 {
					role, extra = "assistant", `,"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop"`
				}
				line = fmt.Sprintf(`{"type":"message","id":"%08x","parentId":%s,"timestamp":"2026-02-03T03:46:30.573Z","message":{"role":%q,"content":[{"type":"text","text":"%d %s"}]%s,"timestamp":1770090390574}}`, k, parent, role, k, body, extra)
			}
			if _, err := ev.Exec(id, k, line, 1770000000000+k); err != nil {
				return err
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}
