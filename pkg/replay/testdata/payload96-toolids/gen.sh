#!/bin/sh
# Regenerates oracle-answers.jsonl: the 2026.9.6 oracle's sanitize and
# payload answers for toolids.jsonl (crafted) on the routes of
# TestPayload96TrimsToolCallIDs (../../payload96_toolids_test.go).
# Usage: sh gen.sh (about 2 minutes).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
oracle=${ORACLE96:-$here/../../../../../shared/oracle-2026.9.6/oracle}
jobs=$(mktemp)
for t in openrouter:openai-completions:google/gemini-2.5-pro openai:openai-responses:gpt-5 openai:openai-completions:gpt-4o-mini \
  anthropic:anthropic-messages:claude-sonnet-4-5 google:google-generative-ai:gemini-2.5-pro \
  mistral:mistral-conversations:mistral-large-latest azure-openai-responses:azure-openai-responses:gpt-5 \
  openai:openai-chatgpt-responses:gpt-5.5; do
  IFS=: read -r p a m <<EOT
$t
EOT
  for mode in sanitize payload; do
    printf '{"id":"%s|%s|%s|%s","mode":"%s","args":["%s","%s","%s","%s"]}\n' \
      "$mode" "$p" "$a" "$m" "$mode" "$here/toolids.jsonl" "$p" "$a" "$m" >> "$jobs"
  done
done
ORACLE_TZ=UTC timeout 900 "$oracle" batch < "$jobs" > "$here/oracle-answers.jsonl.tmp"
rm -f "$jobs"
mv "$here/oracle-answers.jsonl.tmp" "$here/oracle-answers.jsonl"
