#!/usr/bin/env bash
# soak.sh runs chapter 4's lab honestly many times in a row and says how
# many runs passed: each run is reset.sh, then solve.sh as the learner, then
# labcheck as the admin with --expect pass. A failure that comes once in a
# few runs (a taint left from the run before, a race with a controller's
# period) shows here and not in a single make test.
#
#	chapters/04-node-shutdown/lab/soak.sh [RUNS]   (default 20)
#
# It prints one line a run, with its time, then "N/M passed" and the median
# time of a run, and exits non-zero when a run failed. A failed run's
# output is kept in a directory it names. The solution's expected outputs
# are checked as make test checks them (OPSLAB_EXPECT=check).
#
# Environment: OPSLAB_CONTEXT (default kwok-opslab) is the learner's
# context, OPSLAB_ADMIN_CONTEXT (default the learner's with -admin added) the
# admin's; KUBECONFIG as for kubectl.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
runs=${1:-20}
ctx=${OPSLAB_CONTEXT:-kwok-opslab}
admin=${OPSLAB_ADMIN_CONTEXT:-${ctx%-admin}-admin}
export OPSLAB_CONTEXT=$ctx OPSLAB_ADMIN_CONTEXT=$admin
export OPSLAB_EXPECT=${OPSLAB_EXPECT:-check}

logs=$(mktemp -d)
# labcheck is built once: every run judges with the same binary.
(cd "$root" && go build -o "$logs/labcheck" ./cmd/labcheck)

passed=0
times=()
for ((i = 1; i <= runs; i++)); do
	log=$logs/run-$i.log
	start=$SECONDS
	ok=true
	{
		"$here/reset.sh" && "$here/solve.sh" &&
			"$logs/labcheck" --context "$admin" --chapter 4 --expect pass
	} >"$log" 2>&1 || ok=false
	took=$((SECONDS - start))
	times+=("$took")
	if $ok; then
		passed=$((passed + 1))
		rm -f "$log"
		echo "soak: run $i/$runs passed in ${took}s"
	else
		echo "soak: run $i/$runs FAILED in ${took}s: $(grep -E 'Score:|gave up|expect:|✗|Error' "$log" | head -n 3 | tr '\n' ' ')(output in $log)"
	fi
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}')
echo "soak: $passed/$runs passed; median ${median}s a run (reset, solve and check)"
if [ "$passed" -eq "$runs" ]; then
	rm -rf "$logs"
else
	exit 1
fi
