#!/usr/bin/env bash
# solve.sh is the reference solution of chapter 4's lab (make solve-chapter-4).
#
# 1. Run the database, db-0, on the shutdown pool.
# 2. Power off the node it runs on; db-0 is marked for deletion and stays
#    Terminating, because nothing on that node can finish the deletion.
# 3. Confirm the node is off, then taint it node.kubernetes.io/out-of-service:
#    the pod GC force-deletes db-0 and the StatefulSet recreates it elsewhere.
# 4. Submit the graceful-shutdown configuration (ConfigMap kubelet-shutdown).
#
# It runs every step as the learner (OPSLAB_CONTEXT); only the power switch,
# which is the lab's and not the learner's, runs as the admin
# (OPSLAB_ADMIN_CONTEXT, by default the learner's context with -admin added).
#
# It is idempotent: run again on a solved cluster, it changes nothing. The
# outputs the README quotes go through expect (lab/scripts/expect.sh), which
# checks them against lab/expected/ under OPSLAB_EXPECT=check.
set -euo pipefail
# The course's kubectl, whatever else is on the PATH (see make env).
. "$(dirname "${BASH_SOURCE[0]}")/../../../lab/scripts/versions.sh"
export PATH=$LAB_BIN:$PATH
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
lab=$here
. "$root/lab/scripts/expect.sh"
ctx=${OPSLAB_CONTEXT:-kwok-opslab}
admin=${OPSLAB_ADMIN_CONTEXT:-${ctx%-admin}-admin}
ns=shutdown-lab
k() { kubectl --context "$ctx" "$@"; }
say() { echo "solve-chapter-4: $*"; }
taint=node.kubernetes.io/out-of-service

# wait_for SECONDS DESCRIPTION COMMAND...: run COMMAND every second until it succeeds.
wait_for() {
	local limit=$1 what=$2; shift 2
	for ((i = 0; i < limit; i++)); do
		if "$@" >/dev/null 2>&1; then return 0; fi
		sleep 1
	done
	echo "solve-chapter-4: gave up after ${limit}s waiting for $what" >&2
	exit 1
}
db_field() { k -n $ns get pod db-0 -o jsonpath="$1" 2>/dev/null; }
db_running_on() { [ "$(db_field '{.metadata.deletionTimestamp}')" = "" ] && [ "$(db_field '{.spec.nodeName}')" = "$1" ] && [ "$(db_field '{.status.conditions[?(@.type=="Ready")].status}')" = "True" ]; }
db_running_elsewhere() { local n; n=$(db_field '{.spec.nodeName}'); [ -n "$n" ] && [ "$n" != "$1" ] && db_running_on "$n"; }
db_terminating() { [ -n "$(db_field '{.metadata.deletionTimestamp}')" ]; }
node_ready() { k get node "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}'; }
has_taint() { k get node "$1" -o jsonpath='{.spec.taints[*].key}' | tr ' ' '\n' | grep -qx "$taint"; }

say "applying lab/db.yaml (namespace $ns, StatefulSet db)"
k apply -f "$here/db.yaml"

# A node of the pool that is already off and tainted means the first part is done.
done_node=""
for n in $(k get nodes -l opslab.dev/pool=shutdown -o jsonpath='{.items[*].metadata.name}'); do
	if [ "$(k get node "$n" -o jsonpath='{.metadata.labels.opslab\.dev/power}')" = off ] && has_taint "$n"; then done_node=$n; fi
done
if [ -n "$done_node" ]; then
	say "$done_node is already off and tainted out-of-service; waiting for db-0 on another node"
	wait_for 90 "db-0 Running and Ready on a node other than $done_node" db_running_elsewhere "$done_node"
else
	say "waiting for db-0 to run"
	wait_for 90 "db-0 to be scheduled" test -n "$(db_field '{.spec.nodeName}')"
	node=$(db_field '{.spec.nodeName}')
	wait_for 90 "db-0 Running and Ready on $node" db_running_on "$node"
	expect shutdown-step1 k -n $ns get pods -o 'custom-columns=NAME:.metadata.name,READY:.status.conditions[?(@.type=="Ready")].status'
	say "db-0 runs on $node; powering $node off"
	OPSLAB_CONTEXT="$ctx" OPSLAB_ADMIN_CONTEXT="$admin" "$root/lab/scripts/power.sh" off "$node"
	say "waiting for the node lifecycle controller's NoExecute taint to mark db-0 for deletion"
	wait_for 150 "db-0 to be Terminating" db_terminating
	say "db-0 is Terminating and stays so: no kubelet on $node will finish the deletion"
	expect shutdown-step2 k get node "$node" -o 'custom-columns=READY:.status.conditions[?(@.type=="Ready")].status,TAINTS:.spec.taints[*].key,EFFECTS:.spec.taints[*].effect'
	say "confirming $node is off: Ready=$(node_ready "$node")"
	[ "$(node_ready "$node")" != True ] || { echo "solve-chapter-4: $node is Ready; it must be off before it is tainted" >&2; exit 1; }
	say "tainting $node $taint=nodeshutdown:NoExecute"
	k taint node "$node" "$taint=nodeshutdown:NoExecute"
	say "waiting for the pod GC (every 20 s) to force-delete db-0 and the StatefulSet to recreate it"
	wait_for 90 "db-0 Running and Ready on a node other than $node" db_running_elsewhere "$node"
	expect shutdown-step3 k -n $ns get pods -o 'custom-columns=NAME:.metadata.name,READY:.status.conditions[?(@.type=="Ready")].status,DELETING:.metadata.deletionTimestamp'
fi
say "db-0 now runs on $(db_field '{.spec.nodeName}')"

say "submitting the graceful-shutdown configuration (ConfigMap kubelet-shutdown)"
k apply -f "$here/kubelet-shutdown.yaml"
say "done; make check-chapter-4 checks it"
