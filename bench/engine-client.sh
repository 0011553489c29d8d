#!/bin/sh
# bench/engine-client.sh [URL]: lib/engine's cost against the podman CLI's
# on the same engine and image, in one run.
#
#   - a trivial container: engine-cli run (create, attach, wait, start,
#     stream, wait, inspect, delete) against podman --remote run --rm
#   - 100 MiB of stdout through each, written to /dev/null
#
# URL is the engine (default $MAGUS_TEST_ENGINE), e.g. one started with
# tests/engine/start-engine.sh.  Run from a build tree where
# tests/engine/engine-cli is built (make check builds it, or
# make tests/engine/engine-cli).  Needs hyperfine and podman.
set -eu

url=${1:-${MAGUS_TEST_ENGINE:-}}
[ -n "$url" ] || { echo "usage: bench/engine-client.sh unix:///path/engine.sock" >&2; exit 2; }
cli=${MAGUS_BUILD_DIR:-$(pwd)}/tests/engine/engine-cli
[ -x "$cli" ] || { echo "bench: no $cli; run make tests/engine/engine-cli" >&2; exit 2; }
image=localhost/magus-test:1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

body() {
	printf '{"Image":"%s","Cmd":["sh","-c","%s"],"Labels":{"magus.bench":"1"},"HostConfig":{"NetworkMode":"none","Init":true}}\n' \
		"$image" "$1"
}
body true >"$tmp/true.json"
body 'head -c 104857600 /dev/zero' >"$tmp/big.json"
podman="podman --remote --url $url run --rm --network none --init $image"

echo "== a trivial container"
hyperfine --warmup 2 --runs 15 \
	-n "engine-cli run" "$cli -H $url run $tmp/true.json" \
	-n "podman --remote run --rm" "$podman true"

echo "== 100 MiB of stdout"
hyperfine --warmup 1 --runs 5 \
	-n "engine-cli run" "$cli -H $url run $tmp/big.json >/dev/null" \
	-n "podman --remote run --rm" "$podman head -c 104857600 /dev/zero >/dev/null"
