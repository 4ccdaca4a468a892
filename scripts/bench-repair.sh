#!/usr/bin/env bash
# Benchmarks `oc repair` against OpenClaw 2026.5.6's repair (the oracle), jq
# and cat on the same generated files, in one run, and prints the ratios.
#
#   scripts/bench-repair.sh            # 100 MiB files, 10,000 small transcripts
#   SIZE=20MiB COUNT=1000 scripts/bench-repair.sh
#
# Needs: go, jq, /usr/bin/time (apt-get install time), and for the OpenClaw
# comparison ../shared/oracle (skipped when missing). Files go to $BENCH_DIR
# (default /tmp/oc-bench), never into the repository.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIZE=${SIZE:-100MiB}
COUNT=${COUNT:-10000}
DIR=${BENCH_DIR:-/tmp/oc-bench}
ORACLE=${ORACLE:-$ROOT/../shared/oracle/oracle}
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench: jq missing" >&2; exit 2; }

mkdir -p "$DIR"
OC="$DIR/oc"
(cd "$ROOT" && CGO_ENABLED=0 go build -o "$OC" . && go build -o "$DIR/gen" ./scripts/gen-transcript)

[ -f "$DIR/damaged-$SIZE.jsonl" ] || "$DIR/gen" -size "$SIZE" -damage 0.001 -seed 1 -o "$DIR/damaged-$SIZE.jsonl"
[ -f "$DIR/clean-$SIZE.jsonl" ] || "$DIR/gen" -size "$SIZE" -damage 0 -seed 2 -o "$DIR/clean-$SIZE.jsonl"
if [ ! -d "$DIR/state-$COUNT" ]; then
  "$DIR/gen" -count "$COUNT" -size 4KiB -damage 0 -dir "$DIR/state-$COUNT.tmp"
  mv "$DIR/state-$COUNT.tmp" "$DIR/state-$COUNT"
fi

# best of N: prints "seconds peakKB"
measure() {
  local n=$1; shift
  local best="" rss=0
  for _ in $(seq "$n"); do
    "$TIME" -f "%e %M" -o "$DIR/.time" "$@" >/dev/null 2>&1 || true
    read -r s m < "$DIR/.time"
    if [ -z "$best" ] || awk "BEGIN{exit !($s < $best)}"; then best=$s; fi
    [ "$m" -gt "$rss" ] && rss=$m
  done
  echo "$best $rss"
}
ratio() { awk "BEGIN{ if ($2 == 0) print \"inf\"; else printf \"%.1f\", $1 / $2 }"; }

cat "$DIR/clean-$SIZE.jsonl" "$DIR/damaged-$SIZE.jsonl" > /dev/null  # warm the page cache

echo "== oc repair vs OpenClaw 2026.5.6 repair: $SIZE, 0.1% damaged lines"
cp "$DIR/damaged-$SIZE.jsonl" "$DIR/work.jsonl"
read -r oc_s oc_kb < <(measure 1 "$OC" repair -q "$DIR/work.jsonl")
rm -f "$DIR"/work.jsonl*
# repeat on fresh copies for a best-of-3
for _ in 1 2; do
  cp "$DIR/damaged-$SIZE.jsonl" "$DIR/work.jsonl"
  read -r s kb < <(measure 1 "$OC" repair -q "$DIR/work.jsonl")
  awk "BEGIN{exit !($s < $oc_s)}" && oc_s=$s
  [ "$kb" -gt "$oc_kb" ] && oc_kb=$kb
  rm -f "$DIR"/work.jsonl*
done
echo "oc repair:               ${oc_s}s  peak RSS $((oc_kb / 1024)) MiB"
if [ -x "$ORACLE" ] && "$ROOT/../shared/oracle/setup" >/dev/null 2>&1; then
  printf '{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n' > "$DIR/tiny.jsonl"
  read -r base_s _ < <(measure 1 "$ORACLE" repair "$DIR/tiny.jsonl")
  read -r or_s or_kb < <(measure 1 "$ORACLE" repair "$DIR/damaged-$SIZE.jsonl")
  net=$(awk "BEGIN{printf \"%.2f\", $or_s - $base_s}")
  echo "OpenClaw repair (oracle): ${or_s}s (${net}s without the ${base_s}s Node/OpenClaw start-up)  peak RSS $((or_kb / 1024)) MiB"
  echo "ratio OpenClaw/oc:        $(ratio "$net" "$oc_s")x (start-up excluded), $(ratio "$or_s" "$oc_s")x (as run)"
else
  echo "OpenClaw repair: oracle not available, skipped"
fi

echo "== oc repair --check vs jq -c . on a clean $SIZE transcript"
read -r chk_s chk_kb < <(measure 3 "$OC" repair --check -q "$DIR/clean-$SIZE.jsonl")
read -r jq_s _ < <(measure 1 jq -c . "$DIR/clean-$SIZE.jsonl")
read -r cat_s _ < <(measure 3 cat "$DIR/clean-$SIZE.jsonl")
echo "oc repair --check:        ${chk_s}s  peak RSS $((chk_kb / 1024)) MiB"
echo "jq -c .:                  ${jq_s}s"
echo "cat:                      ${cat_s}s"
echo "ratio jq/oc:              $(ratio "$jq_s" "$chk_s")x"

echo "== state dir of $COUNT small transcripts: oc repair --check --jobs 2 vs cat"
find "$DIR/state-$COUNT" -name '*.jsonl' -print0 | xargs -0 cat > /dev/null
read -r st_s _ < <(measure 3 "$OC" repair --check -q --jobs 2 --state-dir "$DIR/state-$COUNT")
read -r catall_s _ < <(measure 3 sh -c "find '$DIR/state-$COUNT' -name '*.jsonl' -print0 | xargs -0 cat")
echo "oc repair --check --jobs 2: ${st_s}s"
echo "cat of all files:           ${catall_s}s"
echo "ratio oc/cat:               $(ratio "$st_s" "$catall_s")x (target under 2x)"
