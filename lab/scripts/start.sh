#!/usr/bin/env bash
# start.sh is make start, the learner's one command. It serves the course
# first, so a learner reads chapter 1 while the rest is made: the site is
# compiled and serves its pages with the demos marked as still being built,
# then the lab cluster's binaries are built and the cluster started (the
# site compiles its demos beside them), and the site keeps serving until
# Ctrl-C. The cluster keeps running after that.
#
# Environment: SITE_ADDR (default localhost:8080), SITE_OUT (default
# site/out); START_TIMES=FILE appends "site SECONDS" once the course
# answers and "cluster SECONDS" once the cluster is ready, for make
# bench-first-run.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"
cd "$OPSLAB_ROOT"
"$OPSLAB_ROOT/lab/scripts/require-go.sh"

addr=${SITE_ADDR:-localhost:8080}
out=${SITE_OUT:-site/out}
host=${addr%:*} port=${addr##*:}
die() { echo "start: $*" >&2; exit 1; }
mark() { [ -z "${START_TIMES:-}" ] || echo "$1 $((SECONDS - t0))" >>"$START_TIMES"; }
answers() { (exec 3<>"/dev/tcp/${host:-localhost}/$port") 2>/dev/null; }

t0=$SECONDS
answers && die "$addr is already in use (another make start?); stop it, or choose another address: make start SITE_ADDR=localhost:8081"
mkdir -p "$LAB_CACHE"
echo "start: compiling the course site"
go build -o "$LAB_CACHE/site" ./cmd/site
"$LAB_CACHE/site" -out "$out" -serve "$addr" -watch -demos-later &
site=$!
trap 'kill "$site" 2>/dev/null || true' EXIT
trap 'exit 130' INT TERM
# The site listens once its first build is written.
until answers; do
	kill -0 "$site" 2>/dev/null || { wait "$site" || true; die "the course site did not start (its errors are above); fix them and run make start again"; }
	sleep 0.2
done
mark site
echo "start: the course is at http://$addr/ after $((SECONDS - t0)) s: start reading chapter 1 while the lab cluster is made"
"$OPSLAB_ROOT/lab/scripts/lab-up.sh"
mark cluster
echo "start: the lab cluster is ready after $((SECONDS - t0)) s; serving the course at http://$addr/ (Ctrl-C stops the site; the cluster keeps running)"
wait "$site"
