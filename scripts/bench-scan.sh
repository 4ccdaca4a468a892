#!/usr/bin/env bash
# bench-scan.sh: issue 10's speed goals for the core scanner, measured side by
# side in ONE run on the SAME generated transcript, printed as ratios.
#
#   scripts/bench-scan.sh                    # 100 MiB transcript, best of 3
#   SIZE=20MiB RUNS=5 scripts/bench-scan.sh
#   BASE=/tmp/oc-old scripts/bench-scan.sh   # also time an older oc binary
#
# Goals (issue 10): oc repair --check >= 40x `jq -c .`; oc inspect FILE --json
# >= 10x `jq -c .type | sort | uniq -c`; oc repair >= 20x OpenClaw 2026.5.6's
# repair with peak RSS < 64 MiB; each within 2x of a plain goccy/go-json
# validity scan of the same bytes (scripts/goccy-scan). `inspect DIR` is the
# same file alone in a folder: inspect without the provider replay findings
# (which one named file gets), i.e. the scanner, analyzer and repair plan.
#
# Profile a run with OC_CPUPROFILE=FILE oc ... ; go tool pprof -top oc FILE.
#
# The machine may be shared: every command is run RUNS times and the best wall
# time is kept; the load average before and after is printed. Compare the
# ratios of one run, not absolute times across runs. Files go to $BENCH_DIR
# (default /tmp/oc-bench-scan), never into the repository. Needs go, jq and
# GNU time (/usr/bin/time); the OpenClaw comparison needs ../shared/oracle.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIZE=${SIZE:-100MiB}
RUNS=${RUNS:-3}
DIR=${BENCH_DIR:-/tmp/oc-bench-scan}
ORACLE=${ORACLE:-$ROOT/../shared/oracle/oracle}
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench-scan: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench-scan: jq missing" >&2; exit 2; }

mkdir -p "$DIR"
(cd "$ROOT" && go build -o "$DIR/oc" . && go build -o "$DIR/gen" ./scripts/gen-transcript &&
  go build -o "$DIR/goccy-scan" ./scripts/goccy-scan)
clean=$DIR/clean-$SIZE.jsonl damaged=$DIR/damaged-$SIZE.jsonl
[ -f "$clean" ] || "$DIR/gen" -size "$SIZE" -damage 0 -seed 2 -o "$clean" >/dev/null
[ -f "$damaged" ] || "$DIR/gen" -size "$SIZE" -damage 0.001 -seed 1 -o "$damaged" >/dev/null
alone=$DIR/alone-$SIZE
[ -f "$alone/$(basename "$clean")" ] || { mkdir -p "$alone" && ln -f "$clean" "$alone/"; }
cat "$clean" "$damaged" >/dev/null # warm the page cache

# measure CMD...: best wall seconds of $RUNS runs and the peak RSS (KiB) of all
# runs. A command whose name is "repair-copy" gets a fresh copy of the damaged
# file each run (repair rewrites its input).
measure() {
  local best="" rss=0 s m
  for _ in $(seq "$RUNS"); do
    if [ "$1" = repair-copy ]; then
      rm -f "$DIR"/work.jsonl*
      cp "$damaged" "$DIR/work.jsonl"
      "$TIME" -f "%e %M" -o "$DIR/.time" "${@:2}" >/dev/null 2>&1 || true
    else
      "$TIME" -f "%e %M" -o "$DIR/.time" "$@" >/dev/null 2>&1 || true
    fi
    read -r s m < <(tail -1 "$DIR/.time")
    if [ -z "$best" ] || awk "BEGIN{exit !($s < $best)}"; then best=$s; fi
    [ "$m" -gt "$rss" ] && rss=$m
  done
  rm -f "$DIR"/work.jsonl*
  echo "$best $rss"
}
ratio() { awk "BEGIN{ if ($2 == 0) print \"inf\"; else printf \"%.1f\", $1 / $2 }"; }
mib() { echo $(($1 / 1024)); }

echo "== $SIZE transcript, best of $RUNS; load before: $(uptime | sed 's/.*load average: //')"
read -r goccy_s _ < <(measure "$DIR/goccy-scan" "$clean")
read -r jq_s _ < <(measure jq -c . "$clean")
read -r jqcount_s _ < <(measure sh -c "jq -c .type '$clean' | sort | uniq -c")

report() { # label oc-binary
  local oc=$2 check_s check_kb insp_s insp_kb rep_s rep_kb
  read -r check_s check_kb < <(measure "$oc" repair --check -q "$clean")
  read -r insp_s insp_kb < <(measure "$oc" inspect "$clean" --json)
  read -r dir_s dir_kb < <(measure "$oc" inspect "$alone" --json)
  read -r rep_s rep_kb < <(measure repair-copy "$oc" repair -q "$DIR/work.jsonl")
  printf '%-6s repair --check: jq/oc %5sx (goal >= 40)  oc/goccy %4sx (goal <= 2)  peak %s MiB\n' \
    "$1" "$(ratio "$jq_s" "$check_s")" "$(ratio "$check_s" "$goccy_s")" "$(mib "$check_kb")"
  printf '%-6s inspect --json: jq/oc %5sx (goal >= 10)  oc/goccy %4sx (goal <= 2)  peak %s MiB\n' \
    "$1" "$(ratio "$jqcount_s" "$insp_s")" "$(ratio "$insp_s" "$goccy_s")" "$(mib "$insp_kb")"
  printf '%-6s inspect DIR:    jq/oc %5sx (no replay findings)  oc/goccy %4sx  peak %s MiB\n' \
    "$1" "$(ratio "$jqcount_s" "$dir_s")" "$(ratio "$dir_s" "$goccy_s")" "$(mib "$dir_kb")"
  eval "${1}_rep_s=$rep_s"
  printf '%-6s repair:         oc/goccy %4sx (goal <= 2)  peak %s MiB (goal < 64)\n' \
    "$1" "$(ratio "$rep_s" "$goccy_s")" "$(mib "$rep_kb")"
  printf '%-6s seconds: check %s, inspect %s, inspect DIR %s, repair %s\n' "$1" "$check_s" "$insp_s" "$dir_s" "$rep_s"
}
[ -n "${BASE:-}" ] && report base "$BASE"
report oc "$DIR/oc"
echo "seconds: goccy scan $goccy_s, jq -c . $jq_s, jq count $jqcount_s"

if [ -x "$ORACLE" ] && timeout 20m "$ROOT/../shared/oracle/setup" >/dev/null 2>&1; then
  printf '{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n' >"$DIR/tiny.jsonl"
  RUNS=1
  read -r base_s _ < <(measure timeout 600 "$ORACLE" repair "$DIR/tiny.jsonl")
  read -r or_s _ < <(measure timeout 600 "$ORACLE" repair "$damaged")
  net=$(awk "BEGIN{printf \"%.2f\", $or_s - $base_s}")
  for label in base oc; do
    var=${label}_rep_s
    [ -n "${!var:-}" ] || continue
    printf '%-6s repair: OpenClaw/oc %sx start-up excluded (goal >= 20), %sx as run\n' \
      "$label" "$(ratio "$net" "${!var}")" "$(ratio "$or_s" "${!var}")"
  done
  echo "seconds: OpenClaw repair $or_s (start-up $base_s)"
else
  echo "OpenClaw repair: ../shared/oracle not available, skipped"
fi
echo "== load after: $(uptime | sed 's/.*load average: //')"
