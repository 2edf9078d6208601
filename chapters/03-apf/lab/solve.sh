#!/usr/bin/env bash
# solve.sh is the reference solution of chapter 3's lab (make solve-chapter-3).
# It works in namespace apf-lab and on cluster-scoped objects named
# apf-lab-*, prints each step, and waits only for the API server to take
# a new configuration (a second or two). It never overloads anything:
# every request it sends as the lab's accounts is refused (403) after the
# server has classified it, but for the operator's discovery request, which
# any account may make. The runaway operator runs one pass of its loop
# before the fix and one after, as its account (the learner may act as it,
# not ask for its token). Every step runs as the learner ($ctx, the
# context kwok-opslab by default), whose role allows each of them: this
# script is the proof that it suffices. Each step's output that the
# chapter's README shows is compared with lab/expected/ (expect, from
# lab/scripts/expect.sh), so the README cannot drift from a real run. It
# can run twice in a row: it starts by removing what an earlier run made.
set -euo pipefail
# The course's kubectl, whatever else is on the PATH (see make env).
. "$(dirname "${BASH_SOURCE[0]}")/../../../lab/scripts/versions.sh"
export PATH=$LAB_BIN:$PATH
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
ctx=${OPSLAB_CONTEXT:-kwok-opslab}
lab=chapters/03-apf/lab
work=$(mktemp -d)
k() { kubectl --context "$ctx" "$@"; }
. lab/scripts/expect.sh
step() { printf '\n== %s\n' "$*"; }
show() { printf '$ kubectl %s\n' "$*"; k "$@"; }
runaway=system:serviceaccount:apf-lab:runaway-operator

# schema_of USER ARGS... sends "kubectl get ARGS" as USER and prints the
# FlowSchema and priority level the server chose, from the response
# headers, mapped from UIDs to names.
schema_of() {
	local user=$1
	shift
	local headers fs pl
	headers=$(k --as="$user" get "$@" -v=8 2>&1 | grep -i '^\s*X-Kubernetes-Pf-' || true)
	fs=$(printf '%s\n' "$headers" | awk -F': ' 'tolower($1) ~ /flowschema-uid/ {print $2}' | tr -d '\r')
	pl=$(printf '%s\n' "$headers" | awk -F': ' 'tolower($1) ~ /prioritylevel-uid/ {print $2}' | tr -d '\r')
	if [ -z "$fs" ]; then
		echo "no X-Kubernetes-PF-FlowSchema-UID header in the answer" >&2
		return 1
	fi
	printf '%s\n' "$headers" | sed 's/^\s*/  /'
	printf '  flowschema %s, prioritylevel %s\n' \
		"$(k get flowschemas -o jsonpath="{.items[?(@.metadata.uid=='$fs')].metadata.name}")" \
		"$(k get prioritylevelconfigurations -o jsonpath="{.items[?(@.metadata.uid=='$pl')].metadata.name}")"
}

# whose UIDS... prints the kind and name of the FlowSchemas and levels
# whose UIDs the headers saved in a file name, as step 1 of the README.
whose() {
	k get flowschemas,prioritylevelconfigurations -o custom-columns=KIND:.kind,NAME:.metadata.name,UID:.metadata.uid --no-headers |
		grep -F -f <(awk '{print $2}' "$1" | tr -d '\r') | awk '{print $1, $2}'
}

# mine sends one request as the learner does in step 1, with the learner's
# own credentials, and names the schema and level its answer's headers give.
mine() {
	k get namespaces -v=8 2>&1 | grep -i 'x-kubernetes-pf-' | sed 's/^\s*//' >"$work/headers.txt"
	whose "$work/headers.txt"
}

# seats prints the server's nominal seats per level and the model's table.
seats() {
	# Only the lab's level and workload-low: a deleted level's gauge keeps
	# its last value, so other levels may linger in the metrics.
	k get --raw /metrics | grep -E '^apiserver_flowcontrol_nominal_limit_seats\{priority_level="(apf-lab-runaway|workload-low)"\}'
	go run ./chapters/03-apf/cmd/apfctl seats --context "$ctx"
}

# exempt_list prints every schema with its level and Dangling condition,
# and apfctl's exempt list.
exempt_list() {
	k get flowschemas -o custom-columns='NAME:.metadata.name,LEVEL:.spec.priorityLevelConfiguration.name,DANGLING:.status.conditions[?(@.type=="Dangling")].status' |
		grep -E '^(NAME|apf-lab-)'
	go run ./chapters/03-apf/cmd/apfctl exempt --context "$ctx"
}

