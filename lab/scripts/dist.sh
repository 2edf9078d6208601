#!/usr/bin/env bash
# dist.sh is make dist: labcheck built for the machines graders and learners
# use, Linux, macOS and Windows on amd64 and arm64, into .artifacts/dist as
# labcheck-VERSION-OS-ARCH (.exe on Windows), with a SHA256SUMS file that
# sha256sum -c reads.
#
# The binaries are static (CGO_ENABLED=0) and built with -trimpath, so they
# name no directory of the machine that built them. Each records the commit
# it was built from in its Go build information, which labcheck --version
# reads (package labcheck/version); dist.sh checks that every binary does.
# VERSION is the course's version (version.Course) when the commit is
# tagged with it, and otherwise that version, -dev and the commit; -dirty
# is added when the checkout had changes not committed.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"
cd "$OPSLAB_ROOT"
"$OPSLAB_ROOT/lab/scripts/require-go.sh"

die() { echo "dist: $*" >&2; exit 1; }

targets=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)
out=.artifacts/dist

course=$(sed -n 's/^const Course = "\(v[^"]*\)"$/\1/p' labcheck/version/version.go)
[ -n "$course" ] || die "labcheck/version/version.go declares no const Course = \"vX.Y.Z\"; restore it"

# Go records the commit only when it is told to look (a GOFLAGS with
# -buildvcs=false would silence it), and cannot look outside a checkout.
vcs=(-buildvcs=auto)
version=$course
if rev=$(git rev-parse HEAD 2>/dev/null); then
	vcs=(-buildvcs=true)
	if [ "$(git tag --points-at HEAD | grep -Fx "$course" || true)" != "$course" ]; then
		version=$course-dev.${rev:0:12}
	fi
	[ -z "$(git status --porcelain 2>/dev/null)" ] || version=$version-dirty
fi

# Built in a directory of its own and put in place at the end, so that two
# runs at once (make dist beside make test) never mix their files.
mkdir -p .artifacts
work=$(mktemp -d .artifacts/.dist.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
trap 'echo "dist: interrupted" >&2; exit 130' INT TERM

echo "dist: labcheck $version for ${#targets[@]} targets into $out"
start=$SECONDS
i=0
for t in "${targets[@]}"; do
	i=$((i + 1))
	os=${t%/*} arch=${t#*/}
	ext=""
	[ "$os" != windows ] || ext=.exe
	name=labcheck-$version-$os-$arch$ext
	t0=$SECONDS
	printf 'dist: [%d/%d] %s ... ' "$i" "${#targets[@]}" "$t"
	tmp=$work/$name
	if ! CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build "${vcs[@]}" -trimpath -ldflags "-s -w" -o "$tmp" ./cmd/labcheck 2>"$work/.build.log"; then
		echo "failed"
		cat "$work/.build.log" >&2
		die "building labcheck for $t failed (log above)"
	fi
	# (Any commit: one made while the builds ran is the one stamped.)
	if [ -n "${rev:-}" ] && ! go version -m "$tmp" | grep -q "vcs.revision=[0-9a-f]"; then
		echo "failed"
		die "labcheck for $t records no commit, so its --version would not say where it came from"
	fi
	echo "built in $((SECONDS - t0))s"
done

rm -f "$work/.build.log"
(
	cd "$work"
	if command -v sha256sum >/dev/null; then
		sha256sum labcheck-* >SHA256SUMS
	else
		shasum -a 256 labcheck-* >SHA256SUMS
	fi
)
rm -rf "$out"
mv "$work" "$out"
# The host's own binary, when there is one, must run and say its commit.
host=$out/labcheck-$version-$(go env GOHOSTOS)-$(go env GOHOSTARCH)$([ "$(go env GOHOSTOS)" != windows ] || echo .exe)
if [ -x "$host" ]; then
	v=$("$host" --version) || die "$host --version failed"
	echo "dist: $v"
fi
echo "dist: ${#targets[@]} binaries and SHA256SUMS in $out, in $((SECONDS - start))s"
