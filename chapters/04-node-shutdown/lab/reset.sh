#!/usr/bin/env bash
# reset.sh undoes chapter 4's lab: it powers the shutdown pool's nodes back on,
# removes the out-of-service taint, deletes the namespace shutdown-lab and then
# the database's PriorityClass, which db.yaml creates outside the namespace.
set -euo pipefail
# The course's kubectl, whatever else is on the PATH (see make env).
. "$(dirname "${BASH_SOURCE[0]}")/../../../lab/scripts/versions.sh"
export PATH=$LAB_BIN:$PATH
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
ctx=${OPSLAB_CONTEXT:-kwok-opslab}
k() { kubectl --context "$ctx" "$@"; }
for n in $(k get nodes -l opslab.dev/pool=shutdown -o jsonpath='{.items[*].metadata.name}'); do
	if [ "$(k get node "$n" -o jsonpath='{.metadata.labels.opslab\.dev/power}')" = off ]; then
		echo "reset.sh: powering $n on"
		"$root/lab/scripts/power.sh" on "$n"
	fi
	if k get node "$n" -o jsonpath='{.spec.taints[*].key}' | tr ' ' '\n' | grep -qx node.kubernetes.io/out-of-service; then
		echo "reset.sh: removing the out-of-service taint from $n"
		k taint node "$n" node.kubernetes.io/out-of-service-
	fi
done
echo "reset.sh: deleting namespace shutdown-lab"
k delete namespace shutdown-lab --ignore-not-found --wait=true
echo "reset.sh: deleting PriorityClass opslab-database"
k delete priorityclass opslab-database --ignore-not-found
