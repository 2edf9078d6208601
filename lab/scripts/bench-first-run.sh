#!/usr/bin/env bash
# bench-first-run.sh is make bench-first-run: a learner's first make start,
# timed on empty caches, as a table. It runs in a copy of the checkout with
# a Go build cache, module cache and lab cache of its own (all empty), a
# cluster of its own (opslab-first-run, its own kubeconfig) and the site on
# a port of its own, so nothing of yours is used or touched; it removes them
# at the end. Run it on an idle machine: its figures are the README's.
#
# The rows: the modules downloaded (both modules' graphs, fetched before
# anything is compiled, so the table can tell network from CPU), the course
# answering at its address, each group of lab binaries, the cluster ready,
# and the demos compiled, and the machine's CPU seconds over the run.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"
"$OPSLAB_ROOT/lab/scripts/require-go.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/opslab-first-run.XXXXXX")
port=${BENCH_PORT:-18080}
export GOCACHE=$work/gocache GOMODCACHE=$work/gomod GOFLAGS=-modcacherw
export LAB_CACHE=$work/lab LAB_BIN_CACHE=$work/lab OPSLAB_CLUSTER=opslab-first-run KUBECONFIG=$work/kubeconfig
export SITE_ADDR=localhost:$port SITE_OUT=$work/site START_TIMES=$work/start.times LAB_BUILD_TIMES=$work/build.times
start_pid="" LAB_BIN_OF_RUN=""
cleanup() {
	[ -n "$start_pid" ] && kill "$start_pid" 2>/dev/null || true
	wait 2>/dev/null || true
	[ -z "$LAB_BIN_OF_RUN" ] || "$LAB_BIN_OF_RUN/kwokctl" delete cluster --name "$OPSLAB_CLUSTER" --kubeconfig "$KUBECONFIG" >/dev/null 2>&1 || true
	chmod -R u+w "$work" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "bench-first-run: copying the checkout"
mkdir -p "$work/repo"
(cd "$OPSLAB_ROOT" && git ls-files -z | xargs -0 cp --parents -t "$work/repo")
cd "$work/repo"
export OPSLAB_ROOT=$work/repo OPSLAB_CONTEXT=kwok-$OPSLAB_CLUSTER
. lab/scripts/versions.sh
LAB_BIN_OF_RUN=$LAB_BIN
: >"$START_TIMES"
: >"$LAB_BUILD_TIMES"

t0=$(date +%s.%N)
# The machine's CPU time (user, nice, system) from /proc/stat: the site and
# the cluster outlive the processes this script waits for.
machine_cpu() { awk '$1 == "cpu" { print $2 + $3 + $4 }' /proc/stat; }
cpu0=$(machine_cpu)
echo "bench-first-run: downloading the modules"
go mod download
(cd lab/tools && go mod download)
t_mod=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')

echo "bench-first-run: make start on empty caches (its output is in $work/start.log while it runs)"
t1=$(date +%s.%N)
lab/scripts/start.sh >"$work/start.log" 2>&1 &
start_pid=$!
while ! grep -q '^cluster ' "$START_TIMES"; do
	kill -0 "$start_pid" 2>/dev/null || { cat "$work/start.log" >&2; echo "bench-first-run: make start failed (log above)" >&2; exit 1; }
	sleep 1
done
# The demos: the site's second build writes one wasm per chapter that has a demo.
want=$(ls -d chapters/*/demo | wc -l)
until [ "$(ls "$SITE_OUT"/_demos/*.wasm 2>/dev/null | wc -l)" -ge "$want" ]; do
	kill -0 "$start_pid" 2>/dev/null || { cat "$work/start.log" >&2; echo "bench-first-run: the site stopped before its demos were built (log above)" >&2; exit 1; }
	sleep 1
done
t_demos=$(awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
kill "$start_pid" 2>/dev/null || true
wait "$start_pid" 2>/dev/null || true
start_pid=""
cpu=$(awk -v c0="$cpu0" -v c1="$(machine_cpu)" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.0f", (c1 - c0) / hz }')

site=$(awk '$1 == "site" { print $2 }' "$START_TIMES")
cluster=$(awk '$1 == "cluster" { print $2 }' "$START_TIMES")
printf '\nmake start on empty caches, %s cores (%s), Go %s, Kubernetes %s:\n' "$(nproc)" "$(uname -m)" "$(go env GOVERSION)" "$KUBE_VERSION"
printf '  %-44s %6s\n' "what" "seconds"
printf '  %-44s %6s\n' "modules downloaded (before make start)" "$t_mod"
printf '  %-44s %6s\n' "make start: the course answers" "$site"
while read -r group secs pkgs; do
	printf '  %-44s %6s\n' "  lab binaries: $group ($pkgs packages compiled)" "$secs"
done <"$LAB_BUILD_TIMES"
printf '  %-44s %6s\n' "make start: the cluster is ready" "$cluster"
printf '  %-44s %6s\n' "make start: every demo compiled" "$t_demos"
printf '  %-44s %6s\n' "the machine's CPU seconds over all of the above" "$cpu"
