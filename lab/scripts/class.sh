#!/usr/bin/env bash
# class.sh runs a class on one host the school owns: a lab cluster for each
# student, made as make lab-up makes the learner's (the course's pinned
# binaries, nodes, stages and audit policy), each API server on a port of
# its own and serving a certificate valid for the host's name or address.
# A student receives one kubeconfig: their cluster's learner identity
# (opslab:learner, lab/learner.yaml), nothing of the host. The audit logs,
# the certificates and the admin's credentials stay in the class directory,
# out of the students' reach, so the instructor grades from evidence no
# student could edit.
#
#   class.sh up ROSTER [HOST]  start (or resume) a cluster for every name
#                              in ROSTER, one name a line (# comments);
#                              HOST is the name or address the students
#                              reach this machine at (default: its name)
#   class.sh status            each cluster's health, uptime and memory
#   class.sh reset NAME        a fresh cluster for NAME: same address,
#                              same certificates (their kubeconfig stays
#                              valid); the old audit log is archived
#   class.sh down              remove every cluster, archiving the logs
#
# Everything is in CLASS_DIR (default .class in the checkout):
#   students/NAME.kubeconfig   hand it to NAME: context kwok-opslab
#   roster.txt                 for labcheck grade --roster: NAME, the
#                              admin's kubeconfig and context, the audit log
#   admin.kubeconfig           the instructor's: kwok-class-NAME-admin
#   kwok/                      the clusters' files (audit logs, PKI)
#   archive/                   the audit logs of clusters reset or removed
#   logs/                      each cluster's start log
#
# CLASS_PORT, for a class of one, fixes its API server's port.
#
# Running up again changes nothing that is up, restarts what is not (after
# a reboot of the host, say), and adds new names. Only the API servers
# listen beyond the loopback address (LAB_APISERVER_BIND, default 0.0.0.0);
# etcd and every other component stay on it (lab/kwokctl.yaml).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"
export PATH=$LAB_BIN:$PATH
dir=${CLASS_DIR:-$OPSLAB_ROOT/.class}
export KWOK_WORKDIR=$dir/kwok
admin=$dir/admin.kubeconfig
die() { echo "class: $*" >&2; exit 1; }
usage() { die "usage: class.sh up ROSTER [HOST] | status | reset NAME | down"; }

# names FILE prints the roster's names, one a line, and fails on a name
# that cannot name a cluster.
names() {
	[ -f "$1" ] || die "no roster file $1; write one student name a line"
	local n line=0 bad=0
	while IFS= read -r n || [ -n "$n" ]; do
		line=$((line + 1))
		n=${n%%#*}
		n=$(echo "$n" | tr -d '[:space:]')
		[ -n "$n" ] || continue
		if ! [[ $n =~ ^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$ ]]; then
			echo "class: $1 line $line: \"$n\" cannot name a cluster; use lower-case letters, digits and dashes (at most 40)" >&2
			bad=1
			continue
		fi
		echo "$n"
	done <"$1"
	[ $bad -eq 0 ]
}

# enrolled prints the names of the class: its roster's, and those of any
# cluster an interrupted class.sh up made before it wrote the roster.
enrolled() {
	{
		[ -f "$dir/roster.txt" ] && awk '{print $1}' "$dir/roster.txt"
		ls -d "$KWOK_WORKDIR"/clusters/class-* 2>/dev/null | sed 's|.*/class-||'
	} | sort -u || true
}

# server NAME prints the address kwokctl gave NAME's API server.
server() { kubectl --kubeconfig "$admin" config view -o jsonpath="{.clusters[?(@.name==\"kwok-class-$1\")].cluster.server}"; }

# student_kubeconfig NAME writes students/NAME.kubeconfig: the cluster at
# https://HOST:PORT, its CA, and the learner's certificate.
student_kubeconfig() {
	local n=$1 pki=$KWOK_WORKDIR/clusters/class-$1/pki port host=$HOST out
	port=$(server "$n")
	port=${port##*:}
	[ -n "$port" ] || die "cluster class-$n has no address in $admin; run class.sh reset $n"
	case $host in *:*) host="[$host]" ;; esac
	out=$dir/students/$n.kubeconfig
	mkdir -p "$dir/students"
	cat >"$out.tmp" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kwok-opslab
  cluster:
    server: https://$host:$port
    certificate-authority-data: $(base64 <"$pki/ca.crt" | tr -d '\n')
users:
- name: opslab-learner
  user:
    client-certificate-data: $(base64 <"$pki/learner.crt" | tr -d '\n')
    client-key-data: $(base64 <"$pki/learner.key" | tr -d '\n')
contexts:
- name: kwok-opslab
  context:
    cluster: kwok-opslab
    user: opslab-learner
current-context: kwok-opslab
EOF
	chmod 600 "$out.tmp"
	mv "$out.tmp" "$out"
}

# cluster_up NAME starts or resumes NAME's cluster, its log in logs/.
cluster_up() {
	local n=$1 sans
	case $HOST in
	*[!0-9.]* | '') case $HOST in *:*) sans="IP:$HOST" ;; *) sans="DNS:$HOST" ;; esac ;;
	*) sans="IP:$HOST" ;;
	esac
	mkdir -p "$dir/logs"
	OPSLAB_CLUSTER=class-$n KUBECONFIG=$admin LAB_HOST_SANS=$sans LAB_PORT=${LAB_PORT:-${CLASS_PORT:-}} \
		LAB_APISERVER_BIND=${LAB_APISERVER_BIND:-0.0.0.0} \
		"$OPSLAB_ROOT/lab/scripts/lab-up.sh" >"$dir/logs/up-$n.log" 2>&1
}

