#!/usr/bin/env bash
# reset.sh returns the cluster to the state before chapter 3's lab: it
# deletes every schema and level named apf-lab-* (cluster-scoped: the lab's
# and any you made), and namespace apf-lab, waiting until it is gone so
# the lab can start again at once, and hands workload-low back to the
# server's ensurer, which restores its spec within a minute (step 8). It
# acts as the admin ($admin, the context kwok-opslab-admin by default), as
# the lab's own scripts do.
set -euo pipefail
# The course's kubectl, whatever else is on the PATH (see make env).
. "$(dirname "${BASH_SOURCE[0]}")/../../../lab/scripts/versions.sh"
export PATH=$LAB_BIN:$PATH
ctx=${OPSLAB_CONTEXT:-kwok-opslab}
admin=${OPSLAB_ADMIN_CONTEXT:-$ctx-admin}
k() { kubectl --context "$admin" "$@"; }
for kind in flowschemas prioritylevelconfigurations; do
	k get "$kind" -o name | { grep '/apf-lab-' || true; } | while read -r obj; do
		k delete "$obj" --ignore-not-found
	done
done
k delete namespace apf-lab --ignore-not-found --wait=true --timeout=90s
k annotate prioritylevelconfiguration workload-low apf.kubernetes.io/autoupdate-spec=true --overwrite
