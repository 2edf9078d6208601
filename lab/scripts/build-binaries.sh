#!/usr/bin/env bash
# build-binaries.sh builds the lab cluster's binaries from the pinned sources
# in lab/tools into a cache directory keyed by their versions. A binary is
# written under a temporary name and renamed only once it is complete, so an
# interrupted or failed build never leaves a half-written binary behind; a
# second run with everything present does nothing.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"

die() { echo "lab-binaries: $*" >&2; exit 1; }

# component, package, extra ldflags
kube_ld="-X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$KUBE_MINOR -X k8s.io/component-base/version.gitTreeState=clean"
kube_ld="$kube_ld -X k8s.io/client-go/pkg/version.gitVersion=$KUBE_VERSION -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$KUBE_MINOR -X k8s.io/client-go/pkg/version.gitTreeState=clean"
kwok_ld="-X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION#v} -X sigs.k8s.io/kwok/pkg/consts.KubeVersion=${KUBE_VERSION#v}"
components=(
	"kube-apiserver|k8s.io/kubernetes/cmd/kube-apiserver|$kube_ld"
	"kube-controller-manager|k8s.io/kubernetes/cmd/kube-controller-manager|$kube_ld"
	"kube-scheduler|k8s.io/kubernetes/cmd/kube-scheduler|$kube_ld"
	"kubectl|k8s.io/kubernetes/cmd/kubectl|$kube_ld"
	"etcd|go.etcd.io/etcd/server/v3|"
	"kwok|sigs.k8s.io/kwok/cmd/kwok|$kwok_ld"
	"kwokctl|sigs.k8s.io/kwok/cmd/kwokctl|$kwok_ld"
)

missing=()
for c in "${components[@]}"; do
	name=${c%%|*}
	[ -x "$LAB_BIN/$name" ] || missing+=("$c")
done
if [ ${#missing[@]} -eq 0 ]; then
	[ -n "${LAB_QUIET:-}" ] || echo "lab-binaries: all ${#components[@]} binaries are cached in ${LAB_BIN#$OPSLAB_ROOT/}"
	exit 0
fi
"$(dirname "${BASH_SOURCE[0]}")/require-go.sh" || exit 1

mkdir -p "$LAB_BIN"
echo "lab-binaries: building ${#missing[@]} of ${#components[@]} binaries into ${LAB_BIN#$OPSLAB_ROOT/}"
echo "lab-binaries: a cold build takes four to five minutes on 2 cores; later runs reuse the cache"
start=$SECONDS
i=0
tmp=""
ticker=""
cleanup() {
	[ -n "$ticker" ] && kill "$ticker" 2>/dev/null || true
	[ -n "$tmp" ] && rm -f "$tmp" || true
}
trap cleanup EXIT
trap 'echo "lab-binaries: interrupted; nothing half-built was left in the cache" >&2; exit 130' INT TERM
for c in "${missing[@]}"; do
	i=$((i + 1))
	IFS='|' read -r name pkg ld <<<"$c"
	t0=$SECONDS
	echo "lab-binaries: [$i/${#missing[@]}] $name ($pkg)"
	( while sleep 30; do echo "lab-binaries:       still building $name, $((SECONDS - t0))s so far ($((SECONDS - start))s in all)"; done ) &
	ticker=$!
	tmp=$LAB_BIN/.$name.tmp.$$
	if ! (cd "$OPSLAB_ROOT/lab/tools" && go build -trimpath -ldflags "-s -w $ld" -o "$tmp" "$pkg") >"$LAB_BIN/.build-$name.log" 2>&1; then
		kill "$ticker" 2>/dev/null || true; ticker=""
		tail -n 15 "$LAB_BIN/.build-$name.log" >&2
		die "building $name failed (log above, in full at ${LAB_BIN#$OPSLAB_ROOT/}/.build-$name.log); check that the Go module proxy is reachable and run make lab-binaries again"
	fi
	kill "$ticker" 2>/dev/null || true; ticker=""
	mv "$tmp" "$LAB_BIN/$name"
	tmp=""
	rm -f "$LAB_BIN/.build-$name.log"
	echo "lab-binaries: [$i/${#missing[@]}] $name built in $((SECONDS - t0))s"
done
echo "lab-binaries: done in $((SECONDS - start))s"
