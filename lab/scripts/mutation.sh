#!/usr/bin/env bash
# mutation.sh [DIR...] runs go-gremlins, pinned, over each chapter's model
# package (the chapter's root; its commands, checks, demo and tests against
# a cluster are left out) and prints a line per package: mutants killed,
# lived, not covered, timed out, the efficacy (killed over killed and
# lived) and the time, after the mutants that lived. A mutant that lives in
# a model core is either killed by a new claim's plant and test, or listed
# on the chapter's evidence page as equivalent, with the reason.
#
# Slow: every mutant compiles the package and runs its tests, so it is not
# part of make test. WORKERS (default 2) mutants run at once.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"
cd "$OPSLAB_ROOT"

gremlins=github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(chapters/[0-9][0-9]-*)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

summary=()
for dir in "${dirs[@]}"; do
	dir=${dir%/}
	echo "mutation: $dir"
	start=$(date +%s)
	# -E '/': only the files at the package's root, not those below it.
	go run "$gremlins" unleash -E '/' -S lt --workers "${WORKERS:-2}" \
		--timeout-coefficient 3 -o "$tmp/out.json" "./$dir" >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
	grep -E '^ *(LIVED|TIMED OUT) ' "$tmp/log" | sed "s|^ *|  |; s| at | at $dir/|" || true
	line=$(tr -d '\n' <"$tmp/out.json" | sed -E 's/.*"test_efficacy":([0-9.]+).*"mutants_total":([0-9]+),"mutants_killed":([0-9]+),"mutants_lived":([0-9]+),"mutants_not_viable":([0-9]+),"mutants_not_covered":([0-9]+).*/\3 \4 \6 \1/')
	read -r killed lived uncovered efficacy <<<"$line"
	timedout=$(grep -c '^ *TIMED OUT ' "$tmp/log" || true)
	summary+=("$(printf '%-28s %7s %6s %12s %10s %9.2f%% %6ss' "$dir" "$killed" "$lived" "$uncovered" "$timedout" "$efficacy" "$(($(date +%s) - start))")")
done
printf '%-28s %7s %6s %12s %10s %10s %7s\n' PACKAGE KILLED LIVED "NOT COVERED" "TIMED OUT" EFFICACY TIME
printf '%s\n' "${summary[@]}"
