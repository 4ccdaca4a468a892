#!/bin/sh
# Regenerates oracle-answers.jsonl: the 2026.9.6 oracle's context, sanitize
# and payload answers for filetype.jsonl (crafted: a 3x2 BMP labelled
# image/png in a user turn and labelled image/jpeg in a tool result) on the
# routes of TestFileType (../../filetype96_test.go).
# Usage: sh gen.sh (about a minute).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
oracle=${ORACLE96:-$here/../../../../../shared/oracle-2026.9.6/oracle}
jobs=$(mktemp)
printf '{"id":"context","mode":"context","args":["%s"]}\n' "$here/filetype.jsonl" >> "$jobs"
for t in anthropic:anthropic-messages:claude-sonnet-4-5 minimax:anthropic-messages:MiniMax-M2 \
  openai:openai-completions:gpt-4o-mini google:google-generative-ai:gemini-2.5-pro \
  openai:openai-responses:gpt-5 mistral:mistral-conversations:mistral-large-latest; do
  IFS=: read -r p a m <<EOT
$t
EOT
  for mode in sanitize payload; do
    printf '{"id":"%s|%s|%s|%s","mode":"%s","args":["%s","%s","%s","%s"]}\n' \
      "$mode" "$p" "$a" "$m" "$mode" "$here/filetype.jsonl" "$p" "$a" "$m" >> "$jobs"
  done
done
ORACLE_TZ=UTC timeout 900 "$oracle" batch < "$jobs" > "$here/oracle-answers.jsonl.tmp"
rm -f "$jobs"
mv "$here/oracle-answers.jsonl.tmp" "$here/oracle-answers.jsonl"
