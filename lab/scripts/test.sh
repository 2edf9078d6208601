#!/usr/bin/env bash
# test.sh is make test: the project's whole test suite.
#
#  1. go vet and go test ./... : models, claims, transcripts, prose quotes
#     and proofs, the site, the chapter contract. Nothing here needs a
#     cluster.
#  2. The site's browser tests in headless Chromium (installed from Debian's
#     packages when missing). They start here and run beside steps 3 to 5.
#  3. A private lab cluster, opslab-test, with its own kubeconfig, so a
#     learner's opslab cluster and kubeconfig are never touched; its smoke
#     tests.
#  4. Each chapter as one pipeline: its end-to-end tests (the model against
#     the real control plane), then its lab checks: each must fail on every
#     cheat (a state that reaches the lab's final picture without its
#     behaviour: the chapter's TestCheat tests), fail on the untouched
#     cluster, then pass after the chapter's reference solution (the part
#     of it in a chapter's lab/later.sh runs after every lane, alone). The
#     chapters that switch nodes off share one lane, one after another,
#     because the node lifecycle controller rate-limits and judges by zone;
#     every other chapter runs in a lane of its own beside it.
#  5. Grading the solved cluster as the least-privileged grader, which must
#     change nothing.
#  6. The site, built with the results of every suite: a proof whose test
#     failed or did not run fails the build.
#  The cluster is removed at the end, whether the suite passed or failed.
#  Results, each lane's log and screenshots are left in .artifacts/.
#  OPSLAB_TEST_SERIAL=1 runs everything one step after another.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"
cd "$OPSLAB_ROOT"
"$OPSLAB_ROOT/lab/scripts/require-go.sh"

start=$SECONDS
# Each step says when it starts, in seconds since make test began, so a
# reader sees where the time goes (and a lane's steps, where they overlap).
step() { printf '\n== [%4ds] %s\n' $((SECONDS - start)) "$*"; }

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

# The browser tests need no cluster and mostly wait on the browser: they run
# beside the cluster's steps, their output kept for the end.
step "browser tests in headless Chromium (beside the cluster's steps; log in .artifacts/browser.log)"
lab/scripts/require-chromium.sh
# They share two cores with the lab binaries' build and the cluster's
# lanes, and take three times as long as on a quiet machine: go test's
# default limit of ten minutes is too short for them.
browser() { go test -tags browser -count=1 -timeout 40m -json ./site/browsertest | testlog .artifacts/browser-results.json; }
if [ -n "${OPSLAB_TEST_SERIAL:-}" ]; then
	browser
else
	browser >.artifacts/browser.log 2>&1 &
	browser_pid=$!
fi

# The cross-builds of labcheck (make dist) need no cluster either; at the
# lowest priority they take only the CPU the cluster's steps leave idle,
# so its timings are not disturbed.
step "labcheck's cross-builds (beside the cluster's steps; log in .artifacts/dist.log)"
if [ -n "${OPSLAB_TEST_SERIAL:-}" ]; then
	lab/scripts/dist.sh
else
	nice -n 19 lab/scripts/dist.sh >.artifacts/dist.log 2>&1 &
	dist_pid=$!
fi

step "lab binaries"
lab/scripts/build-binaries.sh

