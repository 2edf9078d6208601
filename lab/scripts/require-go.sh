#!/usr/bin/env bash
# require-go.sh fails with one line when Go is missing or older than the
# course needs.
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"
if ! command -v go >/dev/null 2>&1; then
	echo "opslab: go is not installed; install Go $GO_MIN or newer from https://go.dev/dl/" >&2
	exit 1
fi
gov=$(go env GOVERSION 2>/dev/null | sed -E 's/^go([0-9]+\.[0-9]+).*/\1/')
if [ "$(printf '%s\n%s\n' "$GO_MIN" "$gov" | sort -V | head -1)" != "$GO_MIN" ]; then
	echo "opslab: Go $gov is too old; install Go $GO_MIN or newer from https://go.dev/dl/" >&2
	exit 1
fi
