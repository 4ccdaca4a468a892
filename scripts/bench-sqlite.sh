#!/usr/bin/env bash
# bench-sqlite.sh: time `oc inspect` on a generated SQLite-era state dir
# (OpenClaw 2026.9.6 agent schema) against sqlite3's own count of the events.
#
#   scripts/bench-sqlite.sh [SESSIONS [EVENTS_PER_SESSION [TEXT_BYTES]]]
#
# Default: 1,000 sessions x 1,000 events x ~1 KiB = ~1 GB. The state dir is
# made under $BENCH_DIR (default a new temp dir) and removed afterwards unless
# KEEP=1. Needs sqlite3 (apt-get install sqlite3) and go.
set -euo pipefail
sessions=${1:-1000}
events=${2:-1000}
text=${3:-1000}
repo=$(cd "$(dirname "$0")/.." && pwd)
schema=${SCHEMA:-$repo/../shared/spec/research/sqlite-era/agent-schema-2026.9.6.sql}
command -v sqlite3 >/dev/null || { echo "bench-sqlite: sqlite3 not found (apt-get install sqlite3)" >&2; exit 3; }
[ -f "$schema" ] || { echo "bench-sqlite: schema $schema not found (set SCHEMA)" >&2; exit 3; }
dir=${BENCH_DIR:-$(mktemp -d)}
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$dir"' EXIT
db=$dir/agents/main/agent/openclaw-agent.sqlite
mkdir -p "$(dirname "$db")"

echo "generating $sessions sessions x $events events x ~$text bytes in $db" >&2
t0=$(date +%s.%N)
(cd "$repo" && go run ./scripts/benchgen -schema "$schema" -o "$db" -sessions "$sessions" -events "$events" -text "$text")
t1=$(date +%s.%N)
size=$(stat -c %s "$db")
echo "generated $(numfmt --to=iec "$size") in $(echo "$t1 - $t0" | bc) s" >&2

oc=$dir/oc
(cd "$repo" && go build -o "$oc" .)
sync
cat "$db" >/dev/null  # warm the page cache for both readers

time_it() { local s e; s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); echo "$e - $s" | bc; }
# On a shared machine wall time depends on the load: report it, and the CPU
# time oc used (user+sys), which does not.
echo "load: $(uptime | sed 's/.*load average: //')" >&2
t_sqlite=$(time_it sqlite3 "$db" 'select count(*) from transcript_events')
cpu_file=$dir/oc-cpu
t_oc=$(time_it /usr/bin/time -o "$cpu_file" -f '%U %S %M' "$oc" inspect --state-dir "$dir" --json)
read -r cpu_user cpu_sys max_kb < "$cpu_file"
count=$(sqlite3 "$db" 'select count(*) from transcript_events')
printf 'events %s, database %s, load after %s\n' "$count" "$(numfmt --to=iec "$size")" "$(uptime | sed 's/.*load average: //')"
printf 'sqlite3 count(*):  %6.2f s\n' "$t_sqlite"
printf 'oc inspect --json: %6.2f s  (%.1fx sqlite3); CPU %.1f s user + %.1f s sys, max RSS %d MiB\n' "$t_oc" "$(echo "$t_oc / $t_sqlite" | bc -l)" "$cpu_user" "$cpu_sys" "$((max_kb / 1024))"
