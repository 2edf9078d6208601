#!/usr/bin/env bash
# The reference solution of chapter 1's lab: every step of the README, in
# order, ending in the state the checks expect (pdb-3 drained, ledger running
# with room for one disruption under a budget that still protects it).
# It can be run twice in a row: it starts from lab/reset.sh. The outputs
# the README quotes go through expect (lab/scripts/expect.sh), which checks
# them against lab/expected/ under OPSLAB_EXPECT=check.
#
# Every step runs as the learner (OPSLAB_CONTEXT, kwok-opslab by default),
# whose role (lab/learner.yaml) is all the lab needs; only lab/reset.sh, at
# the start, acts as the admin (OPSLAB_ADMIN_CONTEXT).
set -euo pipefail
# The course's kubectl, whatever else is on the PATH (see make env).
. "$(dirname "${BASH_SOURCE[0]}")/../../../lab/scripts/versions.sh"
export PATH=$LAB_BIN:$PATH

ctx="${OPSLAB_CONTEXT:-kwok-opslab}"
admin="${OPSLAB_ADMIN_CONTEXT:-$ctx-admin}"
lab="$(cd "$(dirname "$0")" && pwd)"
. "$lab/../../../lab/scripts/expect.sh"
k() { kubectl --context "$ctx" "$@"; }
status() { k -n pdb-lab get pdb ledger -o custom-columns=NAME:.metadata.name,MIN:.spec.minAvailable,HEALTHY:.status.currentHealthy,ALLOWED:.status.disruptionsAllowed; }
placed() { k -n pdb-lab get pods --sort-by=.spec.nodeName -o 'custom-columns=NODE:.spec.nodeName,READY:.status.conditions[?(@.type=="Ready")].status'; }
step() { printf '\n== %s\n' "$*"; }
run() { printf '$ kubectl %s\n' "$*"; k "$@"; }

step "0. Start from a clean lab"
OPSLAB_CONTEXT=$ctx OPSLAB_ADMIN_CONTEXT=$admin "$lab/reset.sh"

step "1. The application and its budget"
run apply -f "$lab/namespace.yaml" -f "$lab/ledger.yaml" -f "$lab/budget.yaml"
run -n pdb-lab rollout status deployment/ledger --timeout=2m
run -n pdb-lab wait pdb/ledger --for=jsonpath='{.status.currentHealthy}'=4 --timeout=1m
expect pdb-step1 status

step "2. Drain pdb-1 and pdb-2: each eviction waits for the previous replacement to be Ready"
run drain pdb-1 pdb-2 --ignore-daemonsets --delete-emptydir-data --timeout=3m
run -n pdb-lab rollout status deployment/ledger --timeout=2m
expect pdb-step2 placed

step "3. The maintenance is over"
run uncordon pdb-1 pdb-2

step "4. A budget as strict as the replica count: the drain of pdb-3 stalls"
run -n pdb-lab patch pdb ledger --type merge -p '{"spec":{"minAvailable":4}}'
run -n pdb-lab wait pdb/ledger --for=jsonpath='{.status.desiredHealthy}'=4 --timeout=1m
expect pdb-step4 status
if run drain pdb-3 --ignore-daemonsets --delete-emptydir-data --timeout=30s; then
  echo "solve.sh: the drain of pdb-3 finished under minAvailable 4; the lab expected it to stall" >&2
  exit 1
fi
echo "(as expected: every eviction was refused with 429 until the timeout)"

step "5. The repair: one more replica, not a looser promise"
run -n pdb-lab scale deployment/ledger --replicas=5
run -n pdb-lab rollout status deployment/ledger --timeout=2m
run drain pdb-3 --ignore-daemonsets --delete-emptydir-data --timeout=3m
run -n pdb-lab rollout status deployment/ledger --timeout=2m
run -n pdb-lab wait pdb/ledger --for=jsonpath='{.status.disruptionsAllowed}'=1 --timeout=1m
expect pdb-step5 status
run -n pdb-lab get pods -o wide
