#!/usr/bin/env bash
# lab-up.sh starts the lab cluster, or reuses it when it is already up and
# healthy: a real kube-apiserver, etcd, kube-controller-manager and
# kube-scheduler, with kwok's fake nodes and the course's stages
# (lab/kwokctl.yaml), and the nodes of lab/nodes.yaml. The scheduler, the
# controller manager and kwok each act as a user of their own, with a
# certificate lab/scripts/pki.sh makes before kwokctl starts them.
#
# The learner does not act as the admin: the context kwok-$OPSLAB_CLUSTER
# is the learner's (user opslab:learner, with the role of lab/learner.yaml),
# and kwok-$OPSLAB_CLUSTER-admin is the admin's, for the lab's own scripts
# and labcheck.
#
# Environment: OPSLAB_CLUSTER (default opslab) names the cluster, whose
# kubectl contexts are kwok-$OPSLAB_CLUSTER and kwok-$OPSLAB_CLUSTER-admin;
# KUBECONFIG, when set, is the file
# that receives the context; LAB_PORT, when set, is the kube-apiserver's port
# (by default kwokctl picks a free one).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"

name=${OPSLAB_CLUSTER:-opslab}
ctx=kwok-$name
admin=$ctx-admin
die() { echo "lab-up: $*" >&2; exit 1; }

LAB_QUIET=1 "$OPSLAB_ROOT/lab/scripts/build-binaries.sh"
export PATH=$LAB_BIN:$PATH
export KWOK_KUBE_VERSION=$KUBE_VERSION KWOK_KUBECTL_BINARY=$LAB_BIN/kubectl
kubeconfig_args=()
[ -n "${KUBECONFIG:-}" ] && kubeconfig_args=(--kubeconfig "${KUBECONFIG%%:*}")

healthy() {
	kubectl --context "$ctx" --request-timeout=3s get --raw /readyz >/dev/null 2>&1
}

