#!/usr/bin/env bash
# down.sh removes the zone-outage lab's scale cluster.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../../../../lab/scripts/versions.sh"
name=${OPSLAB_SCALE_CLUSTER:-${OPSLAB_CLUSTER:-opslab}-scale}
kubeconfig_args=()
[ -n "${KUBECONFIG:-}" ] && kubeconfig_args=(--kubeconfig "${KUBECONFIG%%:*}")
"$LAB_BIN/kwokctl" delete cluster --name "$name" "${kubeconfig_args[@]}" >/dev/null 2>&1 || true
echo "outage-down: cluster $name removed"
