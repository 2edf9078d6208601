#!/usr/bin/env bash
# down.sh removes the zone-outage lab's scale cluster.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../../../../lab/scripts/versions.sh"
name=${OPSLAB_SCALE_CLUSTER:-opslab-scale}
"$LAB_BIN/kwokctl" delete cluster --name "$name" >/dev/null 2>&1 || true
echo "outage-down: cluster $name removed"
