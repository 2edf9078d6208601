#!/usr/bin/env bash
# lab-down.sh removes the lab cluster and its kubectl contexts (the
# learner's and the admin's). Removing a
# cluster that is not there is not an error.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"
name=${OPSLAB_CLUSTER:-opslab}
kwokctl=$LAB_BIN/kwokctl
if [ ! -x "$kwokctl" ] || ! lab_cluster_listed "$name"; then
	echo "lab-down: no cluster named $name is up; nothing to do"
	exit 0
fi
kubeconfig_args=()
[ -n "${KUBECONFIG:-}" ] && kubeconfig_args=(--kubeconfig "${KUBECONFIG%%:*}")
PATH=$LAB_BIN:$PATH lab_learner_forget "kwok-$name" "${kubeconfig_args[@]}"
PATH=$LAB_BIN:$PATH "$kwokctl" delete cluster --name "$name" "${kubeconfig_args[@]}" >/dev/null 2>&1 ||
	{ echo "lab-down: kwokctl could not delete cluster $name; run $kwokctl delete cluster --name $name to see why" >&2; exit 1; }
echo "lab-down: removed cluster $name"