export OPSLAB_CLUSTER=opslab-test
export OPSLAB_CONTEXT=kwok-opslab-test
export KUBECONFIG=$LAB_CACHE/opslab-test.kubeconfig
# Chapter 2's solution records its zone-outage experiments here.
export OPSLAB_OUTAGE_RECORD=$OPSLAB_ROOT/.artifacts/outage-run.json
export PATH=$LAB_BIN:$PATH
cleanup() {
	status=$?
	# A lane or the browser tests still running when a step failed.
	jobs -p | xargs -r kill 2>/dev/null || true
	step "removing the test cluster and its scale cluster"
	lab/scripts/lab-down.sh || true
	chapters/02-taints/lab/outage/down.sh >/dev/null || true
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
chapters/02-taints/lab/outage/down.sh >/dev/null
lab/scripts/lab-up.sh

step "end-to-end: the lab cluster's smoke suite"
go test -tags e2e -count=1 -json ./lab/e2e/ | testlog .artifacts/smoke-results.json

go build -o "$LAB_CACHE/labcheck" ./cmd/labcheck

# later_checks prints the checks a chapter's lab/later.sh is judged by,
# from its line "# Its checks: PATTERNS" (labcheck --only's patterns).
later_checks() {
	local checks
	checks=$(sed -n 's/^# Its checks: //p' "$1/lab/later.sh")
	[ -n "$checks" ] || { echo "make test: $1/lab/later.sh has no line '# Its checks: PATTERNS' naming the checks it is judged by" >&2; return 1; }
	echo "$checks"
}

# chapter DIR: the chapter's end-to-end tests, then its checks against its
# cheats, the untouched cluster and the reference solution. Each step ends
# the chapter on failure by itself (|| return): a function run as a lane is
# on the left of || or in the background, where set -e does not reach.
chapter() {
	local dir=$1 n pkgs later
	n=$(basename "$dir" | sed -E 's/^0*([0-9]+)-.*/\1/')
	pkgs=$(grep -rl --include='*_test.go' '^//go:build e2e' "$dir" | xargs -r -n1 dirname | sort -u | sed 's|^|./|')
	if [ -n "$pkgs" ]; then
		step "chapter $n: its model against the real control plane"
		# shellcheck disable=SC2086
		go test -tags e2e -count=1 -p 1 -skip '^TestCheat' -json $pkgs | testlog ".artifacts/e2e-$n-results.json" || return
	fi
	[ -x "$dir/lab/solve.sh" ] || return 0
	if grep -rlq --include='*_test.go' '^func TestCheat' "$dir"; then
		step "chapter $n: every check fails on every cheat"
		go test -tags e2e -count=1 -p 1 -run '^TestCheat' -json "./$dir/..." | testlog ".artifacts/cheats-$n-results.json" || return
	fi
	step "chapter $n: every check fails on the untouched cluster"
	"$LAB_CACHE/labcheck" --context "$OPSLAB_CONTEXT" --chapter "$n" --expect fail || return
	step "chapter $n: the reference solution"
	if [ -x "$dir/lab/later.sh" ]; then
		OPSLAB_SOLVE_LATER=defer "$dir/lab/solve.sh" || return
		later=$(later_checks "$dir") || return
		step "chapter $n: every check passes after it, but those of lab/later.sh ($later), judged after every lane"
		"$LAB_CACHE/labcheck" --context "$OPSLAB_CONTEXT" --chapter "$n" --skip "$later" --expect pass || return
		return 0
	fi
	"$dir/lab/solve.sh" || return
	step "chapter $n: every check passes after it"
	"$LAB_CACHE/labcheck" --context "$OPSLAB_CONTEXT" --chapter "$n" --expect pass || return
}

# A chapter switches nodes off when its lab or tests use the lab's power
# switch (lab/scripts/power.sh). Those chapters run one after another in
# one lane: a node that goes NotReady takes a token from its zone's
# NoExecute rate limiter (one node every 10 s per zone) and counts toward
# the zone's disruption state, so two of them at once would change each
# other's timings. Every other chapter gets a lane of its own beside it.
switches_nodes() { grep -rq 'power\.sh' "$1"; }

power_lane=() side_lanes=()
for dir in chapters/*/; do
	dir=${dir%/}
	if switches_nodes "$dir"; then power_lane+=("$dir"); else side_lanes+=("$dir"); fi
done
lane() { for dir in "$@"; do chapter "$dir" || return; done; }

if [ -n "${OPSLAB_TEST_SERIAL:-}" ] || [ ${#side_lanes[@]} -eq 0 ]; then
	lane "${power_lane[@]}" "${side_lanes[@]}" || exit
else
	declare -A side_pid
	for dir in "${side_lanes[@]}"; do
		name=$(basename "$dir")
		step "chapter $name in a lane of its own (log: .artifacts/lane-$name.log)"
		lane "$dir" >".artifacts/lane-$name.log" 2>&1 &
		side_pid[$dir]=$!
	done
	failed=()
	lane "${power_lane[@]}" || failed+=("$(basename -a "${power_lane[@]}" | paste -sd' ')")
	for dir in "${side_lanes[@]}"; do
		name=$(basename "$dir")
		status=0
		wait "${side_pid[$dir]}" || status=$?
		step "chapter $name's lane: its output"
		cat ".artifacts/lane-$name.log"
		[ $status -eq 0 ] || failed+=("$name")
	done
	if [ ${#failed[@]} -gt 0 ]; then
		echo "make test: these chapters failed: ${failed[*]}" >&2
		exit 1
	fi
fi

# A chapter's lab/later.sh is the part of its reference solution whose
# timings a busy machine blurs (chapter 2's 150-node outage, measured to a
# few hundred milliseconds): it runs here, once the lanes are done, one
# chapter at a time, and then the chapter's checks must all pass.
for dir in chapters/*/; do
	dir=${dir%/}
	[ -x "$dir/lab/later.sh" ] || continue
	n=$(basename "$dir" | sed -E 's/^0*([0-9]+)-.*/\1/')
	step "chapter $n: the rest of its reference solution, after the lanes ($dir/lab/later.sh)"
	"$dir/lab/later.sh"
	step "chapter $n: every check passes after it"
	"$LAB_CACHE/labcheck" --context "$OPSLAB_CONTEXT" --chapter "$n" --expect pass
done

step "grading the solved cluster: as the opslab-grader service account, changing nothing"
go test -tags solved -count=1 -run 'Grad|Missing' -json ./labcheck/ | testlog .artifacts/grading-results.json

# collect waits for a step that ran in the background, prints its log and
# fails make test if it failed: collect PID LOG WHAT.
collect() {
	[ -n "$1" ] || return 0
	step "$3: their output"
	local status=0
	wait "$1" || status=$?
	cat "$2"
	[ $status -eq 0 ] || { echo "make test: $3 failed" >&2; exit 1; }
}
collect "${browser_pid:-}" .artifacts/browser.log "the browser tests in headless Chromium"
collect "${dist_pid:-}" .artifacts/dist.log "labcheck's cross-builds"

step "the site, with every proof's result"
results=$(ls .artifacts/*-results.json | paste -sd, -)
go run ./cmd/site -out site/out -results "$results"
