#!/bin/sh
# A CI step that gates on `oc repair --check` (docs/ci-gates.md).
# Usage: oc-gate.sh [PATH...]   (default: the state dir oc resolves)
# Findings are printed as GitHub Actions annotations; on any other CI the
# same lines are plain log lines. The exit codes are `oc help exit-codes`':
#   0  every transcript is clean               -> the step passes
#   1  a transcript needs repair               -> the step fails
#   3  a transcript could not be checked       -> the step fails
#  11  a live gateway holds a transcript's lock -> retried, then fails
# OC (default: oc), OC_GATE_TRIES (default 3) and OC_GATE_PAUSE (seconds
# between tries, default 20) tune it.
OC=${OC:-oc}
tries=${OC_GATE_TRIES:-3}
pause=${OC_GATE_PAUSE:-20}
n=1
while :; do
	"$OC" repair --check --format github "$@"
	code=$?
	case $code in
	0) echo "oc gate: clean"; exit 0 ;;
	1) echo "oc gate: transcripts need repair (run: oc repair)"; exit 1 ;;
	11)
		if [ "$n" -ge "$tries" ]; then
			echo "oc gate: still busy after $tries tries"
			exit 11
		fi
		echo "oc gate: busy (a live gateway lock), retrying in ${pause}s"
		sleep "$pause"
		n=$((n + 1))
		;;
	*) echo "oc gate: the check could not complete (exit $code)"; exit "$code" ;;
	esac
done
