#!/usr/bin/env bash
# test.sh is make test: the project's whole test suite. Its steps run at
# once where they can, and at three CPU priorities: the lab clusters and
# the lanes on them, whose tests wait on the clusters and judge timings, at
# make test's own; the steps that need no cluster and only compute (1, 2)
# ten steps below (nice 10; the cross-builds 19), so they take the CPU the
# lanes leave; chapter 2's zone outages, measured to a few hundred
# milliseconds, ten steps above (nice -10, see later_lane).
#
#  1. go vet and go test ./... : models, claims, transcripts, prose quotes
#     and proofs, the site, the chapter contract. Nothing here needs a
#     cluster. Then the modules nested in a chapter, and every plant whose
#     inputs changed (cmd/proofs): each must make its claim's tests fail.
#  2. The site's browser tests in headless Chromium (installed from Debian's
#     packages when missing) and labcheck's cross-builds.
#  3. The lab binaries (built once, then cached), then private lab clusters
#     with their own kubeconfigs, so a learner's opslab cluster and
#     kubeconfig are never touched: opslab-test, one more for every further
#     chapter that switches nodes off, and one for each chapter's
#     end-to-end tests; the smoke tests on opslab-test, which include every
#     forbidden verb tried as the learner.
#  4. Each chapter in a lane of its own, started as soon as its clusters
#     are up: its end-to-end tests (the model against the real control
#     plane) on a cluster of their own, opslab-e2e-N, and beside them its
#     lab checks: each must fail on every cheat (a state that reaches the
#     lab's final picture without its behaviour: the chapter's TestCheat
#     tests, on a cluster of their own too), fail on the untouched lab
#     cluster, then pass after the chapter's reference solution, run as
#     the learner (user opslab:learner,
#     lab/learner.yaml: the role suffices), whose steps' outputs must be the
#     README's expected ones (OPSLAB_EXPECT=check, lab/scripts/expect.sh). A
#     chapter that switches nodes off (its lab or tests use
#     lab/scripts/power.sh) gets a cluster of its own beyond the first: the
#     node lifecycle controller rate-limits and judges by zone, so two such
#     chapters on one cluster would change each other's timings. The part
#     of a solution in a chapter's lab/later.sh (chapter 2's zone outages,
#     on a cluster of their own) runs beside the lanes at a higher CPU
#     priority (see later_lane). Beside them, once the lab binaries are
#     built, a class of three on this machine (lab/scripts/class-test.sh).
#  5. Grading each solved cluster as the least-privileged grader, which must
#     change nothing: the clusters at once, each as soon as its chapters
#     are done; a cluster with a lab/later.sh between its busy and quiet
#     parts (the grader judges none of later's checks as passing).
#  6. The plants that need a cluster; the site, built with the results of
#     every suite: a proof whose test failed or did not run fails the build;
#     each chapter's figures against the budgets of its shape.
#  A step beside the lanes that fails stops make test at once. At the end,
#  pass or fail, the clusters are removed and a timetable of every step and
#  lane (start, end, wall and CPU seconds), the clusters' peak memory and
#  CPU, and the machine's busy and idle CPU time are printed and written to .artifacts/timings.json.
#  Results, each lane's log and screenshots are left in .artifacts/.
#  OPSLAB_TEST_SERIAL=1 runs everything one step after another.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"
cd "$OPSLAB_ROOT"
"$OPSLAB_ROOT/lab/scripts/require-go.sh"
# Built with -trimpath, a package leaves its checkout's path out of the
# build cache's keys, so a fresh clone reuses what another clone compiled,
# and go test's results of the tests that read no file: go vet and go test
# of a second clone took 115 CPU-seconds with it, 175 without.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath"
# The clusters make test starts hold nothing worth a crash: their etcd
# writes without fsync, which would wait behind every other write the
# machine's disk holds.
export LAB_ETCD_NO_FSYNC=1

start=$SECONDS
# Each step says when it starts, in seconds since make test began, so a
# reader sees where the time goes (and a lane's steps, where they overlap).
step() { printf '\n== [%4ds] %s\n' $((SECONDS - start)) "$*"; }