# wait_for_schema NAME USER ARGS... waits until the server classifies the
# request into FlowSchema NAME: its configuration controller takes new
# objects within moments, not at once.
wait_for_schema() {
	local want=$1 uid answer
	shift
	uid=$(k get flowschema "$want" -o jsonpath='{.metadata.uid}')
	for _ in $(seq 50); do
		answer=$(k --as="$1" get "${@:2}" -v=8 2>&1 || true)
		if grep -qi "X-Kubernetes-Pf-Flowschema-Uid: $uid" <<<"$answer"; then
			return 0
		fi
		sleep 0.2
	done
	echo "the server still does not classify into $want" >&2
	return 1
}

step "0. a clean start: namespace apf-lab and its account, no apf-lab-* schemas or levels"
for fs in apf-lab-runaway apf-lab-tie-a apf-lab-tie-b apf-lab-exempt-probe; do k delete flowschema "$fs" --ignore-not-found >/dev/null; done
k delete prioritylevelconfiguration apf-lab-runaway --ignore-not-found >/dev/null
show apply -f $lab/setup.yaml

step "1. your own request: its schema and level, from the answer's headers"
printf '$ kubectl get namespaces -v=8 | grep x-kubernetes-pf- (and the UIDs looked up)\n'
expect mine mine

step "2. the runaway operator, one pass under its own account: where it lands (403, but classified first)"
printf '$ runaway-operator --context %s --passes 1\n' "$ctx"
expect runaway-before go run ./chapters/03-apf/cmd/runaway-operator --context "$ctx" --passes 1

step "3. a narrow level and a schema for the runaway operator's account"
show apply -f $lab/runaway-level.yaml -f $lab/runaway-schema.yaml
wait_for_schema apf-lab-runaway "$runaway" configmaps -n apf-lab
printf '$ runaway-operator --context %s --passes 1\n' "$ctx"
expect runaway-after go run ./chapters/03-apf/cmd/runaway-operator --context "$ctx" --passes 1
printf '$ apfctl classify --context %s --user %s --verb list --resource configmaps -n apf-lab\n' "$ctx" "$runaway"
expect classify go run ./chapters/03-apf/cmd/apfctl classify --context "$ctx" --user "$runaway" --verb list --resource configmaps -n apf-lab

step "4. two schemas of equal precedence for apf-lab/tie-probe: the first name wins"
show apply -f $lab/tie.yaml
wait_for_schema apf-lab-tie-a system:serviceaccount:apf-lab:tie-probe pods -n apf-lab
printf '$ apfctl classify --context %s --user system:serviceaccount:apf-lab:tie-probe --verb list --resource pods -n apf-lab\n' "$ctx"
expect tie go run ./chapters/03-apf/cmd/apfctl classify --context "$ctx" --user system:serviceaccount:apf-lab:tie-probe --verb list --resource pods -n apf-lab

step "5. the seats: the server's metric and the model's table"
printf '$ kubectl get --raw /metrics | grep the nominal seats of apf-lab-runaway and workload-low; apfctl seats\n'
expect seats seats

step "6. the exempt list, and schemas that dangle"
# The configuration controller classifies by a new schema before it writes
# the schema's Dangling condition: wait for the condition, as a reader who
# types the command a few seconds later sees it. It writes a name's status
# at most six times a minute and puts a seventh off by 30 to 74 s
# (shouldDelayUpdate in apf_controller.go), which a run right after the
# cheat tests, or a third run of this script within the minute, meets.
if ! k wait --for=condition=Dangling=False flowschema/apf-lab-runaway flowschema/apf-lab-tie-a flowschema/apf-lab-tie-b --timeout=5s >/dev/null 2>&1; then
	echo "(the server has put off writing the schemas' status: it writes a name's at most six times a minute; waiting up to 90 s)" >&2
	k wait --for=condition=Dangling=False flowschema/apf-lab-runaway flowschema/apf-lab-tie-a flowschema/apf-lab-tie-b --timeout=90s >/dev/null
fi
printf '$ kubectl get flowschemas -o custom-columns=NAME,LEVEL,DANGLING | grep apf-lab-; apfctl exempt\n'
expect exempt exempt_list

step "7. a schema of your own pointed at exempt, and deleted again (the watcher's step)"
show apply -f $lab/exempt-probe.yaml
show delete -f $lab/exempt-probe.yaml
