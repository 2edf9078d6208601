#!/usr/bin/env bash
# bump.sh moves the course to another Kubernetes release and reports what
# the move changed (make bump-kubernetes VERSION=vX.Y.Z):
#  1. the pins: labcheck/version/pins.env, every go.mod, the links to
#     upstream's source in the prose (lab/bump pins);
#  2. the lab binaries, built from the new pins;
#  3. every test that compares the course with upstream: go test in the
#     course's module and in each nested one (the differentials against
#     upstream's functions, the prose's proofs), the prose checker, and,
#     unless E2E=0, make test's end-to-end suites on a private cluster of
#     the new release (it stops at its first failing step);
#  4. the drift report, UPSTREAM.md, which the site shows (lab/bump report).
# A failing test does not stop the bump: the report says what failed.
# ETCD=vA.B.C and KWOK=vA.B.C choose those releases too.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"
cd "$OPSLAB_ROOT"

to=${1:-}
if [ -z "$to" ]; then
	echo "bump-kubernetes: say which release: make bump-kubernetes VERSION=vX.Y.Z" >&2
	exit 2
fi
from=$KUBE_VERSION
if [ "$to" = "$from" ] && [ -z "${ETCD:-}${KWOK:-}" ]; then
	echo "bump-kubernetes: the course is already on $to; make upstream-report FROM=vX.Y.Z writes the report again" >&2
	exit 2
fi
start=$SECONDS
step() { printf '\n== [%4ds] bump-kubernetes: %s\n' $((SECONDS - start)) "$*"; }
mkdir -p .artifacts "$LAB_CACHE"
go build -o "$LAB_CACHE/bump" ./lab/bump
go build -o "$LAB_CACHE/testlog" ./lab/testlog

step "moving the pins from $from to $to"
"$LAB_CACHE/bump" pins -to "$to" ${ETCD:+-etcd "$ETCD"} ${KWOK:+-kwok "$KWOK"}
. lab/scripts/versions.sh

step "building the lab binaries of $KUBE_VERSION"
lab/scripts/build-binaries.sh

# The report must be built with the new pins: rebuild it after the move.
go build -o "$LAB_CACHE/bump" ./lab/bump || echo "bump-kubernetes: the course does not build at $to; the report says why" >&2
rm -f .artifacts/*-results.json
failed=0
step "go test ./... (the models, their proofs, the differentials against upstream's functions)"
go test -json ./... | "$LAB_CACHE/testlog" .artifacts/unit-results.json || failed=1
for mod in chapters/*/*/go.mod; do
	[ -e "$mod" ] || continue
	dir=$(dirname "$mod")
	step "go test in $dir"
	(cd "$dir" && go test -json ./...) | "$LAB_CACHE/testlog" ".artifacts/$(echo "$dir" | tr / -)-results.json" || failed=1
done
step "the prose's quotes, proofs and links"
go run ./cmd/quote -check README.md CONTRIBUTING.md chapters/*/README.md || failed=1
if [ "${E2E:-1}" != 0 ]; then
	step "make test: the end-to-end suites on a private cluster of $KUBE_VERSION"
	lab/scripts/test.sh || failed=1
fi

step "the drift report"
if [ -x "$LAB_CACHE/bump" ]; then
	"$LAB_CACHE/bump" report -from "$from" -o UPSTREAM.md
else
	go run ./lab/bump report -from "$from" -o UPSTREAM.md
fi
echo "bump-kubernetes: moved from $from to $KUBE_VERSION in $((SECONDS - start))s; read UPSTREAM.md, fix what it finds, then make test"
[ "$failed" = 0 ] || echo "bump-kubernetes: some tests failed at $KUBE_VERSION; UPSTREAM.md lists them" >&2
exit "$failed"