mkdir -p .artifacts "$LAB_CACHE"
rm -f .artifacts/*-results.json .artifacts/timings.json .artifacts/*.done .artifacts/failed-parts.list
go build -o "$LAB_CACHE/testlog" ./lab/testlog
go build -o "$LAB_CACHE/timings" ./lab/timings
testlog() { "$LAB_CACHE/testlog" "$@"; }

# timed LANE STEP CMD...: runs CMD and records, for the timetable, when it
# started and ended, and the CPU it and its children used (read from the
# subshell's own /proc entry once its children are waited for). Lanes run
# at once, so their lines interleave; each is one short append.
steps_tsv=.artifacts/timings-steps.tsv
memory_tsv=.artifacts/timings-memory.tsv
machine_tsv=.artifacts/timings-machine.tsv
browser_tsv=.artifacts/timings-browser.tsv
: >"$steps_tsv"
: >"$memory_tsv"
: >"$machine_tsv"
: >"$browser_tsv"
hz=$(getconf CLK_TCK)
timed() {
	local lane=$1 what=$2 t0 t1 ticks status=0 f
	shift 2
	f=$(mktemp .artifacts/.cpu.XXXXXX)
	t0=$(date +%s%3N)
	(
		"$@"
		s=$?
		read -ra st <"/proc/$BASHPID/stat"
		echo $((st[13] + st[14] + st[15] + st[16])) >"$f"
		exit $s
	) || status=$?
	t1=$(date +%s%3N)
	ticks=$(cat "$f")
	rm -f "$f"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$lane" "$what" "$t0" "$t1" \
		"$(awk -v t="${ticks:-0}" -v hz="$hz" 'BEGIN { printf "%.2f", t / hz }')" "$status" >>"$steps_tsv"
	return $status
}

# sample_memory writes, every 3 s, the resident memory of each kwokctl
# cluster's processes and the CPU seconds they have used so far, make
# test's clusters and the class's: the programs under ~/.kwok/clusters/
# NAME/bin/ or the class's kwok/clusters/NAME/bin/ (not a labcheck whose
# arguments name a cluster's audit log). Beside them, the whole machine's
# busy and idle CPU seconds so far (/proc/stat's first line: idle and
# iowait are idle; user, nice, system, irq, softirq and steal busy; guest
# time is already in user's), so the timetable can say when the two
# cores had time to spare. And the CPU seconds of each of Chromium's
# processes (the browser tests'), which the browser tests' step does not
# reap, so its own CPU leaves most of them out.
sample_memory() {
	while sleep 3; do
		awk -v now="$(date +%s%3N)" -v hz="$hz" 'NR == 1 {
			for (i = 2; i <= 9; i++) if (i == 5 || i == 6) idle += $i; else busy += $i
			printf "%s\t%.2f\t%.2f\n", now, busy / hz, idle / hz; exit }' /proc/stat >>"$machine_tsv"
		ps -eo pid=,rss=,cputimes=,args= | awk -v now="$(date +%s%3N)" -v browser="$browser_tsv" '
			$4 ~ /^\/usr\/lib\/chromium\// { printf "%s\t%s\t%s\n", now, $1, $3 >>browser; next }
			match($0, /kwok\/clusters\/[^\/ ]+\/bin\//) {
				name = substr($0, RSTART + 14, RLENGTH - 19)
				mb[name] += $2 / 1024
				cpu[name] += $3
			}
			END { for (n in mb) printf "%s\t%s\t%.1f\t%d\n", now, n, mb[n], cpu[n] }' >>"$memory_tsv"
	done
}

# A chapter switches nodes off when its lab or tests use the lab's power
# switch (lab/scripts/power.sh). The first such chapter shares opslab-test
# with the chapters that do not; every further one gets a cluster of its
# own, opslab-test-N, so no node lifecycle controller judges two of them.
# A lane's three parts run at once, each on a cluster of its own: the
# chapter's end-to-end tests (its packages with the e2e build tag) on
# opslab-e2e-N, its cheat tests on opslab-cheats (opslab-cheats-N for a
# chapter with a lab cluster of its own), and its untouched checks and
# reference solution on its lab cluster, the one graded. Each part mostly
# waits on its cluster (chapter 1's: 163, 233 and 181 s of wall time,
# 6, 11 and 1 CPU-seconds), and a cluster costs about 650 MB and little
# CPU at rest. The e2e and cheat clusters are made and removed with the
# others but never graded.
# A chapter is a directory chapters/NN-name; chapters/testdata holds the
# chapter contract's fixtures, which are none.
switches_nodes() { grep -rq 'power\.sh' "$1"; }
e2e_packages() { grep -rl --include='*_test.go' '^//go:build e2e' "$1" | xargs -r -n1 dirname | sort -u | sed 's|^|./|'; }
declare -A cluster_of e2e_cluster_of e2e_packages_of cheat_cluster_of
clusters=(opslab-test)
creation_order=() # every further cluster, in the order they are made (below)
main_chapters=()
first_power=""
for dir in chapters/[0-9]*-*/; do
	dir=${dir%/}
	n=$(basename "$dir" | sed -E 's/^0*([0-9]+)-.*/\1/')
	if switches_nodes "$dir" && [ -n "$first_power" ]; then
		cluster_of[$dir]=opslab-test-$n
		clusters+=("opslab-test-$n")
	else
		switches_nodes "$dir" && first_power=$dir
		cluster_of[$dir]=opslab-test
		main_chapters+=("$n")
	fi
	if [ -x "$dir/lab/solve.sh" ] && grep -rlq --include='*_test.go' '^func TestCheat' "$dir"; then
		cheat_cluster_of[$dir]=${cluster_of[$dir]/opslab-test/opslab-cheats}
	fi
	e2e_packages_of[$dir]=$(e2e_packages "$dir")
	if [ -n "${e2e_packages_of[$dir]}" ]; then
		e2e_cluster_of[$dir]=opslab-e2e-$n
	fi
done

