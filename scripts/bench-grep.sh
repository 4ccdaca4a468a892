#!/usr/bin/env bash
# bench-grep.sh: time `oc grep` on a 1,000-session install of each era against
# the tools that read the same bytes, in one run:
#   JSONL: oc grep -l WORD STATE  vs  rg -l WORD  and  grep -rl WORD  on the same files
#   SQLite: oc grep -l WORD       vs  sqlite3 reading every event (instr over event_json)
#
#   scripts/bench-grep.sh            # makes the installs under $BENCH_DIR (default a temp dir)
#   KEEP=1 BENCH_DIR=/tmp/grepbench scripts/bench-grep.sh   # keep them; later runs reuse them
#
# The JSONL install is ../shared/bench/gen-session.py's transcript (MB, default
# 200 MiB, seed 1) cut into 1,000 sessions of consecutive entries, each with its
# header; WORD is planted in every 10th. The SQLite install is scripts/benchgen's
# (1,000 sessions x EVENTS, default 200, x ~1 KiB), WORD planted in every 10th
# session's first message by sqlite3 on the generated file. Each command runs
# RUNS times (default 3) after one warm-up; the median wall time is printed,
# with the ratio to the reference tool. Needs rg, grep, sqlite3, python3, go.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$repo/../shared}
mb=${MB:-200}
events=${EVENTS:-200}
runs=${RUNS:-3}
word=${WORD:-QUOKKAPLANT}
for t in rg grep sqlite3 python3 go; do command -v $t >/dev/null || { echo "bench-grep: $t not found" >&2; exit 3; }; done
dir=${BENCH_DIR:-$(mktemp -d)}
[ "${KEEP:-0}" = 1 ] || [ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$dir"' EXIT
jsonl=$dir/jsonl
sqlite=$dir/sqlite
db=$sqlite/agents/main/agent/openclaw-agent.sqlite
oc=$dir/oc
(cd "$repo" && go build -o "$oc" .)

if [ ! -d "$jsonl/agents/main/sessions" ]; then
  echo "generating the JSONL install ($mb MiB in 1,000 sessions)" >&2
  python3 "$shared/bench/gen-session.py" "$dir/big.jsonl" --mb "$mb" --seed 1 >&2
  mkdir -p "$jsonl/agents/main/sessions"
  python3 - "$dir/big.jsonl" "$jsonl/agents/main/sessions" "$word" <<'EOF'
import json, sys
src, out, word = sys.argv[1], sys.argv[2], sys.argv[3]
lines = open(src, encoding="utf-8").read().split("\n")
header, body = lines[0], [l for l in lines[1:] if l]
n = 1000
per = len(body) // n
for i in range(n):
    chunk = body[i*per:(i+1)*per]
    sid = "0197%04d-0000-7000-8000-%012d" % (i, i)
    h = json.loads(header); h["id"] = sid
    rows = [json.dumps(h)]
    for k, l in enumerate(chunk):
        if k == 0:
            e = json.loads(l); e["parentId"] = None; l = json.dumps(e, ensure_ascii=False)
        rows.append(l)
    if i % 10 == 0:
        rows.append(json.dumps({"type": "message", "id": "plant%04d" % i, "parentId": None,
            "message": {"role": "user", "content": [{"type": "text", "text": "look: \"%s\" here" % word}]}}))
    open("%s/%s.jsonl" % (out, sid), "w", encoding="utf-8").write("\n".join(rows) + "\n")
EOF
  rm -f "$dir/big.jsonl"
fi
if [ ! -f "$db" ]; then
  echo "generating the SQLite install (1,000 sessions x $events events)" >&2
  mkdir -p "$(dirname "$db")"
  (cd "$repo" && go run ./scripts/benchgen -schema "$shared/spec/research/sqlite-era/agent-schema-2026.9.6.sql" -o "$db" -sessions 1000 -events "$events" -text 1000)
  sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE);
    UPDATE transcript_events SET event_json = replace(event_json, '\"text\":\"', '\"text\":\"$word ')
    WHERE seq = 1 AND session_id IN (SELECT session_id FROM transcript_events WHERE seq = 0 GROUP BY session_id ORDER BY session_id LIMIT 100);
    PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
fi
echo "JSONL: $(du -sh "$jsonl" | cut -f1) in $(ls "$jsonl/agents/main/sessions" | wc -l) files; SQLite: $(du -sh "$db" | cut -f1)" >&2

# median wall time of RUNS runs (after a warm-up), and the number of matching sessions
time_it() {
  local name=$1; shift
  "$@" >/dev/null 2>&1 || true
  local ts=() out
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s%N)
    out=$("$@" 2>/dev/null || true)
    t1=$(date +%s%N)
    ts+=($(( (t1 - t0) / 1000000 )))
  done
  local med
  med=$(printf '%s\n' "${ts[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
  local n
  n=$(printf '%s' "$out" | grep -c . || true)
  printf '%-44s %6d ms  (%s sessions)\n' "$name" "$med" "$n" >&3
  echo "$med"
}
exec 3>&1

echo "== JSONL install"
rg_ms=$(time_it "rg -l $word" rg -l "$word" "$jsonl/agents")
grep_ms=$(time_it "grep -rl $word" grep -rl "$word" "$jsonl/agents")
oc_ms=$(time_it "oc grep -l $word" "$oc" grep -l "$word" --state-dir "$jsonl")
ocx_ms=$(time_it "oc grep $word (every match printed)" "$oc" grep "$word" --state-dir "$jsonl")
oci_ms=$(time_it "oc grep -i -l quokkaplant" "$oc" grep -i -l "quokkaplant" --state-dir "$jsonl")
echo "ratios: oc/rg $(echo "scale=2; $oc_ms / $rg_ms" | bc)  oc/grep $(echo "scale=2; $oc_ms / $grep_ms" | bc)  oc -i/rg $(echo "scale=2; $oci_ms / $rg_ms" | bc)"
echo "== SQLite install"
sq_ms=$(time_it "sqlite3 instr(event_json) over every event" sqlite3 "file:$db?mode=ro" "SELECT DISTINCT session_id FROM transcript_events WHERE instr(event_json, '$word') > 0")
ocs_ms=$(time_it "oc grep -l $word" "$oc" grep -l "$word" --state-dir "$sqlite")
echo "ratio: oc/sqlite3 $(echo "scale=2; $ocs_ms / $sq_ms" | bc)"