# archive NAME moves NAME's audit log (and its rotated segments) to
# archive/NAME-TIME/.
archive() {
	local logs=$KWOK_WORKDIR/clusters/class-$1/logs to
	ls "$logs"/audit*.log >/dev/null 2>&1 || return 0
	to=$dir/archive/$1-$(date -u +%Y%m%dT%H%M%SZ)
	mkdir -p "$to"
	cp -p "$logs"/audit*.log "$to/"
	echo "class: $1's audit log archived in $to"
}

# pids NAME prints the processes of NAME's cluster.
pids() { pgrep -f -- "/clusters/class-$1/" || true; }

up() {
	local roster=$1 list n i=0 t total start=$SECONDS failed=()
	HOST=${2:-$(cat "$dir/host" 2>/dev/null || hostname -f 2>/dev/null || hostname)}
	list=$(names "$roster") || exit 1
	[ -n "$list" ] || die "roster $roster names no student"
	"$OPSLAB_ROOT/lab/scripts/build-binaries.sh"
	mkdir -p "$dir"
	chmod 700 "$dir"
	if [ -f "$dir/host" ] && [ "$(cat "$dir/host")" != "$HOST" ]; then
		die "this class answers at $(cat "$dir/host"); run class.sh down first to move it to $HOST"
	fi
	echo "$HOST" >"$dir/host"
	total=$(echo "$list" | wc -l)
	# CLASS_PORT fixes the API server's port: a class of one in a pod of
	# a school's Kubernetes cluster (lab/class/kubernetes).
	[ -z "${CLASS_PORT:-}" ] || [ "$total" -eq 1 ] || die "CLASS_PORT fixes one API server's port; a class of $total needs a port each, so unset it"
	echo "class: $total students at $HOST; the first start of a cluster takes 10-30 s"
	while read -r n; do
		i=$((i + 1))
		t=$SECONDS
		printf 'class: %*d/%d %-20s ' ${#total} "$i" "$total" "$n"
		if cluster_up "$n"; then
			student_kubeconfig "$n"
			printf 'up in %3ds   %s\n' $((SECONDS - t)) "$(server "$n" | sed "s|127.0.0.1|$HOST|")"
		else
			printf 'FAILED (log: %s)\n' "$dir/logs/up-$n.log"
			tail -n 3 "$dir/logs/up-$n.log" | sed 's/^/    /'
			failed+=("$n")
		fi
	done <<<"$list"
	# The roster labcheck grades: every name ever enrolled and still up.
	{
		enrolled
		echo "$list"
	} | sort -u | while read -r n; do
		[ -d "$KWOK_WORKDIR/clusters/class-$n" ] || continue
		echo "$n $admin kwok-class-$n-admin $KWOK_WORKDIR/clusters/class-$n/logs/audit.log"
	done >"$dir/roster.tmp"
	mv "$dir/roster.tmp" "$dir/roster.txt"
	echo "class: $((total - ${#failed[@]})) of $total clusters up in $((SECONDS - start)) s"
	echo "class: hand each student their file in $dir/students/; grade with:"
	echo "  go run ./cmd/labcheck grade --roster $dir/roster.txt --chapter all --out grades/"
	[ ${#failed[@]} -eq 0 ] || die "no cluster for: ${failed[*]}; run class.sh up $roster again"
}

status() {
	[ -n "$(enrolled)" ] || die "no class in $dir; start one with class.sh up ROSTER HOST"
	local n health up mem p pid
	printf '%-20s %-7s %9s %9s  %s\n' STUDENT HEALTH UPTIME MEMORY ADDRESS
	for n in $(enrolled); do
		if kubectl --kubeconfig "$admin" --context "kwok-class-$n-admin" --request-timeout=3s get --raw /readyz >/dev/null 2>&1; then
			health=ok
		else
			health=DOWN
		fi
		up=- mem=0
		pid=$(pgrep -f -- "kube-apiserver.*/clusters/class-$n/" | head -n 1 || true)
		[ -n "$pid" ] && up=$(ps -o etimes= -p "$pid" | tr -d ' ')s
		for p in $(pids "$n"); do mem=$((mem + $(ps -o rss= -p "$p" 2>/dev/null || echo 0))); done
		printf '%-20s %-7s %9s %7dMB  %s\n' "$n" "$health" "$up" $((mem / 1024)) "$(server "$n" | sed "s|127.0.0.1|$(cat "$dir/host")|")"
	done
}

# remove NAME removes NAME's cluster, stops whatever of it is still
# running after kwokctl has deleted it, and waits until it is gone:
# kwokctl kills a cluster's processes without waiting for them (they are
# not its children), and a reset starts the new API server on the old one's
# port, which stays taken until the old one has exited.
remove() {
	local pattern="/clusters/class-$1/" i
	OPSLAB_CLUSTER=class-$1 KUBECONFIG=$admin "$OPSLAB_ROOT/lab/scripts/lab-down.sh" >/dev/null
	pkill -f -- "$pattern" 2>/dev/null || true
	for i in $(seq 100); do
		pgrep -f -- "$pattern" >/dev/null || return 0
		[ "$i" -ne 50 ] || pkill -KILL -f -- "$pattern" 2>/dev/null || true
		sleep 0.2
	done
	echo "class: cluster class-$1's processes are still running 20 s after they were killed: $(pgrep -fl -- "$pattern" | cut -c1-60 | paste -sd' ')" >&2
}

reset() {
	local n=$1 pki port keep
	HOST=$(cat "$dir/host" 2>/dev/null) || die "no class in $dir"
	grep -qx -- "$n" <<<"$(enrolled)" || die "$n is not in this class; the class is: $(enrolled | paste -sd' ')"
	pki=$KWOK_WORKDIR/clusters/class-$n/pki
	[ -s "$pki/ca.key" ] || die "cluster class-$n has no certificates to keep; run class.sh up with a roster that names $n"
	port=$(server "$n")
	port=${port##*:}
	archive "$n"
	keep=$(mktemp -d)
	cp -a "$pki" "$keep/pki"
	remove "$n"
	[ ! -f "$KWOK_WORKDIR/clusters/class-$n/kwok.yaml" ] || die "cluster class-$n is still there after lab-down; run class.sh down, then up"
	mkdir -p "$KWOK_WORKDIR/clusters/class-$n"
	cp -a "$keep/pki" "$pki"
	rm -rf "$keep"
	echo "class: a fresh cluster for $n at port $port"
	LAB_KEEP_PKI=1 LAB_PORT=$port cluster_up "$n" || die "cluster class-$n did not start; see $dir/logs/up-$n.log"
	student_kubeconfig "$n"
	echo "class: $n's cluster is new; their kubeconfig is unchanged"
}

down() {
	local n
	for n in $(enrolled); do
		archive "$n"
		remove "$n"
		rm -f "$dir/students/$n.kubeconfig"
		echo "class: removed $n's cluster"
	done
	rm -f "$dir/roster.txt" "$dir/host"
}

case ${1:-} in
up) [ $# -ge 2 ] && [ $# -le 3 ] || usage; up "$2" "${3:-}" ;;
status) [ $# -eq 1 ] || usage; status ;;
reset) [ $# -eq 2 ] || usage; reset "$2" ;;
down) [ $# -eq 1 ] || usage; down ;;
*) usage ;;
esac
