# versions.sh is sourced by the lab scripts: the pinned versions of the lab
# cluster's binaries, and where they are cached. The versions are read from
# labcheck/version/pins.env, the one place they are written; the sources are
# pinned in lab/tools/go.mod, which must agree with them
# (TestVersionsMatchTheToolsModule in lab/lab_test.go checks that it does).
GO_MIN=1.26

OPSLAB_ROOT=${OPSLAB_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
. "$OPSLAB_ROOT/labcheck/version/pins.env"
# KUBE_MINOR is the minor release, 36 of v1.36.3.
KUBE_MINOR=${KUBE_VERSION#v1.}
KUBE_MINOR=${KUBE_MINOR%%.*}
# LAB_BIN_CACHE holds the binaries, keyed by the pins: the user's cache
# (${XDG_CACHE_HOME:-~/.cache}/opslab), which every checkout of the course
# shares, so a second clone does not build them again; inside LAB_CACHE
# when that is given (make bench-first-run's caches of its own). It is
# exported, so a script a script runs keeps the same place.
if [ -z "${LAB_BIN_CACHE:-}" ]; then
	if [ -n "${LAB_CACHE:-}" ]; then
		LAB_BIN_CACHE=$LAB_CACHE
	else
		LAB_BIN_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/opslab
	fi
fi
export LAB_BIN_CACHE
LAB_CACHE=${LAB_CACHE:-$OPSLAB_ROOT/.cache/lab}
LAB_BIN=$LAB_BIN_CACHE/kube-$KUBE_VERSION-etcd-$ETCD_VERSION-kwok-$KWOK_VERSION

# lab_cluster_listed NAME: whether kwokctl lists a cluster of that name. The
# list is read whole before it is searched: kwokctl prints a line per cluster,
# and grep -q leaving at the first match can kill it with SIGPIPE before the
# next line, which pipefail turns into "not listed".
lab_cluster_listed() {
	local all
	all=$("$LAB_BIN/kwokctl" get clusters 2>/dev/null) || return 1
	grep -qx -- "$1" <<<"$all"
}

# kwokctl_create creates a cluster from the course's configuration with the
# cached binaries; lab-up and bench-lab both create clusters this way. The
# API server keeps an audit log by lab/audit-policy.yaml, in
# ~/.kwok/clusters/NAME/logs/audit.log. The components act as users of
# their own (lab/scripts/pki.sh), so the API server's port is chosen here
# when the caller names none.
. "$OPSLAB_ROOT/lab/scripts/pki.sh"
kwokctl_create() {
	local name='' port='' a prev='' pki
	for a in "$@"; do
		case $prev in --name) name=$a ;; --kube-apiserver-port) port=$a ;; esac
		case $a in --name=*) name=${a#--name=} ;; --kube-apiserver-port=*) port=${a#*=} ;; esac
		prev=$a
	done
	local more=()
	if [ -z "$port" ]; then
		port=$(lab_free_port) || return 1
		more=(--kube-apiserver-port "$port")
	fi
	pki=${KWOK_WORKDIR:-$HOME/.kwok}/clusters/${name:?kwokctl_create needs --name}/pki
	# LAB_KEEP_PKI=1 keeps a PKI already in place (a class's reset: the
	# student's kubeconfig stays valid).
	if [ ! -f "${pki%/pki}/kwok.yaml" ] && ! { [ "${LAB_KEEP_PKI:-}" = 1 ] && [ -s "$pki/ca.key" ]; }; then
		rm -rf "$pki"
		lab_pki "$pki" "$port" || { rm -rf "${pki%/pki}"; return 1; }
	fi
	while read -r a; do more+=("$a"); done < <(lab_component_args "$pki")
	# A class's API server answers on every address of its host
	# (LAB_APISERVER_BIND=0.0.0.0, lab/scripts/class.sh); everything
	# else stays on the loopback address (lab/kwokctl.yaml).
	[ -n "${LAB_APISERVER_BIND:-}" ] && more+=("--extra-args=kube-apiserver=bind-address=$LAB_APISERVER_BIND")
	# LAB_ETCD_NO_FSYNC=1 (make test's clusters, made to be thrown away):
	# etcd writes without fsync, which waits behind every other write the
	# machine's disk holds.
	[ -n "${LAB_ETCD_NO_FSYNC:-}" ] && more+=("--extra-args=etcd=unsafe-no-fsync=true")
	# kwokctl picks its components' ports by trying them, from 32767
	# down, and knows only the clusters of its own work directory: two
	# creations at once (make test's, a class's, another checkout's) can
	# pick the same port, and the second cluster's etcd or kwok dies. One
	# creation at a time on this machine, then, and the next one only once
	# this cluster's components listen on the ports they were given:
	# kwokctl's --wait sees the API server answer and the processes
	# running, and a controller manager still starting has not yet bound
	# its port, which the next creation would find free and pick again.
	# (The lock's descriptor is closed for kwokctl: the cluster's
	# processes, which kwokctl leaves running, must not inherit it.)
	local lock=${TMPDIR:-/tmp}/opslab-kwokctl-create.lock
	(
		exec {fd}>>"$lock"
		flock -n "$fd" ||
			echo "lab: another lab cluster is being created on this machine; waiting for it (at most 5 minutes)" >&2
		flock -w 300 "$fd" || { echo "lab: another lab cluster's creation held the machine's lock ($lock) for 5 minutes; is a kwokctl create stuck?" >&2; exit 1; }
		KWOK_KUBE_VERSION=$KUBE_VERSION KWOK_KUBECTL_BINARY=$LAB_BIN/kubectl \
			"$LAB_BIN/kwokctl" create cluster --runtime binary "${more[@]}" \
			--config "$OPSLAB_ROOT/lab/kwokctl.yaml" \
			--kube-audit-policy "$OPSLAB_ROOT/lab/audit-policy.yaml" \
			--kube-apiserver-binary "$LAB_BIN/kube-apiserver" \
			--kube-controller-manager-binary "$LAB_BIN/kube-controller-manager" \
			--kube-scheduler-binary "$LAB_BIN/kube-scheduler" \
			--kwok-controller-binary "$LAB_BIN/kwok" \
			--etcd-binary "$LAB_BIN/etcd" "$@" {fd}>&- || exit
		lab_wait_ports "$name"
	)
}

