#!/usr/bin/env bash
# bundle.sh OUT.zip zips the Gradescope autograder for the build-along
# tracks: setup.sh, run_autograder, the chapters graded (CHAPTERS, "1 2 3 4"
# by default) and the course's source at HEAD.
set -euo pipefail
out=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/setup.sh" "$here/run_autograder" "$tmp/"
echo "${CHAPTERS:-1 2 3 4}" >"$tmp/chapters.txt"
git -C "$root" archive --format=tar -o "$tmp/course.tar" HEAD
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
rm -f "$out"
(cd "$tmp" && zip -q -r "$out" setup.sh run_autograder chapters.txt course.tar)
echo "gradescope: wrote $1 (chapters ${CHAPTERS:-1 2 3 4}); it runs students' code: upload it to Gradescope, do not run it on your machine"
