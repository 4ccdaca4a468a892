// Command benchgen writes a SQLite-era agent database for benchmarks: the
// OpenClaw 2026.9.6 agent schema (research/sqlite-era/agent-schema-2026.9.6.sql,
// which needs SQLite 3.43+; the pure-Go driver has it) filled with generated
// sessions (internal/benchdb). Used by scripts/bench-sqlite.sh.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/openclaw-tools/oc/internal/benchdb"
)

func main() {
	schema := flag.String("schema", "", "agent schema SQL file")
	out := flag.String("o", "", "database to create (must not exist)")
	sessions := flag.Int("sessions", 1000, "sessions")
	events := flag.Int("events", 1000, "events per session (header included)")
	text := flag.Int("text", 1000, "bytes of text per message")
	flag.Parse()
	ddl, err := os.ReadFile(*schema)
	if err == nil {
		err = benchdb.Generate(string(ddl), *out, benchdb.Spec{Sessions: *sessions, Events: *events, Text: *text})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchgen:", err)
		os.Exit(3)
	}
}
