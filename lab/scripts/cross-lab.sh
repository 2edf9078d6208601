#!/usr/bin/env bash
# cross-lab.sh is make lab-binaries-darwin: it cross-compiles the lab
# cluster's binaries (kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl, etcd, kwok, kwokctl) for macOS on amd64 and arm64,
# from the same pinned sources in lab/tools, with the same packages and
# version ldflags as make lab-binaries, into
# .cache/lab/darwin-ARCH-<the key of the Linux binaries' directory>.
#
# It proves that the lab's components build for a Mac; it does not run
# them, and nothing here can. It is slow (about as long as a cold make
# lab-binaries, twice) and is not part of make test.
#
# The packages and ldflags are read from build-binaries.sh at run time, so
# the two never disagree: versions.sh gives the pins, build-binaries.sh the
# list of components that make lab-binaries builds. A binary is written
# under a temporary name and renamed once complete; one already present is
# kept, so a second run does nothing.
set -euo pipefail
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$scripts/versions.sh"

die() { echo "lab-binaries-darwin: $*" >&2; exit 1; }

# build-binaries.sh's kube_ld=... through the end of its components=(...).
components=()
defs=$(sed -n '/^kube_ld=/,/^)/p' "$scripts/build-binaries.sh")
eval "$defs" || die "could not read the components from build-binaries.sh; see that its kube_ld=... through components=(...) still define them"
[ ${#components[@]} -gt 0 ] || die "build-binaries.sh defines no components=(\"name|package|ldflags\" ...); update cross-lab.sh to read where it now lists them"
"$scripts/require-go.sh" || exit 1

arches=(amd64 arm64)
key=$(basename "$LAB_BIN")
total=$((${#arches[@]} * ${#components[@]}))
joined=$(IFS=,; echo "${arches[*]}")
echo "lab-binaries-darwin: Kubernetes $KUBE_VERSION, etcd $ETCD_VERSION, kwok $KWOK_VERSION: $total binaries for darwin/{$joined}"
start=$SECONDS
i=0
tmp=""
ticker=""
log=""
cleanup() {
	[ -z "$ticker" ] || kill "$ticker" 2>/dev/null || true
	[ -z "$tmp" ] || rm -f "$tmp"
}
trap cleanup EXIT
trap 'echo "lab-binaries-darwin: interrupted; nothing half-built was left in the cache" >&2; exit 130' INT TERM
for arch in "${arches[@]}"; do
	dir=$LAB_CACHE/darwin-$arch-$key
	mkdir -p "$dir"
	for c in "${components[@]}"; do
		i=$((i + 1))
		IFS='|' read -r name pkg ld <<<"$c"
		if [ -x "$dir/$name" ]; then
			echo "lab-binaries-darwin: [$i/$total] darwin/$arch $name: cached"
			continue
		fi
		t0=$SECONDS
		echo "lab-binaries-darwin: [$i/$total] darwin/$arch $name ($pkg)"
		( while sleep 30; do echo "lab-binaries-darwin:       still building $name for darwin/$arch, $((SECONDS - t0))s so far ($((SECONDS - start))s in all)"; done ) &
		ticker=$!
		tmp=$dir/.$name.tmp.$$
		log=$dir/.build-$name.log
		if ! (cd "$OPSLAB_ROOT/lab/tools" && CGO_ENABLED=0 GOOS=darwin GOARCH=$arch go build -trimpath -ldflags "-s -w $ld" -o "$tmp" "$pkg") >"$log" 2>&1; then
			kill "$ticker" 2>/dev/null || true; ticker=""
			tail -n 15 "$log" >&2
			die "building $name for darwin/$arch failed (log above, in full at ${log#$OPSLAB_ROOT/})"
		fi
		kill "$ticker" 2>/dev/null || true; ticker=""
		info=$(go version -m "$tmp")
		grep -q "GOOS=darwin" <<<"$info" && grep -q "GOARCH=$arch" <<<"$info" ||
			die "$name was built, but its build information does not say darwin/$arch"
		mv "$tmp" "$dir/$name"
		tmp=""
		rm -f "$log"
		echo "lab-binaries-darwin: [$i/$total] darwin/$arch $name built in $((SECONDS - t0))s"
	done
done
echo "lab-binaries-darwin: done in $((SECONDS - start))s, in ${LAB_CACHE#$OPSLAB_ROOT/}/darwin-{$joined}-$key"
