#!/usr/bin/env bash
# build-binaries.sh builds the lab cluster's binaries from the pinned sources
# in lab/tools into a cache directory keyed by their versions. The binaries
# that share Kubernetes' packages are built by one go build, so the two cores
# stay busy across package boundaries and links overlap with compiles; kwok's
# two, whose version strings are set by other flags, by a second. Binaries are
# written into a temporary directory and moved into the cache only once the
# build succeeded, so an interrupted or failed build never leaves a
# half-written binary behind; a second run with everything present does
# nothing.
#
# LAB_BUILD_TIMES=FILE appends one line per group to FILE:
# "group SECONDS PACKAGES", for make bench-first-run's table.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"

die() { echo "lab-binaries: $*" >&2; exit 1; }

kube_ld="-X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$KUBE_MINOR -X k8s.io/component-base/version.gitTreeState=clean"
kube_ld="$kube_ld -X k8s.io/client-go/pkg/version.gitVersion=$KUBE_VERSION -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$KUBE_MINOR -X k8s.io/client-go/pkg/version.gitTreeState=clean"
kwok_ld="-X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION#v} -X sigs.k8s.io/kwok/pkg/consts.KubeVersion=${KUBE_VERSION#v}"
# name|package, in groups that share their link flags. etcd imports neither
# version package, so the Kubernetes flags leave it as it is.
kube=(
	"kube-apiserver|k8s.io/kubernetes/cmd/kube-apiserver"
	"kube-controller-manager|k8s.io/kubernetes/cmd/kube-controller-manager"
	"kube-scheduler|k8s.io/kubernetes/cmd/kube-scheduler"
	"kubectl|k8s.io/kubernetes/cmd/kubectl"
	"etcd|go.etcd.io/etcd/server/v3"
)
kwok=(
	"kwok|sigs.k8s.io/kwok/cmd/kwok"
	"kwokctl|sigs.k8s.io/kwok/cmd/kwokctl"
)
all=$(( ${#kube[@]} + ${#kwok[@]} ))

# missing GROUP...: the entries of a group whose binary is not cached.
missing() { local c; for c in "$@"; do [ -x "$LAB_BIN/${c%%|*}" ] || echo "$c"; done; }
mapfile -t kube_missing < <(missing "${kube[@]}")
mapfile -t kwok_missing < <(missing "${kwok[@]}")
n=$(( ${#kube_missing[@]} + ${#kwok_missing[@]} ))
if [ "$n" -eq 0 ]; then
	[ -n "${LAB_QUIET:-}" ] || echo "lab-binaries: all $all binaries are cached in ${LAB_BIN#$OPSLAB_ROOT/}"
	exit 0
fi
"$(dirname "${BASH_SOURCE[0]}")/require-go.sh" || exit 1

mkdir -p "$LAB_BIN"
tmp=$(mktemp -d "$LAB_BIN/.build.XXXXXX")
ticker=""
cleanup() {
	[ -n "$ticker" ] && kill "$ticker" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'echo "lab-binaries: interrupted; nothing half-built was left in the cache" >&2; exit 130' INT TERM

echo "lab-binaries: building $n of $all binaries into ${LAB_BIN#$OPSLAB_ROOT/}"
echo "lab-binaries: the first build compiles about 2,900 packages (about seven minutes on 2 idle cores); later runs reuse the cache"
start=$SECONDS

# build GROUP LDFLAGS ENTRY...: one go build for the entries, with progress
# every 20 s counted from go build -v's list of the packages it compiled.
build() {
	local group=$1 ld=$2 t0=$SECONDS total pkgs=() names=() c log
	shift 2
	for c in "$@"; do names+=("${c%%|*}"); pkgs+=("${c#*|}"); done
	log=$tmp/$group.log
	total=$(cd "$OPSLAB_ROOT/lab/tools" && go list -deps "${pkgs[@]}" | wc -l)
	echo "lab-binaries: $group: ${names[*]} (one go build, up to $total packages)"
	: >"$log"
	( while sleep 20; do
		echo "lab-binaries:   $group: $(grep -c . "$log" || true) of up to $total packages compiled, $((SECONDS - t0))s so far ($((SECONDS - start))s in all)"
	done ) &
	ticker=$!
	mkdir -p "$tmp/$group"
	if ! (cd "$OPSLAB_ROOT/lab/tools" && go build -v -trimpath -ldflags "-s -w $ld" -o "$tmp/$group/" "${pkgs[@]}") 2>"$log"; then
		kill "$ticker" 2>/dev/null || true; ticker=""
		cp "$log" "$LAB_BIN/.build-$group.log"
		grep -v '^[a-zA-Z0-9_./~-]*$' "$log" | tail -n 15 >&2 || true
		die "building $group failed (log above, in full at ${LAB_BIN#$OPSLAB_ROOT/}/.build-$group.log); check that the Go module proxy is reachable and run make lab-binaries again"
	fi
	kill "$ticker" 2>/dev/null || true; ticker=""
	local name pkg base
	for c in "$@"; do
		name=${c%%|*} pkg=${c#*|}
		# go build names a binary after the last element of its package's
		# path that is not a major version: etcd's server/v3 is server.
		base=${pkg##*/}
		[[ $base =~ ^v[0-9]+$ ]] && { base=${pkg%/*}; base=${base##*/}; }
		mv "$tmp/$group/$base" "$LAB_BIN/$name"
	done
	echo "lab-binaries: $group: ${#names[@]} built in $((SECONDS - t0))s ($(grep -c . "$log" || true) packages compiled)"
	[ -z "${LAB_BUILD_TIMES:-}" ] || echo "$group $((SECONDS - t0)) $(grep -c . "$log" || true)" >>"$LAB_BUILD_TIMES"
}
[ ${#kube_missing[@]} -eq 0 ] || build kubernetes "$kube_ld" "${kube_missing[@]}"
[ ${#kwok_missing[@]} -eq 0 ] || build kwok "$kwok_ld" "${kwok_missing[@]}"
echo "lab-binaries: done in $((SECONDS - start))s"
