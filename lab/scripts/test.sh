#!/usr/bin/env bash
# test.sh is make test: the project's whole test suite.
#
#  1. go vet and go test ./... : models, claims, transcripts, prose quotes
#     and proofs, the site; then the site's browser tests in headless
#     Chromium (installed from Debian's packages when missing). Nothing here
#     needs a cluster.
#  2. A private lab cluster, opslab-test, with its own kubeconfig, so a
#     learner's opslab cluster and kubeconfig are never touched.
#  3. The end-to-end suite on it: the cluster's smoke tests, then each
#     chapter's comparisons of its model with the real control plane.
#  4. Every chapter's lab checks: each must fail on every cheat (a state
#     that reaches the lab's final picture without its behaviour: the
#     chapter's TestCheat tests), fail on the untouched cluster, then pass
#     after the chapter's reference solution.
#  5. Grading the solved cluster as the least-privileged grader, which must
#     change nothing.
#  6. The site, built with the results of every suite: a proof whose test
#     failed or did not run fails the build.
#  The cluster is removed at the end, whether the suite passed or failed.
#  Results and screenshots are left in .artifacts/.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"
cd "$OPSLAB_ROOT"
"$OPSLAB_ROOT/lab/scripts/require-go.sh"

step() { printf '\n== %s\n' "$*"; }
start=$SECONDS

mkdir -p .artifacts "$LAB_CACHE"
rm -f .artifacts/*-results.json
go build -o "$LAB_CACHE/testlog" ./lab/testlog
testlog() { "$LAB_CACHE/testlog" "$@"; }

step "go vet ./..."
go vet ./...
step "go test ./..."
go test -json ./... | testlog .artifacts/unit-results.json

# Modules nested in a chapter (chapter 4's comparison with the kubelet's code)
# are outside ./... : vet and test each one in its own directory.
for mod in chapters/*/*/go.mod; do
	[ -e "$mod" ] || continue
	dir=$(dirname "$mod")
	step "go vet and go test in $dir"
	(cd "$dir" && go vet ./... && go test -json ./...) | testlog ".artifacts/$(echo "$dir" | tr / -)-results.json"
done

step "browser tests in headless Chromium"
lab/scripts/require-chromium.sh
go test -tags browser -count=1 -json ./site/browsertest | testlog .artifacts/browser-results.json

step "lab binaries"
lab/scripts/build-binaries.sh

export OPSLAB_CLUSTER=opslab-test
export OPSLAB_CONTEXT=kwok-opslab-test
export KUBECONFIG=$LAB_CACHE/opslab-test.kubeconfig
export PATH=$LAB_BIN:$PATH
cleanup() {
	status=$?
	step "removing the test cluster"
	lab/scripts/lab-down.sh || true
	rm -f "$KUBECONFIG"
	if [ $status -eq 0 ]; then
		printf '\nmake test: all passed in %ds\n' $((SECONDS - start))
	else
		printf '\nmake test: FAILED (exit %d) after %ds\n' $status $((SECONDS - start)) >&2
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step "a private lab cluster ($OPSLAB_CLUSTER)"
lab/scripts/lab-down.sh >/dev/null
lab/scripts/lab-up.sh

step "end-to-end: the lab cluster's smoke suite"
go test -tags e2e -count=1 -json ./lab/e2e/ | testlog .artifacts/smoke-results.json

# The chapters' end-to-end tests are the test files with the e2e build tag.
e2e_pkgs=$(grep -rl --include='*_test.go' '^//go:build e2e' chapters labcheck 2>/dev/null | xargs -r -n1 dirname | sort -u | sed 's|^|./|')
if [ -n "$e2e_pkgs" ]; then
	step "end-to-end: the chapters' models against the real control plane"
	# shellcheck disable=SC2086
	go test -tags e2e -count=1 -p 1 -skip '^TestCheat' -json $e2e_pkgs | testlog .artifacts/e2e-results.json
fi

go build -o "$LAB_CACHE/labcheck" ./cmd/labcheck
for dir in chapters/*/; do
	n=$(basename "$dir" | sed -E 's/^0*([0-9]+)-.*/\1/')
	[ -x "$dir/lab/solve.sh" ] || continue
	if grep -rlq --include='*_test.go' '^func TestCheat' "$dir"; then
		step "chapter $n: every check fails on every cheat"
		go test -tags e2e -count=1 -p 1 -run '^TestCheat' -json "./$dir..." | testlog ".artifacts/cheats-$n-results.json"
	fi
	step "chapter $n: every check fails on the untouched cluster"
	"$LAB_CACHE/labcheck" --chapter "$n" --expect fail
	step "chapter $n: the reference solution"
	"$dir/lab/solve.sh"
	step "chapter $n: every check passes after it"
	"$LAB_CACHE/labcheck" --chapter "$n" --expect pass
done

step "grading the solved cluster: as the opslab-grader service account, changing nothing"
go test -tags solved -count=1 -run 'Grad|Missing' -json ./labcheck/ | testlog .artifacts/grading-results.json

step "the site, with every proof's result"
results=$(ls .artifacts/*-results.json | paste -sd, -)
go run ./cmd/site -out site/out -results "$results"