# use_cluster NAME points the lab scripts, kubectl, the tests and labcheck
# at cluster NAME and its own kubeconfig. OPSLAB_CONTEXT is the learner's
# context, which the reference solutions act in; the tests, the cheats,
# labcheck and the lab's own scripts act in the admin's (as_admin).
use_cluster() {
	export OPSLAB_CLUSTER=$1
	export OPSLAB_CONTEXT=kwok-$1 OPSLAB_LEARNER_CONTEXT=kwok-$1
	export OPSLAB_ADMIN_CONTEXT=kwok-$1-admin
	export KUBECONFIG=$LAB_CACHE/$1.kubeconfig
}
as_admin() { OPSLAB_CONTEXT=$OPSLAB_ADMIN_CONTEXT "$@"; }
# The class's directory (lab/scripts/class-test.sh).
class_dir=$LAB_CACHE/class-test
# Every reference solution's step outputs must be the README's.
export OPSLAB_EXPECT=check
export PATH=$LAB_BIN:$PATH
# kill_tree PID stops a process and everything it started: a background
# step is a subshell whose children (go test, dist.sh's builds) would
# outlive it if only the subshell were killed.
kill_tree() {
	local child
	for child in $(pgrep -P "$1"); do kill_tree "$child"; done
	kill "$1" 2>/dev/null || true
}
cleanup() {
	status=$?
	# A step stopped here is not a step that failed: its USR1 is ignored.
	trap '' USR1
	# A lane, the browser tests, the cross-builds or the memory sampler
	# still running.
	for pid in $(jobs -p); do kill_tree "$pid"; done
	[ $status -eq 0 ] || dead_components >.artifacts/dead-components.txt 2>&1 || true
	step "removing the test clusters and the scale cluster"
	# Each cluster with the scale cluster chapter 2's lane made beside it
	# (NAME-scale), if it made one.
	# Every cluster make test makes: opslab-test and creation_order.
	for c in opslab-test "${creation_order[@]}"; do
		(use_cluster "$c" && chapters/02-taints/lab/outage/down.sh >/dev/null 2>&1) || true
		(use_cluster "$c" && lab/scripts/lab-down.sh >/dev/null 2>&1; rm -f "$KUBECONFIG") || true
		# A run once left a cluster's processes up after kwokctl had
		# deleted it: none may outlive make test.
		pkill -f -- "/.kwok/clusters/$c/" 2>/dev/null || true
		pkill -f -- "/.kwok/clusters/$c-scale/" 2>/dev/null || true
	done
	CLASS_DIR=$class_dir lab/scripts/class.sh down >/dev/null 2>&1 || true
	pkill -f -- "$class_dir/" 2>/dev/null || true
	"$LAB_CACHE/timings" "$steps_tsv" "$memory_tsv" .artifacts/timings.json "$machine_tsv" "$browser_tsv" || true
	[ $status -eq 0 ] || why_failed || true
	if [ $status -eq 0 ]; then
		printf '\nmake test: all passed in %ds\n' $((SECONDS - start))
	else
		printf '\nmake test: FAILED (exit %d) after %ds\n' $status $((SECONDS - start)) >&2
	fi
}
trap cleanup EXIT
# note_failed LOG: a part whose log is LOG failed. why_failed, after the
# timetable, prints the lines of each such log that say why: CI keeps only
# the tail of make test's output, and the timetable says where make test
# failed, not why (the last stop's CI record showed the quiet part's exit
# 1 and none of the experiment's differences).
note_failed() { echo "$1" >>.artifacts/failed-parts.list; }
why_failed() {
	local log
	[ -s .artifacts/failed-parts.list ] || return 0
	printf '\nwhy make test failed: the lines that say so in the log of each part that failed (the logs are above and in .artifacts/)\n'
	if [ -s .artifacts/dead-components.txt ]; then
		printf '  %s\n' "components of make test's clusters that were no longer running when it ended:"
		sed 's/^/    /' .artifacts/dead-components.txt
	fi
	sort -u .artifacts/failed-parts.list | while read -r log; do
		[ -f "$log" ] || continue
		printf '  %s:\n' "$log"
		awk '/NOT as predicted/ { block = 1; print; next }
			block && /^    / { print; next }
			{ block = 0 }
			/FAIL|panic:|[Ee]rror|failed|did not|not as|want |refused/ { print }' "$log" | tail -n 30 | sed 's/^/    /'
	done
}
# dead_components: each component of make test's clusters (and their
# scale clusters) whose process is gone, with the last lines of its log. A
# lane that lost its controller manager mid-run fails on what that
# controller no longer does; the cluster goes with make test, and this says
# why.
dead_components() {
	local c dir f pid comp log
	for c in opslab-test "${creation_order[@]}"; do
		for dir in "${KWOK_WORKDIR:-$HOME/.kwok}/clusters/$c" "${KWOK_WORKDIR:-$HOME/.kwok}/clusters/$c-scale"; do
			for f in "$dir"/pids/*.pid; do
				[ -f "$f" ] || continue
				pid=$(cat "$f") comp=$(basename "$f" .pid)
				# Gone, or a zombie its parent has not reaped yet.
				case $(ps -o stat= -p "$pid" 2>/dev/null) in '' | Z*) ;; *) continue ;; esac
				log=$dir/logs/$comp.log
				[ -f "$log" ] || log=$dir/logs/$comp-controller.log
				echo "cluster ${dir##*/}: $comp (pid $pid) is not running; its log ends:"
				tail -n 4 "$log" 2>/dev/null | cut -c1-300 | sed 's/^/    /'
			done
		done
	done
}
trap 'exit 130' INT TERM

sample_memory &

# cluster_up NAME: a fresh cluster NAME, its log kept for a failure; once
# it is up, .artifacts/up-NAME.ready tells the lanes waiting for it.
cluster_up() {
	use_cluster "$1"
	lab/scripts/lab-down.sh >/dev/null
	chapters/02-taints/lab/outage/down.sh >/dev/null
	lab/scripts/lab-up.sh >".artifacts/up-$1.log" 2>&1 || { cat ".artifacts/up-$1.log"; return 1; }
	cat ".artifacts/up-$1.log"
	touch ".artifacts/up-$1.ready"
}

