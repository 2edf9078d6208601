#!/usr/bin/env bash
# solve.sh is the reference solution of chapter 2's lab (make solve-chapter-2).
# It starts the lab from scratch in namespace taints-lab on nodes
# taints-1..3 (lab/reset.sh first, so it runs twice in a row), prints each
# step, and waits only for what it must: the workloads to be Ready, queue
# and dispatcher to be gone, db to roll out. Its seventh step runs the reference
# answer to the exercise, lab/mytimetable. The outputs the README quotes go
# through expect (lab/scripts/expect.sh), which checks them against
# lab/expected/ under OPSLAB_EXPECT=check.
#
# Every step is the learner's, in the learner's context (OPSLAB_CONTEXT,
# kwok-opslab: user opslab:learner, the role of lab/learner.yaml), which
# proves that role suffices for the lab; only the reset acts as the admin
# (OPSLAB_ADMIN_CONTEXT, kwok-opslab-admin).
set -euo pipefail
# The course's kubectl, whatever else is on the PATH (see make env).
. "$(dirname "${BASH_SOURCE[0]}")/../../../lab/scripts/versions.sh"
export PATH=$LAB_BIN:$PATH
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
ctx=${OPSLAB_CONTEXT:-kwok-opslab}
admin=${OPSLAB_ADMIN_CONTEXT:-$ctx-admin}
lab=chapters/02-taints/lab
. lab/scripts/expect.sh
k() { kubectl --context "$ctx" "$@"; }
# onnode lists the lab's pods on one node, in columns that do not move
# between runs.
onnode() { k -n taints-lab get pods -o custom-columns=POD:.metadata.name,NODE:.spec.nodeName --field-selector "spec.nodeName=$1"; }
step() { printf '\n== %s\n' "$*"; }
show() { printf '$ kubectl %s\n' "$*"; k "$@"; }

step "0. a clean start: the chapter's taints off taints-1..3, namespace taints-lab anew"
OPSLAB_CONTEXT=$ctx OPSLAB_ADMIN_CONTEXT=$admin "$lab/reset.sh" >/dev/null

step "the lab: the namespace, then the story's workloads: cache, agent, queue, session, dispatcher and the StatefulSet db"
show apply -f $lab/namespace.yaml
show -n taints-lab wait --for=create serviceaccount/default --timeout=30s
show apply -f $lab/pods.yaml -f $lab/db.yaml
k -n taints-lab rollout status deployment/cache --timeout=60s >/dev/null
k -n taints-lab rollout status statefulset/db --timeout=60s >/dev/null
k -n taints-lab wait --for=condition=Ready pod --all --timeout=60s >/dev/null
expect setup-pods k -n taints-lab get pods -o custom-columns=POD:.metadata.name,NODE:.spec.nodeName

step "1. the cache's pod wrote no toleration; admission added two of 300 s"
expect step1-cache k -n taints-lab get pods -l app=cache -o jsonpath='{range .items[*].spec.tolerations[*]}{.key}{" "}{.operator}{" "}{.effect}{" "}{.tolerationSeconds}{"\n"}{end}'

step "2. maintenance announced on taints-2 (NoSchedule): queue, which does not tolerate it, keeps running"
show taint node taints-2 opslab.dev/maintenance=firmware:NoSchedule
expect step2-taints-2 onnode taints-2

step "3. maintenance begins on taints-2 (NoExecute): queue tolerates a kernel patch only and leaves at once; agent tolerates every taint and stays"
show taint node taints-2 opslab.dev/maintenance=firmware:NoExecute
k -n taints-lab wait --for=delete pod/queue --timeout=30s >/dev/null
expect step3-taints-2 onnode taints-2

step "4. the timetable for taints-3 before its switch reboots"
printf '$ timetable --context %s -n taints-lab --node taints-3 opslab.dev/link-down:NoExecute\n' "$ctx"
expect step4-timetable go run ./chapters/02-taints/cmd/timetable --context "$ctx" -n taints-lab --node taints-3 opslab.dev/link-down:NoExecute

step "5. the switch reboots: dispatcher leaves after 30 s, session stays"
show taint node taints-3 opslab.dev/link-down=rack-switch:NoExecute
start=$SECONDS
k -n taints-lab wait --for=delete pod/dispatcher --timeout=60s >/dev/null
echo "dispatcher was gone $((SECONDS - start)) s after the taint"
expect step5-events k -n taints-lab get events --field-selector reason=TaintManagerEviction,involvedObject.name=dispatcher -o custom-columns=POD:.involvedObject.name,FROM:.source.component,MESSAGE:.message
expect step5-taints-3 onnode taints-3

step "6. db chooses its own value from the story, and says why on the object"
show -n taints-lab patch statefulset db --patch-file $lab/db-patch.yaml
k -n taints-lab rollout status statefulset/db --timeout=60s >/dev/null
expect step6-db k -n taints-lab get pod db-0 -o jsonpath='{range .spec.tolerations[*]}{.key}{" "}{.effect}{" "}{.tolerationSeconds}{"\n"}{end}'

step "7. a timetable of our own, of the story's night: the real unreachable taint, recorded for the check"
printf '$ go run ./chapters/02-taints/lab/mytimetable --context %s node.kubernetes.io/unreachable:NoExecute\n' "$ctx"
out=$(go run ./chapters/02-taints/lab/mytimetable --context "$ctx" node.kubernetes.io/unreachable:NoExecute)
expect step7-mytimetable printf '%s\n' "$out"
k -n taints-lab create configmap my-timetable --from-literal=taint=node.kubernetes.io/unreachable:NoExecute \
	--from-literal=out="$out" --dry-run=client -o yaml | k apply -f - >/dev/null

step "part two: the zone-outage lab: 150 nodes in three zones, six outages, each against the model"
if [ "${OPSLAB_SOLVE_LATER:-}" = defer ]; then
	echo "(deferred: make test runs lab/later.sh beside this lane)"
	exit 0
fi
OPSLAB_CONTEXT=$ctx OPSLAB_ADMIN_CONTEXT=$admin "$lab/later.sh"
