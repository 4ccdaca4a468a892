// Command benchgen writes a SQLite-era agent database for benchmarks: the
// OpenClaw 2026.9.6 agent schema (research/sqlite-era/agent-schema-2026.9.6.sql,
// which needs SQLite 3.43+; the pure-Go driver has it) filled with generated
// sessions. Used by scripts/bench-sqlite.sh.
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"os"
	"strings"

	_ "modernc.org/sqlite"
)

func main() {
	schema := flag.String("schema", "", "agent schema SQL file")
	out := flag.String("o", "", "database to create (must not exist)")
	sessions := flag.Int("sessions", 1000, "sessions")
	events := flag.Int("events", 1000, "events per session (header included)")
	text := flag.Int("text", 1000, "bytes of text per message")
	flag.Parse()
	if err := run(*schema, *out, *sessions, *events, *text); err != nil {
		fmt.Fprintln(os.Stderr, "benchgen:", err)
		os.Exit(3)
	}
}

func run(schemaPath, out string, sessions, events, text int) error {
	ddl, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("%s exists", out)
	}
	db, err := sql.Open("sqlite", "file:"+out+"?_pragma=journal_mode(wal)&_pragma=synchronous(off)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(string(ddl)); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	if _, err := db.Exec(`PRAGMA user_version=23; INSERT INTO schema_meta VALUES ('primary','agent',23,'main','2026.9.6',0,0)`); err != nil {
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	node, _ := tx.Prepare(`INSERT INTO session_nodes(session_key, current_session_id, entry_json, updated_at) VALUES (?,?,?,?)`)
	win, _ := tx.Prepare(`INSERT INTO session_windows(session_id, session_key, reason, created_at, updated_at) VALUES (?,?,'initial',0,0)`)
	ev, err := tx.Prepare(`INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES (?,?,?,?)`)
	if err != nil {
		return err
	}
	body := strings.Repeat("lorem ipsum ", text/12+1)[:text]
	for s := 0; s < sessions; s++ {
		id := fmt.Sprintf("b0000000-0000-4000-8000-%012d", s)
		key := fmt.Sprintf("agent:main:bench:%d", s)
		if _, err := node.Exec(key, id, fmt.Sprintf(`{"sessionId":%q,"updatedAt":%d}`, id, 1770000000000+s), 1770000000000+s); err != nil {
			return err
		}
		if _, err := win.Exec(id, key); err != nil {
			return err
		}
		for k := 0; k < events; k++ {
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
