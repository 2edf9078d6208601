#!/usr/bin/env bash
# later.sh is the last step of chapter 2's reference solution, the
# zone-outage lab: it starts the 150-node scale cluster beside the lab
# cluster and runs the six experiments, each against the model. solve.sh
# runs it; make test runs it in two parts, the first beside the lanes,
# the second once the machine has settled (below and lab/scripts/test.sh,
# later_lane), because the differential's timings are a few hundred
# milliseconds wide and a starved controller acts late. The checks it is
# judged by, which make test leaves out of the chapter's lane, are on the
# next line.
# Its checks: outage-*
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../../lab/scripts/versions.sh"
cd "$OPSLAB_ROOT"
# The scale cluster is the lab's own, beside the learner's: kwokctl's one
# context for it (kwok-NAME-scale) is its admin's, and the learner has no
# identity there; the experiments' power switch is the lab's, as power.sh
# is on the learner's cluster. Its name follows the learner's context,
# with or without -admin.
ctx=${OPSLAB_CONTEXT:-kwok-opslab}
scale=${ctx%-admin}-scale
chapters/02-taints/lab/outage/up.sh
record=()
[ -n "${OPSLAB_OUTAGE_RECORD:-}" ] && record=(--record "$OPSLAB_OUTAGE_RECORD")
# make test runs the lab in two parts (OPSLAB_LATER_PART): the outages of
# a few nodes beside its lanes (busy), and those that switch all 150 nodes
# once the machine has settled (quiet). On a busy machine the switch of 150
# nodes can take longer than the controller's 5 s between health passes,
# and a pass that sees the outage half made taints what the whole outage
# would not. Without OPSLAB_LATER_PART, all six in order.
experiments=()
case ${OPSLAB_LATER_PART:-} in
busy) experiments=(few large-partial small-partial zone) ;;
quiet) experiments=(everything recovery) ;;
'') ;;
*) echo "later.sh: OPSLAB_LATER_PART=$OPSLAB_LATER_PART is not a part: use busy or quiet, or leave it unset for the whole lab" >&2; exit 2 ;;
esac
printf '$ outage --context %s run%s\n' "$scale" "${experiments[*]:+ ${experiments[*]}}"
"$LAB_CACHE/outage" --context "$scale" run "${record[@]}" "${experiments[@]}"
