#!/usr/bin/env bash
# reset.sh undoes chapter 4's lab: it powers the shutdown pool's nodes back on,
# removes the out-of-service taint, deletes the namespace shutdown-lab and then
# the database's PriorityClass, which db.yaml creates outside the namespace.
# Last it waits until the node lifecycle controller has seen the nodes Ready
# and taken its not-ready and unreachable taints off them: a taint left from
# this run would still be there when the next run powers a node off, and the
# controller, which adds a taint only where there is none, would not mark the
# node again; the checks look for that mark.
#
# It acts as the admin (OPSLAB_ADMIN_CONTEXT, by default the learner's
# context OPSLAB_CONTEXT with -admin added): undoing a lab is the lab's job,
# and the power switch is not the learner's.
set -euo pipefail
# The course's kubectl, whatever else is on the PATH (see make env).
. "$(dirname "${BASH_SOURCE[0]}")/../../../lab/scripts/versions.sh"
export PATH=$LAB_BIN:$PATH
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
ctx=${OPSLAB_CONTEXT:-kwok-opslab}
admin=${OPSLAB_ADMIN_CONTEXT:-${ctx%-admin}-admin}
k() { kubectl --context "$admin" "$@"; }
nodes=$(k get nodes -l opslab.dev/pool=shutdown -o jsonpath='{.items[*].metadata.name}')
for n in $nodes; do
	if [ "$(k get node "$n" -o jsonpath='{.metadata.labels.opslab\.dev/power}')" = off ]; then
		echo "reset.sh: powering $n on"
		OPSLAB_CONTEXT="$ctx" OPSLAB_ADMIN_CONTEXT="$admin" "$root/lab/scripts/power.sh" on "$n"
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

# controller_taints NODE prints the node lifecycle controller's taints on NODE
# and, while the node is not Ready, a line saying so.
controller_taints() {
	k get node "$1" -o jsonpath='{range .spec.taints[*]}{.key}{"\n"}{end}' | grep -E '^node\.kubernetes\.io/(not-ready|unreachable)$' || true
	[ "$(k get node "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" = True ] || echo "not Ready"
}
for n in $nodes; do
	# The controller looks at each node every node-monitor period (25 s under
	# kwokctl); two periods and some slack.
	for ((i = 0; ; i++)); do
		left=$(controller_taints "$n")
		[ -z "$left" ] && break
		if [ $i -ge 90 ]; then
			echo "reset.sh: $n still has, after 90 s: $(echo $left); is kube-controller-manager running?" >&2
			exit 1
		fi
		[ $i -eq 0 ] && echo "reset.sh: waiting for the node lifecycle controller to clear $n ($(echo $left))"
		sleep 1
	done
done
echo "reset.sh: the shutdown pool is Ready and untainted"
