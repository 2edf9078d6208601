#!/usr/bin/env bash
# class-test.sh is make test's class on this machine (lab/scripts/class.sh):
# three students, honest, cheater and idle, whose clusters answer at
# 127.0.0.2, a loopback address other than the one the clusters' own
# components use, so every student-side request goes through the address
# in the student's kubeconfig. Each student acts only through that file.
#
#  1. class.sh up: three clusters, a kubeconfig each, the grading roster.
#  2. No student can reach another's cluster: the CA of one does not
#     verify another's server, and one's certificate is refused by another.
#  3. honest runs chapter 1's reference solution through their kubeconfig.
#  4. cheater tries what a student can still reach: a pod binding, a
#     Scheduled event and a token in the scheduler's user agent (all
#     refused), and the drain of pdb-3 done as a dry-run eviction followed
#     by deletes in kwok's user agent, which the checks must judge as the
#     student's own deletes.
#  5. labcheck grade --roster, as the instructor: honest passes every check,
#     cheater fails the drain, idle fails everything; every report says its
#     evidence was held by the host. A log a student hands in is refused.
#  6. The manifests of lab/class/kubernetes for a class of three (each
#     student's lab as a pod of the pinned releases' public images) pass a
#     server-side dry run on a real API server, in both their forms
#     (LoadBalancer and emptyDir; NodePort and PVCs); applied to idle's
#     kwok cluster, every lab pod is scheduled and its setup Job completes;
#     each component's flags are those idle's own lab cluster runs with;
#     honest's pod, run with the pinned binaries (local.sh), serves the
#     student's kubeconfig as the learner and audits each component.
#  7. class.sh reset cheater keeps cheater's kubeconfig valid; status shows
#     every cluster healthy; class.sh down removes them.
#
# Environment: CLASS_DIR (default: a temporary directory), LABCHECK (a built
# labcheck; default: go run).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"
export PATH=$LAB_BIN:$PATH
# A class's clusters as an instructor makes them: their etcd flags are
# compared with the hosted lab pod's, so not make test's (LAB_ETCD_NO_FSYNC).
unset LAB_ETCD_NO_FSYNC
cd "$OPSLAB_ROOT"
work=$(mktemp -d)
export CLASS_DIR=${CLASS_DIR:-$work/class}
# A class an earlier run left behind.
lab/scripts/class.sh down >/dev/null 2>&1 || true
host=127.0.0.2
class=lab/scripts/class.sh
fail() { echo "class-test: FAIL: $*" >&2; exit 1; }
step() { printf '\n== class: %s\n' "$*"; }
cleanup() {
	"$class" down >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT
labcheck() { if [ -n "${LABCHECK:-}" ]; then "$LABCHECK" "$@"; else go run ./cmd/labcheck "$@"; fi; }

step "1. a class of three at $host"
printf '# make test'"'"'s class\nhonest\ncheater\nidle\n' >"$work/roster.txt"
start=$SECONDS
# A cluster that did not start is made by running up again, as class.sh
# advises an instructor; once, and said.
if ! "$class" up "$work/roster.txt" "$host"; then
	echo "class-test: a student's cluster did not start; class.sh up once more, as it advises"
	"$class" up "$work/roster.txt" "$host"
fi
echo "class-test: the class of three was up in $((SECONDS - start)) s"
S=$CLASS_DIR/students
for n in honest cheater idle; do
	[ -s "$S/$n.kubeconfig" ] || fail "no kubeconfig for $n"
	grep -q "server: https://$host:" "$S/$n.kubeconfig" || fail "$n's kubeconfig does not name the class's address $host"
	if grep -q 'kwok-admin\|127\.0\.0\.1' "$S/$n.kubeconfig"; then fail "$n's kubeconfig names the admin or the host's loopback address"; fi
	who=$(kubectl --kubeconfig "$S/$n.kubeconfig" auth whoami -o jsonpath='{.status.userInfo.username}')
	[ "$who" = opslab:learner ] || fail "$n's kubeconfig acts as $who, not opslab:learner"
done

step "2. no student can reach another's cluster"
other=$(grep 'server:' "$S/cheater.kubeconfig" | awk '{print $2}')
if out=$(kubectl --kubeconfig "$S/honest.kubeconfig" --server "$other" get namespaces 2>&1); then
	fail "honest's kubeconfig read cheater's cluster: $out"
fi
grep -q 'certificate signed by unknown authority' <<<"$out" || fail "honest's kubeconfig at cheater's address: want an unknown authority, got: $out"
if out=$(kubectl --kubeconfig "$S/honest.kubeconfig" --server "$other" --insecure-skip-tls-verify get namespaces 2>&1); then
	fail "honest's certificate was accepted by cheater's cluster: $out"
fi
grep -qi 'logged in\|unauthorized' <<<"$out" || fail "honest's certificate at cheater's cluster: want 401, got: $out"
echo "class-test: one student's CA rejects another's server, and one's certificate is refused by another's (401)"

step "3. honest: chapter 1's reference solution, as the student, through their kubeconfig"
KUBECONFIG=$S/honest.kubeconfig OPSLAB_CONTEXT=kwok-opslab OPSLAB_ADMIN_CONTEXT=kwok-opslab \
	chapters/01-pdb/lab/solve.sh >"$work/honest.log" 2>&1 || { cat "$work/honest.log"; fail "chapter 1's solution failed as the student"; }
tail -n 3 "$work/honest.log"

step "4. cheater: forged user agents, with the student's own certificate"
k() { kubectl --kubeconfig "$S/cheater.kubeconfig" "$@"; }
# forge sends a request with the student's credentials and any agent.
go build -o "$work/forge" ./lab/class/forge
api() { "$work/forge" -kubeconfig "$S/cheater.kubeconfig" "$@"; }
k apply -f chapters/01-pdb/lab/namespace.yaml -f chapters/01-pdb/lab/ledger.yaml -f chapters/01-pdb/lab/budget.yaml >/dev/null
k -n pdb-lab rollout status deployment/ledger --timeout=2m >/dev/null
pod=$(k -n pdb-lab get pods -o jsonpath='{.items[0].metadata.name}')
path=/api/v1/namespaces/pdb-lab/pods/$pod/binding
code=$(api -agent "kube-scheduler/$KUBE_VERSION (linux/amd64) kubernetes/scheduler" -X POST "$path" \
	"{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"$pod\"},\"target\":{\"kind\":\"Node\",\"name\":\"pdb-1\"}}")
[ "$code" = 403 ] || fail "a binding in the scheduler's agent: HTTP $code, want 403"
path=/api/v1/namespaces/pdb-lab/events
code=$(api -agent "kube-scheduler/$KUBE_VERSION (linux/amd64) kubernetes/scheduler" -X POST "$path" \
	"{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"forged\"},\"involvedObject\":{\"kind\":\"Pod\",\"namespace\":\"pdb-lab\",\"name\":\"$pod\"},\"reason\":\"Scheduled\",\"source\":{\"component\":\"default-scheduler\"}}")
[ "$code" = 403 ] || fail "a Scheduled event in the scheduler's agent: HTTP $code, want 403"
path=/api/v1/namespaces/kube-system/serviceaccounts/pod-garbage-collector/token
code=$(api -agent "kube-controller-manager/$KUBE_VERSION (linux/amd64) kubernetes/pod-garbage-collector" -X POST "$path" \
	'{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}}')
[ "$code" = 403 ] || fail "a pod-garbage-collector token in the controller manager's agent: HTTP $code, want 403"
echo "class-test: a binding, a Scheduled event and a controller's token, each in a component's agent: 403, 403, 403"
k cordon pdb-3 >/dev/null
for pod in $(k -n pdb-lab get pods --field-selector spec.nodeName=pdb-3 -o jsonpath='{.items[*].metadata.name}'); do
	path=/api/v1/namespaces/pdb-lab/pods/$pod/eviction
	code=$(api -agent "kubectl/$KUBE_VERSION (linux/amd64) kubernetes/drain" -X POST "$path" \
		"{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"$pod\",\"namespace\":\"pdb-lab\"},\"deleteOptions\":{\"dryRun\":[\"All\"]}}")
	path=/api/v1/namespaces/pdb-lab/pods/$pod
	code=$(api -agent "kwok/$KWOK_VERSION (linux/amd64) kwok" -X DELETE "$path")
	[ "$code" = 200 ] || fail "the delete of $pod in kwok's agent: HTTP $code"
done
k -n pdb-lab rollout status deployment/ledger --timeout=2m >/dev/null
echo "class-test: pdb-3 emptied by dry-run evictions and deletes in kwok's agent"

step "5. the instructor grades the class"
labcheck grade --roster "$CLASS_DIR/roster.txt" --chapter 1 --out "$work/grades" >"$work/grade.log" 2>&1 ||
	{ cat "$work/grade.log"; fail "labcheck grade failed"; }
cat "$work/grades/summary.csv"
score() { awk -F, -v n="$1" '$1 == n {print $4 "/" $5}' "$work/grades/summary.csv"; }
[ "$(score honest)" = 10/10 ] || { cat "$work/grades/honest/report.txt"; fail "honest scored $(score honest), want 10/10"; }
[ "$(score idle)" = 0/10 ] || fail "idle scored $(score idle), want 0/10"
cheat=$(score cheater)
[ "${cheat%/*}" -lt 10 ] || { cat "$work/grades/cheater/report.txt"; fail "cheater scored $cheat: forged agents passed"; }
grep -q '✗ 1.3' "$work/grades/cheater/report.txt" || { cat "$work/grades/cheater/report.txt"; fail "check 1.3 (the drain) did not fail for cheater"; }
for n in honest cheater idle; do
	grep -q '^Custody: held by the host' "$work/grades/$n/report.txt" || fail "$n's report does not say the host held its evidence"
done
echo "class-test: honest $(score honest), cheater $cheat (the drain failed: the deletes were the student's), idle $(score idle); every report: held by the host"
# A log a student hands in (here: honest's, renamed) is not their cluster's
# live log: labcheck's own request of this grading is not in it.
cp "$CLASS_DIR/kwok/clusters/class-honest/logs/audit.log" "$work/handed-in.log"
echo "cheater $CLASS_DIR/admin.kubeconfig kwok-class-cheater-admin $work/handed-in.log" >"$work/handed-in.txt"
labcheck grade --roster "$work/handed-in.txt" --chapter 1 --out "$work/grades-handed-in" >"$work/grade2.log" 2>&1 || true
grep -q "is not this cluster's log" "$work/grades-handed-in/summary.csv" "$work/grade2.log" ||
	{ cat "$work/grade2.log" "$work/grades-handed-in/summary.csv"; fail "a log handed in by a student was not refused"; }
echo "class-test: a log handed in for cheater (honest's, copied) is refused: not this cluster's log"

step "6. the manifests for a school's Kubernetes cluster: dry run, applied to a kwok cluster, scheduled"
ak() { kubectl --kubeconfig "$CLASS_DIR/admin.kubeconfig" --context kwok-class-idle-admin "$@"; }
render=lab/class/kubernetes/render.sh
# Bad input: one line that says what is wrong, and no success.
printf 'honest\nNot_A_Name\n' >"$work/bad-roster.txt"
for bad in "$work/no-roster.txt" "$work/bad-roster.txt"; do
	if out=$("$render" "$bad" lab.school.example "$work/k8s-bad" 2>&1 >/dev/null); then fail "render.sh accepted $bad"; fi
	[ "$(wc -l <<<"$out")" = 1 ] || fail "render.sh on $bad: want one line, got: $out"
	echo "class-test: $out"
done
k8s=$work/k8s
"$render" "$work/roster.txt" lab.school.example "$k8s" >"$work/manifests.yaml"
"$render" --nodeport 30443 --pvc 2Gi "$work/roster.txt" 192.0.2.10 "$work/k8s-nodeport" >"$work/manifests-nodeport.yaml"
i=0
for n in honest cheater idle; do
	grep -q "server: https://$n.lab.school.example:6443$" "$k8s/students/$n.kubeconfig" || fail "$n's kubeconfig does not name $n.lab.school.example:6443"
	grep -q "server: https://192.0.2.10:$((30443 + i))$" "$work/k8s-nodeport/students/$n.kubeconfig" || fail "$n's NodePort kubeconfig does not name port $((30443 + i))"
	i=$((i + 1))
	if grep -q 'kwok-admin\|127\.0\.0\.1' "$k8s/students/$n.kubeconfig"; then fail "$n's kubeconfig names the admin or a loopback address"; fi
	# A namespaced object's dry run needs its namespace to exist.
	ak create namespace "opslab-$n" --save-config >/dev/null
done
[ "$(wc -l <"$k8s/roster.txt")" = 3 ] || fail "render.sh's roster does not name three students"
for m in manifests manifests-nodeport; do
	ak apply --dry-run=server -f "$work/$m.yaml" >"$work/$m.dryrun"
	want=$(grep -c '^kind: ' "$work/$m.yaml")
	got=$(grep -c 'server dry run' "$work/$m.dryrun")
	[ "$got" = "$want" ] || { cat "$work/$m.dryrun"; fail "the dry run of $m.yaml accepted $got of $want objects"; }
	echo "class-test: $m.yaml: the API server accepted all $want objects (server dry run)"
done
ak apply -f "$work/manifests.yaml" >/dev/null
# kwok's nodes run what the scheduler binds: wait by the clock until every
# lab pod is bound and running and every setup Job has completed.
placed() { ak -n "opslab-$1" get pod lab-0 -o jsonpath='{.spec.nodeName} {.status.phase}' 2>/dev/null || true; }
set_up() { [ "$(ak -n "opslab-$1" get job lab-setup -o jsonpath='{.status.succeeded}' 2>/dev/null)" = 1 ]; }
deadline=$((SECONDS + 120))
for n in honest cheater idle; do
	until [[ $(placed "$n") =~ ^[a-z0-9.-]+\ Running$ ]] && set_up "$n"; do
		[ $SECONDS -lt $deadline ] || {
			ak -n "opslab-$n" get pods,jobs -o wide
			ak -n "opslab-$n" get events
			fail "$n's lab pod was not scheduled and running, with its setup Job complete, within 120 s"
		}
		sleep 1
	done
	echo "class-test: opslab-$n: pod lab-0 $(ak -n "opslab-$n" get pod lab-0 -o jsonpath='{.status.phase} on node {.spec.nodeName}, {.status.containerStatuses[*].name}'); setup Job complete"
done
# Each component runs with the flags kwokctl gives it in idle's own lab
# cluster (values differ only by paths and ports).
for c in etcd kube-apiserver kube-controller-manager kube-scheduler kwok; do
	b=$c
	[ "$c" = kwok ] && b=kwok-controller
	pid=$(pgrep -f "^$CLASS_DIR/kwok/clusters/class-idle/bin/$b( |\$)" | head -n 1) || true
	[ -n "$pid" ] || fail "found no $b process of idle's cluster"
	lab=$(ps -o args= -p "$pid" | tr ' ' '\n' | grep '^--' | sed 's/=.*//' | sort -u | tr '\n' ' ')
	pod=$(ak -n opslab-idle get statefulset lab -o jsonpath="{.spec.template.spec.containers[?(@.name==\"$c\")].command[*]}" |
		tr ' ' '\n' | grep '^--' | sed 's/=.*//' | sort -u | tr '\n' ' ')
	[ "$lab" = "$pod" ] || fail "$c's flags in the lab pod differ from the lab's: lab: $lab; pod: $pod"
done
echo "class-test: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok: the flags of idle's lab cluster"
# kwok starts no container: run honest's lab pod, as idle's API server holds
# it, with the pinned binaries in a network namespace of its own.
if unshare -rn true 2>/dev/null; then
	lab/class/kubernetes/local.sh "$CLASS_DIR/admin.kubeconfig" kwok-class-idle-admin opslab-honest "$k8s/students/honest.kubeconfig" |
		sed 's/^local:/class-test: honest'"'"'s lab pod on this machine:/'
else
	echo "class-test: NOT RUN: honest's lab pod on this machine (lab/class/kubernetes/local.sh) needs unshare -rn, which this machine refuses"
fi
ak delete namespace opslab-honest opslab-cheater opslab-idle --wait=false >/dev/null

step "7. reset, status, down"
"$class" reset cheater
who=$(kubectl --kubeconfig "$S/cheater.kubeconfig" auth whoami -o jsonpath='{.status.userInfo.username}')
[ "$who" = opslab:learner ] || fail "cheater's kubeconfig no longer works after the reset"
k get namespace pdb-lab >/dev/null 2>&1 && fail "cheater's cluster still holds pdb-lab after the reset"
"$class" status | tee "$work/status.txt"
[ "$(grep -c ' ok ' "$work/status.txt")" = 3 ] || fail "not every cluster is healthy after the reset"
ls "$CLASS_DIR/archive/" | grep -q '^cheater-' || fail "cheater's old audit log was not archived"
"$class" down
echo "class-test: all passed"
