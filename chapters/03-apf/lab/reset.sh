#!/usr/bin/env bash
# reset.sh returns the cluster to the state before chapter 3's lab: it
# deletes the lab's schemas and level (cluster-scoped, named apf-lab-*)
# and namespace apf-lab, and hands workload-low back to the server's
# ensurer, which restores its spec within a minute (step 8).
set -euo pipefail
# The course's kubectl, whatever else is on the PATH (see make env).
. "$(dirname "${BASH_SOURCE[0]}")/../../../lab/scripts/versions.sh"
export PATH=$LAB_BIN:$PATH
ctx=${OPSLAB_CONTEXT:-kwok-opslab}
k() { kubectl --context "$ctx" "$@"; }
for fs in apf-lab-runaway apf-lab-tie-a apf-lab-tie-b apf-lab-silence-429 apf-lab-typo; do
	k delete flowschema "$fs" --ignore-not-found
done
k delete prioritylevelconfiguration apf-lab-runaway --ignore-not-found
k delete namespace apf-lab --ignore-not-found
k annotate prioritylevelconfiguration workload-low apf.kubernetes.io/autoupdate-spec=true --overwrite
