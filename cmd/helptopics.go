package cmd

import (
	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/cli"
)

// Help topics have no Run: cobra lists them under "Additional help topics"
// and `oc help <topic>` prints their text.

func newExitCodesTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "The exit codes every oc command uses",
		Long:  cli.ExitCodesHelp,
	}
}

// jsonHelp is the text of `oc help json` (docs/json.md has every key).
const jsonHelp = `--json (or --format json) writes one JSON document on stdout; errors are one
object on stderr, {"error": "...", "exitCode": 3}.

oc inspect and oc doctor describe an install with one shape in both storage
eras: what is specific to an era is a field of an item, never a section.

  era        jsonl, sqlite, mid-upgrade (SQLite databases and JSONL transcripts
             not yet imported) or empty; inspect and doctor say the same

oc inspect --json of a state dir:
  sessions[]   each session: the transcript analysis, findings[] (rule,
               severity, line, message), and era, store (the file or database
               that holds it), database (SQLite); SQLite adds key, sessionId
  totals       sessions, entries, messages, bytes, findings by severity
  errors[]     what could not be read

oc doctor --json:
  findings[]   every finding of every store: id, severity, path, message, fix,
               section, fixable, fixed; session, line, store when known
  remaining    warnings and errors not fixed: the exit follows them (--fail-on)
  checks[]     the check list: section, status, detail
  cron.jobs[]  every cron job: id, name, sessionTarget, classification
               (IN_CHAT, ELSEWHERE, UNDECIDABLE or null), reason, key, store
               (cron/jobs.json or state/openclaw.sqlite), pending; SQLite:
               command (the openclaw fix), fix (what --fix did)
  databases[], import   SQLite: the agent databases, the import audit

Recipes that answer the same in both eras:
  oc doctor --json | jq '.cron.jobs[] | select(.classification == "ELSEWHERE") | .id'
  oc inspect --json | jq .totals.findings

Every key: docs/json.md.`

func newJSONTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "json",
		Short: "The --json documents of inspect and doctor, the same in both eras",
		Long:  jsonHelp,
	}
}
