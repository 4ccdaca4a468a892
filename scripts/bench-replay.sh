#!/usr/bin/env bash
# Benchmark `oc replay` on a large transcript and compare with the oracle.
#   scripts/bench-replay.sh [SIZE_MIB] [PROVIDER API MODEL]
#   OPENCLAW=2026.9.6 scripts/bench-replay.sh   # 2026.9.6's rules and its oracle
# Builds a SIZE_MIB (default 20) transcript in $TMPDIR by repeating the turns
# of a corpus session (tool calls, results, thinking) on one branch, then
# times `oc replay --stage payload --json` for one provider, `--provider all`,
# and the oracle's `payload` mode on the same file. Prints wall time and peak
# RSS of each and the ratios. Needs python3 and GNU time (/usr/bin/time).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
size="${1:-20}"
provider="${2:-anthropic}" api="${3:-anthropic-messages}" model="${4:-claude-sonnet-4-5}"
shared="${OC_SHARED_DIR:-$here/../shared}"
src="$(ls "$shared"/corpus/real/*sessions__1d9efd24-*.jsonl 2>/dev/null | head -1)"
[ -n "$src" ] || { echo "corpus session not found under $shared" >&2; exit 2; }
work="$(mktemp -d "${TMPDIR:-/tmp}/oc-bench-replay.XXXXXX")"
trap 'rm -rf "$work"' EXIT
big="$work/big.jsonl"
python3 - "$src" "$big" "$size" <<'PY'
import json, sys
src, dst, mib = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = [json.loads(l) for l in open(src, encoding="utf-8") if l.strip()]
header, entries = lines[0], [e for e in lines[1:] if e.get("type") == "message"]
limit = mib * 1024 * 1024
with open(dst, "w", encoding="utf-8") as f:
    f.write(json.dumps(header) + "\n")
    size, parent, n, rnd = 0, None, 0, 0
    while size < limit:
        rnd += 1
        for e in entries:
            n += 1
            e = dict(e, id="b%08d" % n, parentId=parent)
            m = dict(e["message"])
            if m.get("role") == "toolResult" or m.get("role") == "assistant":
                # keep ids unique per round so pairing stays realistic
                if m.get("role") == "toolResult" and "toolCallId" in m:
                    m["toolCallId"] = "%s_r%d" % (m["toolCallId"], rnd)
                if isinstance(m.get("content"), list):
                    m["content"] = [dict(b, id="%s_r%d" % (b["id"], rnd)) if isinstance(b, dict) and b.get("type") == "toolCall" and "id" in b else b for b in m["content"]]
            e["message"] = m
            line = json.dumps(e, ensure_ascii=False) + "\n"
            f.write(line)
            size += len(line.encode("utf-8"))
            parent = e["id"]
            if size >= limit:
                break
PY
echo "transcript: $big ($(du -m "$big" | cut -f1) MiB, $(wc -l < "$big") lines)"
(cd "$here" && CGO_ENABLED=0 go build -o "$work/oc" .)
measure() { # label, command...
  local label="$1"; shift
  /usr/bin/time -f "%e %M" -o "$work/t" "$@" > /dev/null 2> "$work/err" || { echo "$label failed:"; tail -3 "$work/err"; return 1; }
  read -r secs kb < "$work/t"
  printf '%-28s %7.2f s %8.1f MiB\n' "$label" "$secs" "$(echo "$kb/1024" | bc -l)"
  eval "${label//[^a-z]/_}_s=$secs"
}
release="${OPENCLAW:-2026.5.6}"
oracle="$shared/oracle/oracle"
[ "$release" = 2026.5.6 ] || oracle="$shared/oracle-$release/oracle"
echo "OpenClaw $release; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
measure "oc one provider" "$work/oc" replay "$big" --openclaw "$release" --provider "$provider" --api "$api" --model "$model" --stage payload --json
measure "oc sanitized" "$work/oc" replay "$big" --openclaw "$release" --provider "$provider" --api "$api" --model "$model" --stage sanitized --json
measure "oc provider all" "$work/oc" replay "$big" --openclaw "$release" --provider all --json
if [ -z "${OC_BENCH_NO_ORACLE:-}" ] && [ -x "$oracle" ]; then
  # one provider: the oracle has no "all"; for 2026.9.6 its time includes the
  # in-process import of the JSONL file (its README: 6-7 s for small files)
  measure "oracle payload" timeout 1200 "$oracle" payload "$big" "$provider" "$api" "$model" || true
fi
echo "ratio all/one:        $(echo "$oc_provider_all_s / $oc_one_provider_s" | bc -l | cut -c1-5)"
[ -n "${oracle_payload_s:-}" ] && echo "ratio oracle/oc (one): $(echo "$oracle_payload_s / $oc_one_provider_s" | bc -l | cut -c1-6)"
exit 0
