#!/usr/bin/env bash
# up.sh starts the zone-outage lab's scale cluster, opslab-scale (or
# $OPSLAB_CLUSTER-scale, or $OPSLAB_SCALE_CLUSTER), next to the learner's
# opslab cluster, its context kwok-opslab-scale in the same kubeconfig: the course's
# control plane with the node lifecycle controller's settings of
# kwokctl.yaml here, 150 kwok nodes in three zones (90, 45 and 15 nodes) and
# one pod on each. It reuses the cluster when it is already running.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../../../../lab/scripts/versions.sh"
export PATH=$LAB_BIN:$PATH
name=${OPSLAB_SCALE_CLUSTER:-${OPSLAB_CLUSTER:-opslab}-scale}
kubeconfig_args=()
[ -n "${KUBECONFIG:-}" ] && kubeconfig_args=(--kubeconfig "${KUBECONFIG%%:*}")
start=$SECONDS
[ -x "$LAB_BIN/kwokctl" ] || "$OPSLAB_ROOT/lab/scripts/build-binaries.sh"
mkdir -p "$LAB_CACHE"
go build -o "$LAB_CACHE/outage" "$OPSLAB_ROOT/chapters/02-taints/cmd/outage"
if lab_cluster_listed "$name"; then
	echo "outage-up: cluster $name exists; starting it if stopped"
	kwokctl start cluster --name "$name" >/dev/null 2>&1 || true
else
	echo "outage-up: creating cluster $name"
	# kwokctl makes the new cluster the kubeconfig's current context; the
	# learner's stays theirs (see the restore below).
	previous=$(kubectl config current-context 2>/dev/null || true)
	kwokctl_create --name "$name" "${kubeconfig_args[@]}" --config "$here/kwokctl.yaml" \
		--kube-audit-policy "$here/audit-policy.yaml" --wait 2m >"$LAB_CACHE/$name-create.log" 2>&1 || {
		echo "outage-up: kwokctl could not create cluster $name; see $LAB_CACHE/$name-create.log and ~/.kwok/clusters/$name/logs" >&2
		exit 1
	}
	[ -n "$previous" ] && kubectl config use-context "$previous" >/dev/null
fi
echo "outage-up: creating 150 nodes and their pods"
"$LAB_CACHE/outage" --context "kwok-$name" populate
echo "outage-up: $name is ready with 150 nodes in $((SECONDS - start)) s; make outage runs the experiments"
