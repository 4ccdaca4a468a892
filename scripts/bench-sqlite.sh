#!/usr/bin/env bash
# bench-sqlite.sh: time `oc inspect` on a generated SQLite-era state dir
# (OpenClaw 2026.9.6 agent schema) against sqlite3 on the same file.
#
#   scripts/bench-sqlite.sh [SESSIONS [EVENTS_PER_SESSION [TEXT_BYTES]]]
#   KEEP=1 BENCH_DIR=/tmp/sqlbench scripts/bench-sqlite.sh    # make it once, keep it
#   BENCH_DIR=/tmp/sqlbench BASE=/tmp/oc-base RUNS=5 scripts/bench-sqlite.sh
#
# Default: 1,000 sessions x 1,000 events x ~1 KiB = ~1 GB of events. The state
# dir is made under $BENCH_DIR (default a new temp dir) and removed afterwards
# unless KEEP=1; a $BENCH_DIR that already holds the database is reused as it
# is (nothing generated, nothing removed). BASE names another oc binary (say
# one built from main) to time in the same run, alternating with this
# checkout's, RUNS times each (default 3 with BASE, else 1); its output must
# be byte-identical. Needs sqlite3 (apt-get install sqlite3), /usr/bin/time
# (apt-get install time) and go.
set -euo pipefail
sessions=${1:-1000}
events=${2:-1000}
text=${3:-1000}
repo=$(cd "$(dirname "$0")/.." && pwd)
schema=${SCHEMA:-$repo/../shared/spec/research/sqlite-era/agent-schema-2026.9.6.sql}
base=${BASE:-}
runs=${RUNS:-$([ -n "$base" ] && echo 3 || echo 1)}
command -v sqlite3 >/dev/null || { echo "bench-sqlite: sqlite3 not found (apt-get install sqlite3)" >&2; exit 3; }
[ -x /usr/bin/time ] || { echo "bench-sqlite: /usr/bin/time not found (apt-get install time)" >&2; exit 3; }
[ -z "$base" ] || [ -x "$base" ] || { echo "bench-sqlite: BASE $base is not an executable" >&2; exit 3; }
dir=${BENCH_DIR:-$(mktemp -d)}
db=$dir/agents/main/agent/openclaw-agent.sqlite
if [ -f "$db" ]; then
  echo "reusing $db" >&2
else
  [ -f "$schema" ] || { echo "bench-sqlite: schema $schema not found (set SCHEMA)" >&2; exit 3; }
  [ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$dir"' EXIT
  mkdir -p "$(dirname "$db")"
  echo "generating $sessions sessions x $events events x ~$text bytes in $db" >&2
  t0=$(date +%s.%N)
  (cd "$repo" && go run ./scripts/benchgen -schema "$schema" -o "$db" -sessions "$sessions" -events "$events" -text "$text")
  t1=$(date +%s.%N)
  echo "generated $(numfmt --to=iec "$(stat -c %s "$db")") in $(echo "$t1 - $t0" | bc) s" >&2
fi
size=$(stat -c %s "$db")

oc=$(mktemp -d)/oc
(cd "$repo" && CGO_ENABLED=0 go build -o "$oc" .)
sync
cat "$db" >/dev/null  # warm the page cache for every reader

time_it() { local s e; s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); echo "$e - $s" | bc; }
# sqlite3's count(*) answers from the primary-key index without reading an
# event; the sum reads every event's bytes once (no JSON, no order).
t_count=$(time_it sqlite3 "$db" 'select count(*) from transcript_events')
t_read=$(time_it sqlite3 "$db" 'select sum(length(CAST(event_json AS BLOB))) from transcript_events')
count=$(sqlite3 "$db" 'select count(*) from transcript_events')

# One inspect: "wall user sys maxKB", its JSON in $2.
inspect() {
  local bin=$1 out=$2 tf
  tf=$(mktemp)
  /usr/bin/time -o "$tf" -f '%e %U %S %M' "$bin" inspect --state-dir "$dir" --json >"$out"
  cat "$tf"
  rm -f "$tf"
}
# On a shared machine wall time depends on the load: report it, and the CPU
# time (user+sys), which depends on it much less.
echo "load before: $(uptime | sed 's/.*load average: //')" >&2
printf 'events %s, database %s\n' "$count" "$(numfmt --to=iec "$size")"
printf 'sqlite3 count(*):            %6.2f s\n' "$t_count"
printf 'sqlite3 sum(length(event)):  %6.2f s\n' "$t_read"
report() {
  local name=$1 wall=$2 user=$3 sys=$4 kb=$5
  printf '%-5s oc inspect --json: %6.2f s  (%.0fx count(*), %.1fx reading every event); CPU %.2f s (%.2f user + %.2f sys), max RSS %d MiB\n' \
    "$name" "$wall" "$(echo "$wall / $t_count" | bc -l)" "$(echo "$wall / $t_read" | bc -l)" "$(echo "$user + $sys" | bc)" "$user" "$sys" "$((kb / 1024))"
}
out_dir=$(dirname "$oc")
for run in $(seq "$runs"); do
  if [ -n "$base" ]; then
    # shellcheck disable=SC2046
    report base $(inspect "$base" "$out_dir/base.json")
  fi
  # shellcheck disable=SC2046
  report oc $(inspect "$oc" "$out_dir/oc.json")
  if [ -n "$base" ] && ! cmp -s "$out_dir/base.json" "$out_dir/oc.json"; then
    echo "bench-sqlite: run $run: the output of $base and of this checkout differ" >&2
    exit 1
  fi
done
echo "load after: $(uptime | sed 's/.*load average: //')" >&2
rm -rf "$out_dir"