# pins_advice says, in one line, when the cluster lab-up reuses was built
# from other pins than this checkout's (lab/scripts/versions.sh): its API
# server answers another Kubernetes version, or kwokctl's record of it names
# another etcd or kwok. lab-up reuses a healthy cluster as it is, but the
# labs and the checks are this checkout's.
pins_advice() {
	local running built etcd kwok differ=() said
	running=$(kubectl --context "$ctx" --request-timeout=3s get --raw /version 2>/dev/null |
		grep -o '"gitVersion": *"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/' | head -n 1 || true)
	if [ -n "$running" ] && [ "$running" != "$KUBE_VERSION" ]; then
		differ+=("Kubernetes $running (pinned: $KUBE_VERSION)")
	fi
	# The cached binaries' directory names the three pins it was built from.
	built=$(grep -o 'kube-v[^/"]*-etcd-v[^/"]*-kwok-v[^/"]*' "${KWOK_WORKDIR:-$HOME/.kwok}/clusters/$name/kwok.yaml" 2>/dev/null | head -n 1 || true)
	if [ -n "$built" ]; then
		etcd=${built#*-etcd-} kwok=${built##*-kwok-}
		etcd=${etcd%%-kwok-*}
		if [ "$etcd" != "$ETCD_VERSION" ]; then differ+=("etcd $etcd (pinned: $ETCD_VERSION)"); fi
		if [ "$kwok" != "$KWOK_VERSION" ]; then differ+=("kwok $kwok (pinned: $KWOK_VERSION)"); fi
	fi
	if [ ${#differ[@]} -gt 0 ]; then
		said=$(printf '%s, ' "${differ[@]}")
		echo "lab-up: cluster $name was built from other pins than this checkout's (lab/scripts/versions.sh): it runs ${said%, }; make lab-reset recreates it from this checkout's"
	fi
}

# learner_access gives the cluster its learner's context and the admin's
# (lab/scripts/pki.sh), on a new cluster and on one reused.
learner_access() {
	lab_learner_access "${KWOK_WORKDIR:-$HOME/.kwok}/clusters/$name/pki" "$ctx" "${kubeconfig_args[@]}" ||
		die "could not give cluster $name its learner's context $ctx and the admin's $admin; run make lab-reset"
}

next_steps() {
	echo "lab-up: cluster $name is ready: kubectl context $ctx is yours (user opslab:learner), $admin the lab's own"
	if [ "$name" = opslab ]; then
		kubectl_advice
		cat <<EON
Next:
  export PATH=$(printf %q "$LAB_BIN"):\$PATH   # the course's kubectl $KUBE_VERSION (or: eval "\$(make -s env)")
  kubectl config use-context $ctx   # or pass --context $ctx
  kubectl get nodes -L topology.kubernetes.io/zone,opslab.dev/pool
  open chapters/01-pdb/README.md and follow its lab; make check-chapter-1 tells you where you stand
EON
	fi
}

if lab_cluster_listed "$name"; then
	if healthy; then
		echo "lab-up: reusing cluster $name, which is up and healthy"
		if [ ! -f "${KWOK_WORKDIR:-$HOME/.kwok}/clusters/$name/logs/audit.log" ]; then
			echo "lab-up: cluster $name keeps no audit log (it was created before the lab kept one), so the checks judge from the API alone; make lab-reset recreates it"
		elif [ ! -f "${KWOK_WORKDIR:-$HOME/.kwok}/clusters/$name/pki/kube-scheduler.kubeconfig" ]; then
			echo "lab-up: cluster $name's scheduler, controller manager and kwok act as the admin, as you do (it was created before they had users of their own), so the checks count their requests as yours; make lab-reset recreates it"
		fi
		pins_advice
		learner_access
		next_steps
		exit 0
	fi
	echo "lab-up: cluster $name exists but is not answering; restarting it (at most a minute)"
	kwokctl stop cluster --name "$name" >/dev/null 2>&1 || true
	if timeout 60 kwokctl start cluster --name "$name" --wait 45s >/dev/null 2>&1 && healthy; then
		pins_advice
		learner_access
		next_steps
		exit 0
	fi
	die "cluster $name exists but is unhealthy (its API server does not answer /readyz); run make lab-reset to recreate it"
fi

if [ -n "${LAB_PORT:-}" ]; then
	if (exec 3<>"/dev/tcp/127.0.0.1/$LAB_PORT") 2>/dev/null; then
		die "port $LAB_PORT is in use by another program; set LAB_PORT to a free port, or unset it to let kwokctl pick one"
	fi
	port_args=(--kube-apiserver-port "$LAB_PORT")
else
	port_args=()
fi

echo "lab-up: creating cluster $name (kube-apiserver $KUBE_VERSION, etcd $ETCD_VERSION, kwok $KWOK_VERSION)"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! kwokctl_create --name "$name" "${port_args[@]}" "${kubeconfig_args[@]}" --wait 2m >"$log" 2>&1; then
	logs=${KWOK_WORKDIR:-$HOME/.kwok}/clusters/$name/logs
	failed=$(grep -oE '(kube-apiserver|kube-controller-manager|kube-scheduler|kwok-controller|etcd)' "$log" | tail -1 || true)
	if [ -n "$failed" ] && [ -f "$logs/$failed.log" ]; then
		echo "lab-up: last lines of $failed's log:" >&2
		tail -n 8 "$logs/$failed.log" | sed 's/^/    /' >&2
	else
		echo "lab-up: kwokctl reported:" >&2
		# kwokctl logs JSON; its errors are the "err" fields of ERROR lines.
		grep '"level":"ERROR"' "$log" | sed -n 's/.*"err":"\(.*\)"}$/\1/p' | tail -n 1 |
			sed 's/\\n/\n/g; s/\\"/"/g' | sed '/^$/d; s/^/    /' >&2
	fi
	kwokctl delete cluster --name "$name" "${kubeconfig_args[@]}" >/dev/null 2>&1 || true
	die "kwokctl could not create cluster $name${failed:+ ($failed failed, log above)}; fix the cause and run make lab-up again"
fi

learner_access
kubectl --context "$admin" create -f "$OPSLAB_ROOT/lab/nodes.yaml" >/dev/null
# kwok marks the nodes Ready within a second; a plain poll is quicker than
# kubectl wait, which sets up a watch for each node.
want=$(grep -c '^kind: Node$' "$OPSLAB_ROOT/lab/nodes.yaml")
ready_query='{range .items[*]}{range .status.conditions[?(@.type=="Ready")]}{.status}{"\n"}{end}{end}'
# The waits are by the clock: on a busy machine each kubectl takes longer.
logs=${KWOK_WORKDIR:-$HOME/.kwok}/clusters/$name/logs
deadline=$((SECONDS + 60))
while :; do
	ready=$(kubectl --context "$admin" get nodes -o jsonpath="$ready_query" | grep -c '^True$' || true)
	[ "$ready" -ge "$want" ] || [ $SECONDS -ge $deadline ] && break
	sleep 0.1
done
if [ "$ready" -lt "$want" ]; then
	# kwok marks them Ready: say why it did not, when its log does.
	why=$(grep -o '"msg":"Failed to run server"[^}]*"err":"[^"]*"' "$logs/kwok-controller.log" 2>/dev/null | tail -n 1 | sed 's/.*"err":"//; s/"$//' || true)
	die "only $ready of the lab's $want nodes became Ready within 60 s${why:+ (kwok: $why)}; run make lab-reset"
fi
# The controllers run under their own service accounts, so on a new cluster
# the service account controller first waits for its own credentials; until
# it has made namespace default's account, a lab's first pods would be
# refused for want of theirs.
deadline=$((SECONDS + 60))
until kubectl --context "$admin" -n default get serviceaccount default >/dev/null 2>&1; do
	[ $SECONDS -lt $deadline ] ||
		die "the service account controller made no account in 60 s (see $logs/kube-controller-manager.log); run make lab-reset"
	sleep 0.1
done
next_steps
