#!/bin/sh
# bench/relay.sh [URL]: magus-relay against the podman CLI on the same
# engine and image, in one run.
#
#   - a trivial relayed command (magus-relay ... -- run true: the inner
#     magus runs the target `true`) against podman --remote run --rm of
#     `true`, with engine-cli run (lib/engine's bare create, attach, wait,
#     start, wait, inspect, delete of `true`) as the engine's own cost
#   - 100 MiB of stdout through the relay and through podman, to
#     /dev/null
#
# URL is the engine (default $MAGUS_TEST_ENGINE), e.g. one started with
# tests/engine/start-engine.sh.  Run from a build tree after make check
# (it takes the inner magus the self-fetch suites' workspace holds), or
# set MAGUS_BUILD_DIR.  Needs hyperfine and podman.
set -eu

url=${1:-${MAGUS_TEST_ENGINE:-}}
[ -n "$url" ] || { echo "usage: bench/relay.sh unix:///path/engine.sock" >&2; exit 2; }
build=${MAGUS_BUILD_DIR:-$(pwd)}
relay=$build/libexec/relay/magus-relay
cli=$build/tests/engine/engine-cli
arch=$(sed -n 's/^MAGUS_HOST_ARCH = //p' "$build/Makefile")
inner=$build/tests/selffetch/ws/.magus/platform/linux-$arch/magus
for f in "$relay" "$cli" "$inner/BUILD-INFO"; do
	[ -e "$f" ] || { echo "bench: no $f; run make check first" >&2; exit 2; }
done
image=localhost/magus-test:1
ref=$("$cli" -H "$url" image-inspect "$image" | sed -n 's/^digest=//p' | head -n 1)
[ -n "$ref" ] || { echo "bench: no digest for $image on $url" >&2; exit 2; }

ws=$(mktemp -d /tmp/magus-bench-relay.XXXXXX)
cleanup() {
	for id in $("$cli" -H "$url" ps "magus.workspace=$ws" | cut -d' ' -f1); do
		"$cli" -H "$url" rm "$id" --force --volumes >/dev/null 2>&1 || true
	done
	for v in $("$cli" -H "$url" volumes "magus.workspace=$ws" | cut -d' ' -f1); do
		"$cli" -H "$url" volume-rm "$v" --force >/dev/null 2>&1 || true
	done
	rm -rf "$ws"
}
trap cleanup EXIT
cat >"$ws/magus.yaml" <<EOF
platform:
  network: none
  images:
    linux: {ref: "$ref"}
targets:
  true: {run: ["true"]}
  big: {run: ["head", "-c", "104857600", "/dev/zero"]}
EOF
mkdir -p "$ws/.magus/platform/linux-$arch"
cp -a "$inner" "$ws/.magus/platform/linux-$arch/magus"
printf '{"Image":"%s","Cmd":["true"],"Labels":{"magus.bench":"1"},"HostConfig":{"NetworkMode":"none","Init":true}}\n' \
	"$image" >"$ws/true.json"

r="cd $ws && MAGUS_CONTAINER_API=$url $relay --platform linux/$arch --root $ws --"
podman="podman --remote --url $url run --rm --network none --init $image"

echo "== a trivial command"
hyperfine --warmup 2 --runs 15 \
	-n "magus-relay -- run true" "$r run true 2>/dev/null" \
	-n "engine-cli run (the engine's own sequence)" "$cli -H $url run $ws/true.json" \
	-n "podman --remote run --rm" "$podman true"

echo "== 100 MiB of stdout"
hyperfine --warmup 1 --runs 5 \
	-n "magus-relay -- run big" "$r run big >/dev/null 2>&1" \
	-n "podman --remote run --rm" "$podman head -c 104857600 /dev/zero >/dev/null"
