#!/bin/sh
# Regenerates answers.jsonl: the 2026.9.6 oracle's sanitize and payload
# answers for the crafted transcripts of this folder, one batch per variant
# (time zone, model record); the variants and triples are those of
# payload96Variants in ../../payload96_crafted_test.go. Usage: sh gen.sh
# (about 15 minutes); ONLY=<variant> APPEND=1 sh gen.sh redoes one variant
# and appends it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
oracle=${ORACLE96:-$here/../../../../../shared/oracle-2026.9.6/oracle}
out=$here/answers.jsonl.tmp
[ -n "${APPEND:-}" ] && cp "$here/answers.jsonl" "$out" || : > "$out"
# variant TZ MODEL_JSON then triples as file:provider:api:model
run() {
  variant=$1 tz=$2 model=$3; shift 3
  [ -z "${ONLY:-}" ] || [ "$ONLY" = "$variant" ] || return 0
  jobs=$(mktemp)
  for t in "$@"; do
    IFS=: read -r file p a m <<EOT
$t
EOT
    for mode in sanitize payload; do
      printf '{"id":"%s|%s|%s|%s|%s|%s","mode":"%s","args":["%s","%s","%s","%s"]}\n' \
        "$variant" "$file" "$mode" "$p" "$a" "$m" "$mode" "$here/$file" "$p" "$a" "$m" >> "$jobs"
    done
  done
  ORACLE_TZ=$tz ORACLE_MODEL_JSON=$model timeout 900 "$oracle" batch < "$jobs" >> "$out"
  rm -f "$jobs"
}
all="anthropic:anthropic-messages:claude-sonnet-4-5 openai:openai-responses:gpt-5 openai:openai-chatgpt-responses:gpt-5.5 google:google-generative-ai:gemini-2.5-pro openai:openai-completions:gpt-4o-mini"
set --
for f in boundary.jsonl reasoning.jsonl; do for t in $all; do set -- "$@" "$f:$t"; done; done
run utc UTC "" "$@"
run kolkata Asia/Kolkata "" boundary.jsonl:anthropic:anthropic-messages:claude-sonnet-4-5 boundary.jsonl:openai:openai-responses:gpt-5
run newyork America/New_York "" boundary.jsonl:anthropic:anthropic-messages:claude-sonnet-4-5 boundary.jsonl:openai:openai-responses:gpt-5
run model UTC '{"maxTokens":64000,"reasoning":true,"input":["text"]}' boundary.jsonl:anthropic:anthropic-messages:claude-sonnet-4-5 reasoning.jsonl:openai:openai-chatgpt-responses:gpt-5.5 reasoning.jsonl:openai:openai-responses:gpt-5
more="azure-openai-responses:azure-openai-responses:gpt-5 google-vertex:google-vertex:gemini-2.5-pro mistral:mistral-conversations:mistral-large-latest"
set --
for f in boundary.jsonl reasoning.jsonl; do for t in $more; do set -- "$@" "$f:$t"; done; done
run more UTC "" "$@"
run sender UTC "" sender.jsonl:anthropic:anthropic-messages:claude-sonnet-4-5 sender.jsonl:openai:openai-responses:gpt-5
mv "$out" "$here/answers.jsonl"
