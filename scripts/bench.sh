#!/usr/bin/env bash
# Benchmarks oc against the reference tools on the same files in one run and
# prints ratios (never absolute pass/fail). Big inputs are generated in
# ${BENCH_DIR:-/tmp/oc-bench}, never in the repository.
#
#   scripts/bench.sh            # inspect, then repair and replay if their scripts exist
#   scripts/bench.sh inspect    # only one part
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_DIR:-/tmp/oc-bench}
mkdir -p "$dir"
CGO_ENABLED=0 go build -o "$dir/oc" .
oc="$dir/oc"

# time_cmd LABEL CMD...: runs CMD three times, prints the best wall time (s)
# and the peak RSS (MiB) of that run.
time_cmd() {
  local best="" rss=""
  for _ in 1 2 3; do
    /usr/bin/time -o "$dir/.time" -f "%e %M" "$@" >/dev/null 2>&1 || true
    local out t m
    out=$(tail -1 "$dir/.time")
    t=${out% *} m=${out#* }
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; rss=$((m / 1024)); fi
  done
  echo "$best $rss"
}
ratio() { awk "BEGIN{ if ($2 == 0) print \"inf\"; else printf \"%.3f\", $1 / $2 }"; }

bench_inspect() {
  local f="$dir/clean-100.jsonl"
  [ -f "$f" ] || go run ./scripts/gen-transcript -size 100MiB -damage 0 -o "$f"
  read -r t_oc rss_oc < <(time_cmd "$oc" inspect "$f" --json)
  read -r t_jq _ < <(time_cmd jq -c . "$f")
  read -r t_cat _ < <(time_cmd cat "$f")
  echo "inspect on $(du -m "$f" | cut -f1) MiB: oc ${t_oc}s (peak RSS ${rss_oc} MiB), jq -c . ${t_jq}s, cat ${t_cat}s"
  echo "  ratio oc/jq = $(ratio "$t_oc" "$t_jq")   (target < 0.5; RSS target < 150 MiB)"
}

command -v /usr/bin/time >/dev/null || { echo "bench needs /usr/bin/time (apt-get install time)"; exit 2; }
command -v jq >/dev/null || { echo "bench needs jq (apt-get install jq)"; exit 2; }
parts=${1:-all}
case $parts in
  inspect|all) bench_inspect ;;
esac
if [ "$parts" = all ] || [ "$parts" = repair ]; then [ -x scripts/bench-repair.sh ] && OC="$oc" BENCH_DIR="$dir" scripts/bench-repair.sh; fi
if [ "$parts" = all ] || [ "$parts" = replay ]; then [ -x scripts/bench-replay.sh ] && OC="$oc" BENCH_DIR="$dir" scripts/bench-replay.sh; fi
exit 0
