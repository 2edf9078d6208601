#!/usr/bin/env bash
# bench-lab.sh times make lab-up (warm binaries: build check, create, nodes,
# wait for them Ready) against a raw kwokctl create cluster with the same
# binaries and configuration, over several runs, and prints the medians and
# their ratio. It uses a cluster of its own, opslab-bench, and its own
# kubeconfig.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"
runs=${RUNS:-5}
"$OPSLAB_ROOT/lab/scripts/build-binaries.sh" >/dev/null
export PATH=$LAB_BIN:$PATH KWOK_KUBE_VERSION=$KUBE_VERSION KWOK_KUBECTL_BINARY=$LAB_BIN/kubectl
export OPSLAB_CLUSTER=opslab-bench KUBECONFIG=$LAB_CACHE/opslab-bench.kubeconfig
trap '"$OPSLAB_ROOT/lab/scripts/lab-down.sh" >/dev/null 2>&1 || true; rm -f "$KUBECONFIG"' EXIT
"$OPSLAB_ROOT/lab/scripts/lab-down.sh" >/dev/null

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ours=() raw=()
for i in $(seq "$runs"); do
	t0=$(now)
	"$OPSLAB_ROOT/lab/scripts/lab-up.sh" >/dev/null
	t1=$(now)
	"$OPSLAB_ROOT/lab/scripts/lab-down.sh" >/dev/null
	t2=$(now)
	kwokctl_create --name "$OPSLAB_CLUSTER" --kubeconfig "$KUBECONFIG" --wait 2m >/dev/null 2>&1
	t3=$(now)
	"$OPSLAB_ROOT/lab/scripts/lab-down.sh" >/dev/null
	ours+=("$(awk "BEGIN{print $t1 - $t0}")") raw+=("$(awk "BEGIN{print $t3 - $t2}")")
	printf 'run %d: lab-up %.2fs, raw kwokctl %.2fs\n' "$i" "${ours[-1]}" "${raw[-1]}"
done
mo=$(printf '%s\n' "${ours[@]}" | median)
mr=$(printf '%s\n' "${raw[@]}" | median)
printf 'median of %d runs: lab-up %.2fs, raw kwokctl create cluster %.2fs, ratio %.2f\n' "$runs" "$mo" "$mr" "$(awk "BEGIN{print $mo / $mr}")"
