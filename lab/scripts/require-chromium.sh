#!/usr/bin/env bash
# require-chromium.sh installs Debian's chromium for the browser tests when it
# is missing, or says in one line how to install it.
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
if [ "$(id -u)" -eq 0 ]; then
	as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	as_root=(sudo -n)
else
	echo "opslab: the browser tests need chromium; install it (apt-get install chromium) and run make test again" >&2
	exit 1
fi
echo "installing Debian's chromium for the browser tests (a minute or two)"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null ||
	{ echo "opslab: apt-get could not install chromium; install it by hand (apt-get install chromium) and run make test again" >&2; exit 1; }
command -v chromium >/dev/null
