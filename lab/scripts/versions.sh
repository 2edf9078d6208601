# versions.sh is sourced by the lab scripts: the pinned versions of the lab
# cluster's binaries, and where they are cached. The sources are pinned in
# lab/tools/go.mod; these must agree with it (lab/tools/versions_test.go
# checks that they do).
KUBE_VERSION=v1.36.3
ETCD_VERSION=v3.6.8
KWOK_VERSION=v0.8.0
GO_MIN=1.26

OPSLAB_ROOT=${OPSLAB_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
LAB_CACHE=${LAB_CACHE:-$OPSLAB_ROOT/.cache/lab}
LAB_BIN=$LAB_CACHE/kube-$KUBE_VERSION-etcd-$ETCD_VERSION-kwok-$KWOK_VERSION

# kwokctl_create creates a cluster from the course's configuration with the
# cached binaries; lab-up and bench-lab both create clusters this way. The
# API server keeps an audit log by lab/audit-policy.yaml, in
# ~/.kwok/clusters/NAME/logs/audit.log.
kwokctl_create() {
	KWOK_KUBE_VERSION=$KUBE_VERSION KWOK_KUBECTL_BINARY=$LAB_BIN/kubectl \
	"$LAB_BIN/kwokctl" create cluster --runtime binary \
		--config "$OPSLAB_ROOT/lab/kwokctl.yaml" \
		--kube-audit-policy "$OPSLAB_ROOT/lab/audit-policy.yaml" \
		--kube-apiserver-binary "$LAB_BIN/kube-apiserver" \
		--kube-controller-manager-binary "$LAB_BIN/kube-controller-manager" \
		--kube-scheduler-binary "$LAB_BIN/kube-scheduler" \
		--kwok-controller-binary "$LAB_BIN/kwok" \
		--etcd-binary "$LAB_BIN/etcd" "$@"
}
