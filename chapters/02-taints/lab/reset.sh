#!/usr/bin/env bash
# reset.sh returns the cluster to the state before chapter 2's lab: it takes
# the lab's taints off taints-1..3 (a taint written by hand stays until
# someone removes it, which is the chapter's own warning) and deletes
# namespace taints-lab, waiting until it is gone so that the lab can start
# again at once. It leaves the zone-outage lab's cluster alone: make
# outage-down removes that one. It acts as the admin (OPSLAB_ADMIN_CONTEXT,
# by default the learner's context OPSLAB_CONTEXT with -admin): a reset is
# the lab's own work, not a step of the learner's.
set -euo pipefail
# The course's kubectl, whatever else is on the PATH (see make env).
. "$(dirname "${BASH_SOURCE[0]}")/../../../lab/scripts/versions.sh"
export PATH=$LAB_BIN:$PATH
ctx=${OPSLAB_CONTEXT:-kwok-opslab}
admin=${OPSLAB_ADMIN_CONTEXT:-$ctx-admin}
k() { kubectl --context "$admin" "$@"; }
for node in taints-1 taints-2 taints-3; do
	for key in opslab.dev/maintenance opslab.dev/link-down; do
		# Absent is fine: the lab may have stopped before this taint.
		k taint node "$node" "$key-" >/dev/null 2>&1 || true
	done
done
k delete namespace taints-lab --ignore-not-found --wait=true --timeout=90s
