#!/bin/sh
# Regenerates oracle-answers.jsonl: the 2026.9.6 oracle's sanitize and
# payload answers for google-ids.jsonl (crafted) on the routes of
# TestPayload96GoogleSameRouteIDs (../../payload96_toolids_test.go).
# Usage: sh gen.sh (about 2 minutes).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
oracle=${ORACLE96:-$here/../../../../../shared/oracle-2026.9.6/oracle}
jobs=$(mktemp)
for t in google:google-generative-ai:gemini-2.5-pro google-vertex:google-vertex:gemini-2.5-pro google:google-generative-ai:gemini-3-pro-preview; do
  IFS=: read -r p a m <<EOT
$t
EOT
  for mode in sanitize payload; do
    printf '{"id":"%s|%s|%s|%s","mode":"%s","args":["%s","%s","%s","%s"]}\n' \
      "$mode" "$p" "$a" "$m" "$mode" "$here/google-ids.jsonl" "$p" "$a" "$m" >> "$jobs"
  done
done
ORACLE_TZ=UTC timeout 900 "$oracle" batch < "$jobs" > "$here/oracle-answers.jsonl.tmp"
rm -f "$jobs"
mv "$here/oracle-answers.jsonl.tmp" "$here/oracle-answers.jsonl"
