#!/usr/bin/env bash
# differential.sh N runs chapter N's randomized differentials at length: the
# tests named TestDifferential* that compare the chapter's model with the lab
# cluster or with upstream's own code, on scenarios drawn from a seed.
#
# Environment: SEED (default random: the tests pick one and print it, so a
# failure can be replayed with SEED=that), CASES (default 500), and the
# cluster of OPSLAB_CONTEXT / KUBECONFIG, as for every end-to-end test. A
# mismatch is shrunk to a minimal scenario and written under the chapter's
# testdata/differential/; TestDifferentialReplay runs those files alone.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"
cd "$OPSLAB_ROOT"

n=${1:-}
dir=$(ls -d chapters/0"$n"-*/ 2>/dev/null | head -1 || true)
if [ -z "$n" ] || [ -z "$dir" ]; then
	echo "differential: there is no chapter '${n}'; the chapters are $(ls chapters | paste -sd' ')" >&2
	exit 2
fi
export OPSLAB_DIFF_SEED=${SEED:-random} OPSLAB_DIFF_CASES=${CASES:-500}
echo "differential: chapter $n, $OPSLAB_DIFF_CASES cases, seed $OPSLAB_DIFF_SEED"

# Only the packages that hold a TestDifferential, each in its module (the
# chapter's, or a nested one that reaches upstream code): go test says "no
# tests to run" of every other package, which buried chapter 4's, the only
# one in its nested module.
dir=${dir%/}
nested=$(find "$dir" -mindepth 2 -name go.mod -printf '%h\n' | sort)
declare -A pkgs=()
for f in $(grep -rl --include='*_test.go' '^func TestDifferential' "$dir" | sort); do
	mod=. pkg=$(dirname "$f")
	for m in $nested; do
		case $pkg/ in "$m"/*) mod=$m ;; esac
	done
	if [ "$mod" = . ]; then pkgs[$mod]+=" ./$pkg"; else pkgs[$mod]+=" .${pkg#"$mod"}"; fi
done
if [ ${#pkgs[@]} -eq 0 ]; then
	echo "differential: chapter $n has no TestDifferential" >&2
	exit 1
fi
status=0
for mod in $(printf '%s\n' "${!pkgs[@]}" | sort); do
	echo "differential: in module $mod:${pkgs[$mod]}"
	(cd "$mod" && go test -tags e2e -count=1 -timeout 60m -run 'Differential' -v ${pkgs[$mod]}) || status=1
done
exit $status
