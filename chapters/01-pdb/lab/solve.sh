#!/usr/bin/env bash
# The reference solution of chapter 1's lab: every step of the README, in
# order, ending in the state the checks expect (pdb-3 drained, web running
# with room for one disruption under a budget that still protects it).
# It can be run again: it starts by making the chapter's nodes schedulable.
set -euo pipefail
# The course's kubectl, whatever else is on the PATH (see make env).
. "$(dirname "${BASH_SOURCE[0]}")/../../../lab/scripts/versions.sh"
export PATH=$LAB_BIN:$PATH

ctx="${OPSLAB_CONTEXT:-kwok-opslab}"
lab="$(cd "$(dirname "$0")" && pwd)"
k() { kubectl --context "$ctx" "$@"; }
step() { printf '\n== %s\n' "$*"; }
run() { printf '$ kubectl %s\n' "$*"; k "$@"; }

step "0. Start from schedulable nodes"
run uncordon pdb-1 pdb-2 pdb-3

step "1. The application and its budget"
run apply -f "$lab/namespace.yaml" -f "$lab/web.yaml" -f "$lab/budget.yaml"
run -n pdb-lab rollout status deployment/web --timeout=2m
run -n pdb-lab wait pdb/web --for=jsonpath='{.status.currentHealthy}'=3 --timeout=1m
run -n pdb-lab get pdb web

step "2. Drain pdb-1 and pdb-2: each eviction waits for the previous replacement to be Ready"
run drain pdb-1 pdb-2 --ignore-daemonsets --delete-emptydir-data --timeout=3m

step "3. The maintenance is over"
run uncordon pdb-1 pdb-2
run -n pdb-lab rollout status deployment/web --timeout=2m
run -n pdb-lab get pods -o wide

step "4. A budget as strict as the replica count: the drain of pdb-3 stalls"
run -n pdb-lab patch pdb web --type merge -p '{"spec":{"minAvailable":3}}'
run -n pdb-lab wait pdb/web --for=jsonpath='{.status.desiredHealthy}'=3 --timeout=1m
if run drain pdb-3 --ignore-daemonsets --delete-emptydir-data --timeout=30s; then
  echo "solve.sh: the drain of pdb-3 finished under minAvailable 3; the lab expected it to stall" >&2
  exit 1
fi
echo "(as expected: every eviction was refused with 429 until the timeout)"

step "5. The repair: one more replica, not a looser promise"
run -n pdb-lab scale deployment/web --replicas=4
run -n pdb-lab rollout status deployment/web --timeout=2m
run drain pdb-3 --ignore-daemonsets --delete-emptydir-data --timeout=3m
run -n pdb-lab rollout status deployment/web --timeout=2m
run -n pdb-lab wait pdb/web --for=jsonpath='{.status.disruptionsAllowed}'=1 --timeout=1m
run -n pdb-lab get pdb web
run -n pdb-lab get pods -o wide
