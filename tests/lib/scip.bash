# magus-scip's test helpers: the fake indexer's image on the test engine,
# and a workspace declaring indexers.  Load after lib/common and
# lib/engine.
#
# The image is built from tests/scip/fake-indexer (static) without a
# registry: a root file system holding /fake-indexer, links to it named
# scip-go, scip-typescript and scip-python in /usr/bin, and an empty
# /tmp, packed reproducibly and imported with the Engine API's own
# import (POST /images/create?fromSrc=-, the tarball as the body), which
# Docker and podman's service both serve.  The tag is the tarball's
# hash, so an unchanged fake indexer is imported once per engine, and
# suites sharing an engine (MAGUS_TEST_ENGINE) never retag each other's
# image.  Runs use the image by digest, from its RepoDigests, as
# magus.yaml demands: SCIP_IMAGE=localhost/magus-scip-fake@sha256:...

SCIP_FAKE=$MAGUS_BUILD_DIR/tests/scip/fake-indexer
SCIP_HELPER=$MAGUS_BUILD_DIR/exec-path/magus-scip
export SCIP_FAKE SCIP_HELPER

# In setup_file, after engine_up: import the image (when there is an
# engine) and export SCIP_IMAGE.
scip_image_up() {
	local dir sum name sock
	SCIP_IMAGE=
	[ -z "${ENGINE_SKIP:-}" ] && [ -z "${ENGINE_BROKEN:-}" ] || return 0
	dir=$(mktemp -d /tmp/magus-scip-image.XXXXXX)
	mkdir -p "$dir/rf/usr/bin" "$dir/rf/bin" "$dir/rf/tmp" "$dir/rf/etc"
	cp "$SCIP_FAKE" "$dir/rf/fake-indexer"
	for t in scip-go scip-typescript scip-python; do
		ln -s /fake-indexer "$dir/rf/usr/bin/$t"
	done
	printf 'root:x:0:0:root:/:/fake-indexer\n' >"$dir/rf/etc/passwd"
	chmod 1777 "$dir/rf/tmp"
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
		-C "$dir/rf" -cf "$dir/rootfs.tar" .
	sum=$(sha256sum "$dir/rootfs.tar" | cut -c1-16)
	name=localhost/magus-scip-fake:$sum
	sock=${ENGINE_URL#unix://}
	if ! "$ENGINE_CLI" -H "$ENGINE_URL" image-inspect "$name" >/dev/null 2>&1; then
		# changes=ENV PATH=/usr/bin:/bin, so the built-in commands
		# find their tool by name.
		curl -sS --fail --unix-socket "$sock" -X POST \
			-H 'Content-Type: application/x-tar' \
			--data-binary @"$dir/rootfs.tar" \
			"http://d/v1.41/images/create?fromSrc=-&repo=$name&changes=ENV%20PATH%3D%2Fusr%2Fbin%3A%2Fbin" \
			>"$dir/import.log" 2>&1 ||
			{ ENGINE_BROKEN="cannot import the fake indexer image: $(cat "$dir/import.log")"; export ENGINE_BROKEN; }
	fi
	SCIP_IMAGE=$("$ENGINE_CLI" -H "$ENGINE_URL" image-inspect "$name" 2>/dev/null |
		sed -n 's/^digest=//p' | head -n 1)
	rm -rf "$dir"
	[ -n "$SCIP_IMAGE" ] || [ -n "${ENGINE_BROKEN:-}" ] ||
		{ ENGINE_BROKEN="the imported image $name has no RepoDigests"; export ENGINE_BROKEN; }
	export SCIP_IMAGE
}

# A digest reference to an image no engine has.
SCIP_ABSENT_IMAGE=localhost/magus-scip-absent@sha256:$(printf '%064d' 0)
export SCIP_ABSENT_IMAGE

# scip_ws DIR: a workspace with projects "small" (a few files) and
# "big" (FILES files of SIZE KiB), and "empty" (no files at all).
scip_ws() {
	local ws=$1 files=${2:-20} size=${3:-4} i block
	mkdir -p "$ws/small/pkg" "$ws/big" "$ws/empty"
	printf 'package main\n\nfunc main() {}\n' >"$ws/small/main.go"
	printf 'package pkg\n\nvar X = 1\n' >"$ws/small/pkg/x.go"
	# Builtins only: a pipeline per file is slow under bats.
	printf -v block '%*s' "$((size * 1024))" ''
	for ((i = 1; i <= files; i++)); do
		printf '%s' "$block" >"$ws/big/f$i.txt"
	done
}

# scip_decl PROJECT MEMORY_MB [COMMAND-ARGS...]: one indexers entry
# running the fake indexer with the extra arguments.
scip_decl() {
	local project=$1 mem=$2 a args=
	shift 2
	for a in "$@"; do
		args="$args, $(json_str "$a")"
	done
	cat <<-EOF
	  - project: $project
	    tool: fake
	    image: "$SCIP_IMAGE"
	    memory_mb: $mem
	    cpus: 1
	    pids: 64
	    command: ["/fake-indexer", "--output", "{output}"$args, "{project}"]
	EOF
}

# The status of PROJECT in workspace WS, as JSON, and one field of it.
scip_status() {
	cat "$1/.magus/index/$2/status.json"
}

scip_status_field() {
	jq -r "$3" "$1/.magus/index/$2/status.json"
}

# Containers magus-scip made for workspace WS (label filters).
scip_containers() {
	"$ENGINE_CLI" -H "$ENGINE_URL" ps "magus.use=scip" "magus.workspace=$1" |
		cut -d' ' -f1
}
