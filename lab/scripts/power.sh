#!/usr/bin/env bash
# power.sh powers a lab node off or back on.
#
#   power.sh off NODE   the node is held Ready=False (the node lifecycle
#                       controller then taints it not-ready), and its pods,
#                       once deleted, stay Terminating: nothing on a node
#                       without power finishes a deletion.
#   power.sh on NODE    the node reports Ready again and its pods' pending
#                       deletions finish.
#
# Both are marks that the lab cluster's stages (lab/kwokctl.yaml) act on: the
# label opslab.dev/power=off on the node and on each of its pods.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"
export PATH=$LAB_BIN:$PATH
# The power switch is the lab's, not the learner's: it acts as the admin.
ctx=${OPSLAB_CONTEXT:-kwok-${OPSLAB_CLUSTER:-opslab}}
ctx=${OPSLAB_ADMIN_CONTEXT:-${ctx%-admin}-admin}
usage() { echo "usage: power.sh off|on NODE" >&2; exit 2; }
[ $# -eq 2 ] || usage
action=$1 node=$2
k() { kubectl --context "$ctx" "$@"; }
k get node "$node" >/dev/null 2>&1 || { echo "power: no node named $node in context $ctx; kubectl get nodes lists them" >&2; exit 1; }
pods() { k get pods -A --field-selector "spec.nodeName=$node" -o jsonpath='{range .items[*]}{.metadata.namespace}{" "}{.metadata.name}{"\n"}{end}'; }
case $action in
off)
	k label node "$node" opslab.dev/power=off --overwrite >/dev/null
	pods | while read -r ns pod; do
		[ -n "$pod" ] && k -n "$ns" label pod "$pod" opslab.dev/power=off --overwrite >/dev/null
	done
	echo "power: $node is off; its pods will stay Terminating once deleted"
	;;
on)
	pods | while read -r ns pod; do
		[ -n "$pod" ] && k -n "$ns" label pod "$pod" opslab.dev/power- >/dev/null 2>&1 || true
	done
	k label node "$node" opslab.dev/power- >/dev/null
	echo "power: $node is on"
	;;
*) usage ;;
esac
