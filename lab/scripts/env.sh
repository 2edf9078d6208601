#!/usr/bin/env bash
# env.sh prints the shell commands that put the course's kubectl (and
# kwokctl) first on the PATH, for a learner's shell to run:
#
#   eval "$(make -s env)"
#
# The binaries are built by make lab-up (or make lab-binaries) the first time.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"
if [ ! -x "$LAB_BIN/kubectl" ]; then
	echo "env: the course's kubectl is not built yet; run make lab-up first" >&2
	exit 1
fi
printf 'export PATH=%q:"$PATH"\n' "$LAB_BIN"
