#!/usr/bin/env bash
# bench.sh times the zone-outage lab's scale cluster coming up (make
# outage-up, warm binaries: the cluster, 150 nodes Ready, a pod running on
# each) against a raw kwokctl create cluster with kwokctl scale node
# --replicas 150 and a wait for the nodes to be Ready, over several runs
# (RUNS, default 3), and prints the medians and their ratio. It uses a
# cluster of its own, opslab-bench-scale, and its own kubeconfig.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../../../../lab/scripts/versions.sh"
runs=${RUNS:-3}
export PATH=$LAB_BIN:$PATH KWOK_KUBE_VERSION=$KUBE_VERSION KWOK_KUBECTL_BINARY=$LAB_BIN/kubectl
export OPSLAB_SCALE_CLUSTER=opslab-bench-scale KUBECONFIG=$LAB_CACHE/opslab-bench-scale.kubeconfig
down() { "$here/down.sh" >/dev/null 2>&1 || true; }
trap 'down; rm -f "$KUBECONFIG"' EXIT
down
go build -o "$LAB_CACHE/outage" "$OPSLAB_ROOT/chapters/02-taints/cmd/outage"

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ours=() raw=()
for i in $(seq "$runs"); do
	t0=$(now)
	"$here/up.sh" >/dev/null
	t1=$(now)
	down
	t2=$(now)
	kwokctl create cluster --runtime binary --name "$OPSLAB_SCALE_CLUSTER" --kubeconfig "$KUBECONFIG" \
		--kube-apiserver-binary "$LAB_BIN/kube-apiserver" \
		--kube-controller-manager-binary "$LAB_BIN/kube-controller-manager" \
		--kube-scheduler-binary "$LAB_BIN/kube-scheduler" \
		--kwok-controller-binary "$LAB_BIN/kwok" --etcd-binary "$LAB_BIN/etcd" --wait 2m >/dev/null 2>&1
	kwokctl scale node --name "$OPSLAB_SCALE_CLUSTER" --replicas 150 >/dev/null 2>&1
	kubectl --context "kwok-$OPSLAB_SCALE_CLUSTER" wait --for=condition=Ready node --all --timeout=2m >/dev/null
	t3=$(now)
	down
	ours+=("$(awk "BEGIN{print $t1 - $t0}")") raw+=("$(awk "BEGIN{print $t3 - $t2}")")
	printf 'run %d: outage-up %.2fs, raw kwokctl and 150 nodes %.2fs\n' "$i" "${ours[-1]}" "${raw[-1]}"
done
mo=$(printf '%s\n' "${ours[@]}" | median)
mr=$(printf '%s\n' "${raw[@]}" | median)
printf 'median of %d runs: outage-up %.2fs, raw kwokctl create cluster and scale node 150 %.2fs, ratio %.2f\n' "$runs" "$mo" "$mr" "$(awk "BEGIN{print $mo / $mr}")"