# lab_wait_ports NAME waits, at most a minute, until each of cluster NAME's
# components accepts connections on the port its kwok.yaml gives it; a
# port still closed after that is said, not an error (the lab's health
# checks judge the cluster).
lab_wait_ports() {
	local conf=${KWOK_WORKDIR:-$HOME/.kwok}/clusters/$1/kwok.yaml p deadline=$((SECONDS + 60))
	for p in $(sed -n 's/^ *\(etcdPeerPort\|etcdPort\|kubeApiserverPort\|kubeControllerManagerPort\|kubeSchedulerPort\|kwokControllerPort\): *\([0-9][0-9]*\)$/\2/p' "$conf" 2>/dev/null); do
		until (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do
			if [ $SECONDS -ge $deadline ]; then
				echo "lab: a component of cluster $1 does not listen on its port $p after a minute" >&2
				return 0
			fi
			sleep 0.2
		done
	done
}

# kubectl_advice says, on stderr, when the kubectl a learner's shell runs is
# not the course's: none at all, or another version, which may be several
# minor versions away from the server. It reads the shell's own PATH from
# OPSLAB_USER_PATH (the Makefile saves it before putting $LAB_BIN first).
kubectl_advice() {
	local found version
	found=$(PATH=${OPSLAB_USER_PATH:-$PATH} command -v kubectl || true)
	if [ -z "$found" ]; then
		echo "note: your shell has no kubectl; put the course's first on your PATH with: eval \"\$(make -s env)\"" >&2
		return 0
	fi
	[ "$found" -ef "$LAB_BIN/kubectl" ] && return 0
	version=$("$found" version --client 2>/dev/null | sed -n 's/^Client Version: //p' | head -n 1)
	[ "$version" = "$KUBE_VERSION" ] && return 0
	echo "warning: your shell's kubectl ($found, ${version:-version unknown}) is not the course's ($KUBE_VERSION); put the course's first on your PATH with: eval \"\$(make -s env)\"" >&2
}