# clusters_phase: the lab binaries (cached after the first build), then the
# private clusters, created one after another (two kwokctl creates at once
# could pick the same free port), chapter by chapter, each chapter's lab
# cluster before its e2e cluster: the further ones while the smoke suite
# runs on the first. A lane starts on its clusters as soon as they are up
# (wait_cluster); the lanes on opslab-test once the smoke suite has passed
# on it (.artifacts/smoke.ok).
more_up() {
	local c
	for c in "${creation_order[@]}"; do up "$c" || return; done
}
# up NAME: cluster_up, timed; a cluster that did not start is made once
# more, a row of its own in the timetable, its first try's logs kept in
# .artifacts/failed-up-NAME/: a starved controller manager that gives up
# waiting for its API server exits, and kwokctl does not start it again.
up() {
	timed clusters "cluster $1" cluster_up "$1" && return 0
	rm -rf ".artifacts/failed-up-$1"
	cp -r "${KWOK_WORKDIR:-$HOME/.kwok}/clusters/$1/logs" ".artifacts/failed-up-$1" 2>/dev/null || true
	echo "make test: cluster $1 did not start (its processes' logs: .artifacts/failed-up-$1/); removing it and making it once more"
	timed clusters "cluster $1, made once more" cluster_up "$1"
}
smoke() { as_admin go test -tags e2e -count=1 -json ./lab/e2e/ | testlog .artifacts/smoke-results.json; }
clusters_phase() {
	local more_pid="" status=0
	step "lab binaries"
	timed clusters "lab binaries" lab/scripts/build-binaries.sh || return
	touch .artifacts/binaries.ready
	step "a private lab cluster (opslab-test)"
	up opslab-test || return
	if [ ${#creation_order[@]} -gt 0 ]; then
		step "more private lab clusters, beside the smoke suite: ${creation_order[*]}"
		more_up >.artifacts/up-more.log 2>&1 &
		more_pid=$!
	fi
	use_cluster opslab-test
	step "end-to-end: the lab cluster's smoke suite"
	timed clusters "smoke suite" smoke || status=$?
	[ $status -ne 0 ] || touch .artifacts/smoke.ok
	if [ -n "$more_pid" ]; then
		wait "$more_pid" || { cat .artifacts/up-more.log; echo "make test: a further lab cluster did not start (log above)" >&2; return 1; }
		cat .artifacts/up-more.log
	fi
	return $status
}
# The cheat and e2e clusters first, chapter by chapter, then the further
# lab clusters: a lane's cheat and end-to-end tests take three to five
# minutes, its reference solution on its lab cluster one (chapter 1's
# three, but it is on opslab-test, made first).
creation_order=()
add_cluster() { [ -n "$1" ] && [ "$1" != opslab-test ] && [[ " ${creation_order[*]} " != *" $1 "* ]] && creation_order+=("$1"); return 0; }
for dir in chapters/[0-9]*-*/; do
	dir=${dir%/}
	add_cluster "${cheat_cluster_of[$dir]:-}"
	add_cluster "${e2e_cluster_of[$dir]:-}"
done
for dir in chapters/[0-9]*-*/; do add_cluster "${cluster_of[${dir%/}]}"; done
rm -f .artifacts/up-*.ready .artifacts/binaries.ready .artifacts/smoke.ok .artifacts/failed.list .artifacts/class.done

# wait_for MARKER WHAT: until the clusters' step has made MARKER, or has
# ended without it.
wait_for() {
	local marker=$1
	shift
	until [ -e "$marker" ]; do
		if [ -z "${clusters_pid:-}" ] || ! kill -0 "$clusters_pid" 2>/dev/null; then
			[ -e "$marker" ] && return 0
			echo "make test: $* not ready: the clusters' step ended without them (.artifacts/clusters.log)" >&2
			return 1
		fi
		sleep 1
	done
}
# wait_cluster NAME: until cluster NAME is up (opslab-test: and its smoke
# suite passed).
wait_cluster() {
	if [ "$1" = opslab-test ]; then
		wait_for .artifacts/smoke.ok cluster opslab-test and its smoke suite
	else
		wait_for ".artifacts/up-$1.ready" cluster "$1"
	fi
}

# release CLUSTER LANE: the lane is done with its cheat or e2e cluster;
# once every lane that uses it is, the cluster is removed: an idle cluster
# still takes some CPU (about a twentieth of a core), which the steps
# beside the lanes would rather have.
release() {
	local c=$1 dir
	touch ".artifacts/used-$c-$2"
	for dir in "${lanes[@]}"; do
		[ "${cheat_cluster_of[$dir]:-}" = "$c" ] || [ "${e2e_cluster_of[$dir]:-}" = "$c" ] || continue
		[ -e ".artifacts/used-$c-$(basename "$dir")" ] || return 0
	done
	mkdir ".artifacts/released-$c" 2>/dev/null || return 0
	(use_cluster "$c" && lab/scripts/lab-down.sh >/dev/null 2>&1; rm -f "$KUBECONFIG") || true
	pkill -f -- "/.kwok/clusters/$c/" 2>/dev/null || true
}
rm -rf .artifacts/used-* .artifacts/released-*

# in_background NAME NICENESS CMD...: runs a step that needs no cluster
# beside the lanes, at that niceness, its output in .artifacts/NAME.log, and
# NAME.done once it is over. When it fails, make test stops at once with
# its log (the USR1 trap below), rather than after the lanes.
in_background() {
	local name=$1 niceness=$2
	shift 2
	(
		status=0
		renice -n "$niceness" -p "$BASHPID" >/dev/null
		"$@" || status=$?
		touch ".artifacts/$name.done"
		if [ $status -ne 0 ]; then
			echo ".artifacts/$name.log" >>.artifacts/failed.list
			kill -USR1 $$
		fi
		exit $status
	) >".artifacts/$name.log" 2>&1 &
}
stop_on_failure() {
	local log
	while read -r log; do
		step "$log: a step beside the lanes failed"
		cat "$log"
		note_failed "$log"
	done <.artifacts/failed.list
	echo "make test: a step beside the lanes failed (its log above)" >&2
	exit 1
}
trap stop_on_failure USR1

if [ -n "${OPSLAB_TEST_SERIAL:-}" ]; then
	(clusters_phase) || exit
else
	step "the lab binaries, the private clusters and their smoke suite (log in .artifacts/clusters.log)"
	clusters_phase >.artifacts/clusters.log 2>&1 &
	clusters_pid=$!
fi

# The steps that need no cluster run beside the lanes, ten steps of CPU
# priority below them (nice 10; the cross-builds at 19, the lowest): they
# are long but wait on nothing, where a lane mostly waits on its cluster
# and its timings matter. They take the CPU the lanes leave.
vet() { go vet ./...; }
# cmd/learn's tests build and test learners' workspaces (go vet, go test,
# the oracle's links): the longest package by far, 100 s of the step's 585
# in a run beside the lanes, and the last to end when started in its turn,
# alone on the machine's last minutes. It starts first, beside the others,
# so they fill the cores around it. Beside a CPU-bound job it took 604 s,
# past go test's default limit of ten minutes: the limit is the browser
# tests' 40.
unit() {
	local learn status=0
	go test -timeout 40m -json ./cmd/learn | testlog .artifacts/unit-learn-results.json &
	learn=$!
	# shellcheck disable=SC2046
	go test -timeout 40m -json $(go list ./... | grep -vx "$(go list -m)/cmd/learn") | testlog .artifacts/unit-results.json || status=$?
	wait "$learn" || status=$?
	return $status
}
# Modules nested in a chapter (chapter 4's comparison with the kubelet's
# code) are outside ./... : vet and test each one in its own directory.
nested() { (cd "$1" && go vet ./... && go test -json ./...) | testlog ".artifacts/$(echo "$1" | tr / -)-results.json"; }
# Every claim's plant, the change that makes the claim false, must make the
# claim's tests fail: the plants whose inputs changed since the verdicts
# each chapter's plants/verdicts.sum records run again (cmd/proofs); those
# that need a cluster run once the lanes are done.
proofs() { go run ./cmd/proofs "$@"; }
# The nested modules are vetted and tested beside go test ./..., each in a
# row of its own; the plants once all have passed.
checks() {
	local mod dir pid pids=() status=0
	step "go vet ./..."
	timed checks "go vet ./..." vet || return
	for mod in chapters/*/*/go.mod; do
		[ -e "$mod" ] || continue
		dir=$(dirname "$mod")
		step "go vet and go test in $dir, beside go test ./..."
		timed checks "go vet and go test in $dir" nested "$dir" &
		pids+=($!)
	done
	step "go test ./..."
	timed checks "go test ./..." unit || status=$?
	for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
	[ $status -eq 0 ] || return $status
	step "proofs: the plants whose inputs changed"
	timed checks "proofs: plants whose inputs changed" proofs
}
# The browser tests mostly wait on the browser. They share two cores with
# the lab binaries' build and the cluster's lanes, and take three times as
# long as on a quiet machine: go test's default limit of ten minutes is too
# short for them.
# TestAccessibility, most of their time (axe-core on each of the site's
# 391 pages, 435 s of the step's 545 and most of Chromium's 253 CPU-s in
# run Z3), keeps each page's pass in the machine's cache and audits again
# only the pages whose audit's inputs changed (site/browsertest,
# axeVerdicts); OPSLAB_AXE_CACHE= make test audits every page.
browser() {
	lab/scripts/require-chromium.sh || return
	OPSLAB_AXE_CACHE=${OPSLAB_AXE_CACHE-$LAB_BIN_CACHE/axe-passes} \
		go test -tags browser -count=1 -timeout 40m -json ./site/browsertest | testlog .artifacts/browser-results.json
}
if [ -n "${OPSLAB_TEST_SERIAL:-}" ]; then
	checks || exit
	step "browser tests in headless Chromium"
	timed browser "browser tests" browser || exit
	step "labcheck's cross-builds"
	timed dist "labcheck's cross-builds" lab/scripts/dist.sh || exit
else
	step "go vet, go test, the nested modules and the plants, at nice 10 beside the lanes (log: .artifacts/checks.log)"
	in_background checks 10 checks
	checks_pid=$!
	step "browser tests in headless Chromium, at nice 10 beside the lanes (log: .artifacts/browser.log)"
	in_background browser 10 timed browser "browser tests" browser
	browser_pid=$!
	step "labcheck's cross-builds, at nice 19 beside the lanes (log: .artifacts/dist.log)"
	in_background dist 19 timed dist "labcheck's cross-builds" lab/scripts/dist.sh
	dist_pid=$!
fi

go build -o "$LAB_CACHE/labcheck" ./cmd/labcheck
use_cluster opslab-test

# later_checks prints the checks a chapter's lab/later.sh is judged by,
# from its line "# Its checks: PATTERNS" (labcheck --only's patterns).
later_checks() {
	local checks
	checks=$(sed -n 's/^# Its checks: //p' "$1/lab/later.sh")
	[ -n "$checks" ] || { echo "make test: $1/lab/later.sh has no line '# Its checks: PATTERNS' naming the checks it is judged by" >&2; return 1; }
	echo "$checks"
}

e2e() { as_admin go test -tags e2e -count=1 -p 1 -skip '^TestCheat' -json "${@:2}" | testlog ".artifacts/e2e-$1-results.json"; }
cheats() { as_admin go test -tags e2e -count=1 -p 1 -run '^TestCheat' -json "./$2/..." | testlog ".artifacts/cheats-$1-results.json"; }
labcheck() { "$LAB_CACHE/labcheck" --context "$OPSLAB_ADMIN_CONTEXT" "$@"; }

# chapter DIR: on the chapter's e2e cluster its end-to-end tests, and beside
# them on its lab cluster its checks against its cheats; then, once both are
# done, its checks against the untouched cluster and the reference solution.
# Each step ends the chapter on failure by itself (|| return): a function
# run as a lane is on the left of || or in the background, where set -e
# does not reach.
chapter() {
	local dir=$1 n pkgs lane e2e_pid="" cheats_pid="" status=0 c
	n=$(basename "$dir" | sed -E 's/^0*([0-9]+)-.*/\1/')
	lane=$(basename "$dir")
	pkgs=${e2e_packages_of[$dir]}
	if [ -n "$pkgs" ]; then
		c=${e2e_cluster_of[$dir]}
		step "chapter $n: its model against the real control plane (cluster $c; log: .artifacts/e2e-$lane.log)"
		# shellcheck disable=SC2086
		on_own_cluster "$c" "$lane" "e2e: the model against the control plane" e2e "$n" $pkgs >".artifacts/e2e-$lane.log" 2>&1 &
		e2e_pid=$!
		[ -z "${OPSLAB_TEST_SERIAL:-}" ] || { wait "$e2e_pid" || status=$?; }
	fi
	if [ -n "${cheat_cluster_of[$dir]:-}" ]; then
		c=${cheat_cluster_of[$dir]}
		step "chapter $n: every check fails on every cheat (cluster $c; log: .artifacts/cheats-$lane.log)"
		on_own_cluster "$c" "$lane" "every check fails on every cheat" cheats "$n" "$dir" >".artifacts/cheats-$lane.log" 2>&1 &
		cheats_pid=$!
		[ -z "${OPSLAB_TEST_SERIAL:-}" ] || { wait "$cheats_pid" || status=$?; }
	fi
	if [ -x "$dir/lab/solve.sh" ] && [ $status -eq 0 ]; then
		wait_cluster "${cluster_of[$dir]}" && use_cluster "${cluster_of[$dir]}" && solution "$dir" "$n" "$lane" || status=$?
	fi
	if [ -n "$e2e_pid" ]; then
		[ -n "${OPSLAB_TEST_SERIAL:-}" ] || wait "$e2e_pid" || status=$?
		step "chapter $n: its end-to-end tests' output"
		cat ".artifacts/e2e-$lane.log"
	fi
	if [ -n "$cheats_pid" ]; then
		[ -n "${OPSLAB_TEST_SERIAL:-}" ] || wait "$cheats_pid" || status=$?
		step "chapter $n: its cheat tests' output"
		cat ".artifacts/cheats-$lane.log"
	fi
	# What is left of make test mostly waits on the clusters (see
	# later_lane).
	touch ".artifacts/lane-$lane.settled"
	return $status
}

# on_own_cluster CLUSTER LANE WHAT CMD...: a part of a lane on a cluster
# of its own (its e2e or cheat tests): once the cluster is up, CMD, timed
# as WHAT; then the cluster is released (release).
on_own_cluster() {
	local c=$1 lane=$2 what=$3 status=0
	shift 3
	wait_cluster "$c" && use_cluster "$c" && timed "$lane" "$what" "$@" || status=$?
	timed "$lane" "removing $c once no lane needs it" release "$c" "$lane"
	return $status
}

# solution DIR N LANE: on the chapter's lab cluster, its checks against the
# untouched cluster, then its reference solution and its checks again.
solution() {
	local dir=$1 n=$2 lane=$3 later
	if [ -x "$dir/lab/later.sh" ]; then
		# The checks of lab/later.sh are later_lane's: it judges them on
		# the untouched cluster before it runs lab/later.sh, beside this.
		later=$(later_checks "$dir") || return
		step "chapter $n: every check fails on the untouched cluster, but those of lab/later.sh ($later)"
		timed "$lane" "checks fail on the untouched cluster" labcheck --chapter "$n" --skip "$later" --expect fail || return
		step "chapter $n: the reference solution, but its lab/later.sh (run beside this lane)"
		OPSLAB_SOLVE_LATER=defer timed "$lane" "the reference solution" "$dir/lab/solve.sh" || return
		step "chapter $n: every check passes after it, but those of lab/later.sh ($later)"
		timed "$lane" "checks pass after it" labcheck --chapter "$n" --skip "$later" --expect pass || return
		return 0
	fi
	step "chapter $n: every check fails on the untouched cluster"
	timed "$lane" "checks fail on the untouched cluster" labcheck --chapter "$n" --expect fail || return
	step "chapter $n: the reference solution"
	timed "$lane" "the reference solution" "$dir/lab/solve.sh" || return
	step "chapter $n: every check passes after it"
	timed "$lane" "checks pass after it" labcheck --chapter "$n" --expect pass || return
}

# class_lane: a class of three on this machine (lab/scripts/class-test.sh):
# clusters at 127.0.0.2, a chapter solved as a student, cheats, grading.
class_lane() {
	step "a class of three at 127.0.0.2 (lab/scripts/class-test.sh)"
	timed class "a class of three: up, solve, cheat, grade, reset, down" \
		env LABCHECK="$LAB_CACHE/labcheck" CLASS_DIR="$class_dir" lab/scripts/class-test.sh
}

lanes=()
for dir in chapters/[0-9]*-*/; do lanes+=("${dir%/}"); done
rm -f .artifacts/lane-*.ok .artifacts/lane-*.settled .artifacts/lane-*.end

# A chapter's lab/later.sh is the part of its reference solution whose
# timings a starved machine blurs (chapter 2's 150-node outage, measured to
# a few hundred milliseconds, on a cluster of its own). later_lane DIR runs
# it in two parts (OPSLAB_LATER_PART): first the checks it is judged by
# must fail; then its part "busy" runs beside the lanes, and its part
# "quiet" once the machine has settled (settled quiet): every lane past its
# cheat and end-to-end tests (lane-NAME.settled), the class and the browser
# tests done; once the chapter's own lane has
# ended (lane-NAME.end) and passed (lane-NAME.ok) every check of the
# chapter must pass. Both parts run, with the cluster they start, ten steps
# of CPU priority above the rest of make test (nice -10). Chapter 2's quiet
# part is its two outages of all 150 nodes: beside the lanes, even at -10,
# switching them once took 8 s, past the controller's next health pass,
# which then saw half an outage, and once the lanes alone had settled, 4.5 s.
# A process's nice weighs only inside its session where the kernel groups
# sessions for the CPU (kernel.sched_autogroup_enabled), and kwokctl starts
# each process of a cluster in a session of its own, each such group at
# nice 0: so the priority is set on the scale cluster's groups too
# (boost_sessions). The quiet part does not wait for go test and the
# cross-builds (settled all waits for them too): they run at nice 10 and 19
# in make test's own group, which weighs as one nice-0 group against each
# of the scale cluster's at -10, and a wait for them put 55 s on the end of
# every make test (runs N to V2), 370 s with empty caches (V1). The browser
# tests it waits for: Chromium sets its own processes' nice (its browser
# process at -8). Where make test may not raise a priority (not root),
# both parts wait until the machine has settled (settled all).
settled() {
	local dir
	[ -z "${browser_pid:-}" ] || [ -e .artifacts/browser.done ] || return 1
	[ "$1" != all ] || [ -z "${dist_pid:-}" ] || [ -e .artifacts/dist.done ] || return 1
	[ "$1" != all ] || [ -z "${checks_pid:-}" ] || [ -e .artifacts/checks.done ] || return 1
	[ -z "${class_pid:-}" ] || [ -e .artifacts/class.done ] || return 1
	for dir in "${lanes[@]}"; do
		[ -e ".artifacts/lane-$(basename "$dir").settled" ] || return 1
	done
	return 0
}
# boost_sessions CLUSTER NICE: every 2 s, until killed, sets the nice of
# the autogroup of each process of kwokctl cluster CLUSTER (one session, so
# one group, each) to NICE, where the kernel has autogroups. Only the
# cluster's own programs (~/.kwok/clusters/CLUSTER/bin/...), and never one
# in make test's own group: a first version also matched a labcheck whose
# arguments named the cluster's audit log, and so set make test's whole
# session, and the shell it ran in, to -10, which starved the next runs'
# first clusters.
boost_sessions() {
	local pid own
	[ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ] || return 0
	own=$(cut -d' ' -f1 /proc/self/autogroup)
	while :; do
		for pid in $(pgrep -f -- "^[^ ]*/\.kwok/clusters/$1/bin/"); do
			[ "$(cut -d' ' -f1 "/proc/$pid/autogroup" 2>/dev/null)" != "$own" ] || continue
			echo "$2" >"/proc/$pid/autogroup" 2>/dev/null || true
		done
		sleep 2
	done
}
# first_priority prints the nice command that runs a command ten steps of
# priority above make test, or nothing when make test may not.
first_priority() {
	local now
	now=$(nice)
	[ "$(nice -n -10 nice 2>/dev/null)" = $((now - 10)) ] && echo "nice -n -10"
}
later_lane() {
	local dir=$1 name n later prio c graded=0 cluster=${cluster_of[$1]}
	name=$(basename "$dir")
	n=$(echo "$name" | sed -E 's/^0*([0-9]+)-.*/\1/')
	later=$(later_checks "$dir") || return
	wait_cluster "$cluster" || return
	# It starts once every cluster is made: a cluster's start is a burst of
	# CPU (its API server's bootstrap) beside the outage's controller: in two
	# runs in a row its first experiment saw a taint 1.0 and 1.4 s late
	# while opslab-test-4 was being made.
	for c in "${creation_order[@]}"; do wait_cluster "$c" || return; done
	prio=$(first_priority)
	if [ -z "$prio" ]; then
		echo "chapter $n: make test may not raise lab/later.sh's priority (it is not root): it waits for the machine to settle"
		until settled all; do sleep 2; done
	fi
	use_cluster "$cluster"
	step "chapter $n: the checks of its lab/later.sh ($later) fail before it"
	timed "$name" "lab/later.sh's checks fail before it" labcheck --chapter "$n" --only "$later" --expect fail || return
	local boost=""
	if [ -n "$prio" ]; then
		boost_sessions "$cluster-scale" -10 &
		boost=$!
	fi
	step "chapter $n: the busy part of its lab/later.sh, beside the lanes${prio:+, at priority $prio}"
	# shellcheck disable=SC2086
	OPSLAB_LATER_PART=busy OPSLAB_OUTAGE_RECORD=$OPSLAB_ROOT/.artifacts/outage-run-busy.json \
		timed "$name" "lab/later.sh, its busy part, beside the lanes" $prio "$dir/lab/later.sh" || { refused_writes "$cluster-scale"; return 1; }
	# The lab cluster is graded now, beside the lanes still running, not
	# after the quiet part: the grader judges none of lab/later.sh's checks
	# as passing (they read the scale cluster, which a roster does not
	# reach), and the quiet part waits for the grading as for the lanes.
	until [ -e ".artifacts/lane-$name.end" ]; do sleep 2; done
	[ -e ".artifacts/lane-$name.ok" ] || { echo "chapter $n's lane did not pass: its cluster is not graded"; return 1; }
	step "chapter $n: grading $cluster, its lab cluster, before the quiet part (log: .artifacts/grade-$cluster.log)"
	grade "$cluster" >".artifacts/grade-$cluster.log" 2>&1 || graded=$?
	cat ".artifacts/grade-$cluster.log"
	[ $graded -eq 0 ] || { echo "chapter $n: grading $cluster failed (log above)"; return 1; }
	if [ -n "$prio" ]; then
		until settled quiet; do sleep 2; done
	else
		until settled all; do sleep 2; done
	fi
	step "chapter $n: the quiet part of its lab/later.sh, once the machine has settled${prio:+, at priority $prio}"
	# shellcheck disable=SC2086
	OPSLAB_LATER_PART=quiet OPSLAB_OUTAGE_RECORD=$OPSLAB_ROOT/.artifacts/outage-run-quiet.json \
		timed "$name" "lab/later.sh, its quiet part, once the lanes settled" $prio "$dir/lab/later.sh" || { refused_writes "$cluster-scale"; return 1; }
	[ -z "$boost" ] || kill "$boost" 2>/dev/null || true
	step "chapter $n: every check passes after its lane and lab/later.sh"
	timed "$name" "every check passes" labcheck --chapter "$n" --expect pass || return
}
has_later() { [ -x "$1/lab/later.sh" ]; }
# refused_writes CLUSTER prints the last writes to nodes by the node
# lifecycle controller that CLUSTER's API server refused, from its audit
# log: a refused taint spends its token, and the node waits for the next
# one (rate_limited_queue.go, Try), which the outage model does not know.
# Run when an outage part fails, so that its log (and make test's last
# lines, why_failed) shows whether one was.
refused_writes() {
	local log=${KWOK_WORKDIR:-$HOME/.kwok}/clusters/$1/logs/audit.log
	[ -f "$log" ] || return 0
	grep '"username":"system:serviceaccount:kube-system:node-controller"' "$log" 2>/dev/null |
		grep '"resource":"nodes"' | grep -E '"verb":"(patch|update)"' | grep -vE '"code":20[0-9]' |
		awk '{ match($0, /"name":"[^"]*"/); n = substr($0, RSTART + 8, RLENGTH - 9)
			match($0, /"code":[0-9]+/); c = substr($0, RSTART + 7, RLENGTH - 7)
			match($0, /"stageTimestamp":"[^"]*"/); t = substr($0, RSTART + 18, RLENGTH - 19)
			print "the API server refused the node controller'"'"'s write to node " n " at " t ", code " c }' |
		tail -n 10 || true
	echo "(the node controller's refused writes to nodes, from $1's audit log: the lines above, if any)"
}

# grading CLUSTER CHAPTERS [TESTS]: the grading tests (by default all of
# them; a further cluster needs only the grading of its chapters) on one
# solved cluster.
grading() {
	use_cluster "$1"
	OPSLAB_SOLVED_CHAPTERS=$2 as_admin go test -tags solved -count=1 -run "${3:-Grad|Missing}" -json ./labcheck/ | testlog ".artifacts/grading-$1-results.json"
}
main_list=$(IFS=,; echo "${main_chapters[*]}")
# grade CLUSTER: the grading of one cluster; on opslab-test, then the
# plants that need a cluster (after the grading, which must see the
# cluster as the solutions left it).
grade() {
	if [ "$1" = opslab-test ]; then
		timed grading "grading opslab-test (chapters $main_list)" grading opslab-test "$main_list" || return
		use_cluster opslab-test
		# cmd/proofs records verdicts in the chapters' plants/verdicts.sum:
		# one run at a time, so the plants' step beside the lanes first.
		until [ -z "${checks_pid:-}" ] || [ -e .artifacts/checks.done ]; do sleep 2; done
		step "proofs that need a cluster, on opslab-test"
		timed grading "proofs: plants that need a cluster" as_admin proofs -cluster || return
		return 0
	fi
	timed grading "grading $1 (chapter ${1##*-})" grading "$1" "${1##*-}" Grading
}
# waits_for_later CLUSTER: whether a chapter on CLUSTER has a lab/later.sh.
waits_for_later() {
	local dir
	for dir in "${lanes[@]}"; do
		[ "${cluster_of[$dir]}" = "$1" ] && has_later "$dir" && return 0
	done
	return 1
}

if [ -n "${OPSLAB_TEST_SERIAL:-}" ]; then
	for dir in "${lanes[@]}"; do
		(chapter "$dir" && touch ".artifacts/lane-$(basename "$dir")".{ok,settled,end}) || exit
	done
	(class_lane) || exit
	for dir in "${lanes[@]}"; do ! has_later "$dir" || (later_lane "$dir") || exit; done
	step "grading the solved clusters: as the opslab-grader service account, changing nothing"
	for c in "${clusters[@]}"; do
		waits_for_later "$c" || (grade "$c") || exit
	done
else
	# The class is the longest lane (about 340 s, most of it a student
	# solving chapter 1): its clusters are made beside the lanes' once the
	# lab binaries are built.
	step "the class in a lane of its own, once the lab binaries are built (log: .artifacts/lane-class.log)"
	(
		status=0
		wait_for .artifacts/binaries.ready lab binaries && class_lane || status=$?
		touch .artifacts/class.done
		exit $status
	) >.artifacts/lane-class.log 2>&1 &
	class_pid=$!
	declare -A lane_pid later_pid
	for dir in "${lanes[@]}"; do
		name=$(basename "$dir")
		step "chapter $name in a lane of its own on ${cluster_of[$dir]} (log: .artifacts/lane-$name.log)"
		(
			status=0
			chapter "$dir" || status=$?
			[ $status -ne 0 ] || touch ".artifacts/lane-$name.ok"
			touch ".artifacts/lane-$name.settled" ".artifacts/lane-$name.end"
			exit $status
		) >".artifacts/lane-$name.log" 2>&1 &
		lane_pid[$dir]=$!
		if has_later "$dir"; then
			step "chapter $name: its lab/later.sh beside the lanes (log: .artifacts/later-$name.log)"
			later_lane "$dir" >".artifacts/later-$name.log" 2>&1 &
			later_pid[$dir]=$!
		fi
	done
	status=0
	wait "$clusters_pid" || status=$?
	step "the lab binaries, the private clusters and their smoke suite: their output"
	cat .artifacts/clusters.log
	[ $status -eq 0 ] || { note_failed .artifacts/clusters.log; echo "make test: the lab clusters or their smoke suite failed (log above)" >&2; exit 1; }
	failed=()
	for dir in "${lanes[@]}"; do
		name=$(basename "$dir")
		status=0
		wait "${lane_pid[$dir]}" || status=$?
		step "chapter $name's lane: its output"
		cat ".artifacts/lane-$name.log"
		[ $status -eq 0 ] || { failed+=("$name"); note_failed ".artifacts/lane-$name.log"; }
	done
	status=0
	wait "$class_pid" || status=$?
	step "the class's lane: its output"
	cat .artifacts/lane-class.log
	[ $status -eq 0 ] || { failed+=(class); note_failed .artifacts/lane-class.log; }
	if [ ${#failed[@]} -gt 0 ]; then
		echo "make test: these chapters failed: ${failed[*]}" >&2
		exit 1
	fi
	# The clusters whose chapters are all done are graded now, beside any
	# lab/later.sh; a cluster with a lab/later.sh by its later_lane, between
	# the busy part and the quiet one (its log is later's).
	step "grading the solved clusters: as the opslab-grader service account, changing nothing (logs: .artifacts/grade-CLUSTER.log)"
	declare -A grade_pid
	for c in "${clusters[@]}"; do
		waits_for_later "$c" && continue
		grade "$c" >".artifacts/grade-$c.log" 2>&1 &
		grade_pid[$c]=$!
	done
	for dir in "${lanes[@]}"; do
		has_later "$dir" || continue
		name=$(basename "$dir")
		status=0
		wait "${later_pid[$dir]}" || status=$?
		step "chapter $name: its lab/later.sh, its output"
		cat ".artifacts/later-$name.log"
		[ $status -eq 0 ] || { failed+=("$name (lab/later.sh)"); note_failed ".artifacts/later-$name.log"; }
	done
	for c in "${clusters[@]}"; do
		[ -n "${grade_pid[$c]:-}" ] || continue
		status=0
		wait "${grade_pid[$c]}" || status=$?
		step "grading $c: its output"
		cat ".artifacts/grade-$c.log"
		[ $status -eq 0 ] || { failed+=("grading $c"); note_failed ".artifacts/grade-$c.log"; }
	done
	if [ ${#failed[@]} -gt 0 ]; then
		echo "make test: these failed: ${failed[*]}" >&2
		exit 1
	fi
fi

# collect waits for a step that ran in the background, prints its log and
# fails make test if it failed: collect PID LOG WHAT.
collect() {
	[ -n "$1" ] || return 0
	step "$3: their output"
	local status=0
	wait "$1" || status=$?
	cat "$2"
	[ $status -eq 0 ] || { note_failed "$2"; echo "make test: $3 failed" >&2; exit 1; }
}
collect "${checks_pid:-}" .artifacts/checks.log "go vet, go test, the nested modules and the plants"
collect "${browser_pid:-}" .artifacts/browser.log "the browser tests in headless Chromium"
collect "${dist_pid:-}" .artifacts/dist.log "labcheck's cross-builds"

step "the site, with every proof's result"
results=$(ls .artifacts/*-results.json | paste -sd, -)
timed main "the site" go run ./cmd/site -out site/out -results "$results"

step "each chapter's figures against the budgets of its shape"
go run ./cmd/chapterfigures
