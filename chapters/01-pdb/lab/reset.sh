#!/usr/bin/env bash
# reset.sh returns the cluster to the state before chapter 1's lab: it
# deletes namespace pdb-lab, waiting until it is gone so that the lab can
# start again at once, and makes the chapter's nodes schedulable.
#
# It acts as the admin ($admin, the context kwok-opslab-admin by default):
# undoing a lab is the lab's job, not a step the learner takes.
set -euo pipefail
# The course's kubectl, whatever else is on the PATH (see make env).
. "$(dirname "${BASH_SOURCE[0]}")/../../../lab/scripts/versions.sh"
export PATH=$LAB_BIN:$PATH
ctx=${OPSLAB_CONTEXT:-kwok-opslab}
admin=${OPSLAB_ADMIN_CONTEXT:-$ctx-admin}
k() { kubectl --context "$admin" "$@"; }
k delete namespace pdb-lab --ignore-not-found --wait=true --timeout=90s
k uncordon pdb-1 pdb-2 pdb-3
