# magus-relay's test helpers.  Load after lib/common and lib/engine.
#
#	setup_file() { engine_up; }
#	teardown_file() { engine_down; }
#	setup() { common_setup; engine_require; relay_ws; }
#	teardown() { relay_cleanup; common_teardown; }
#
# relay_ws makes $WS, a workspace whose image is the test engine's image
# pinned by digest, with NetworkMode none, the targets below, and the
# inner magus of this build (the one `make check` puts in the self-fetch
# suite's workspace with `make platform-store`) in its platform store.
# relay runs magus-relay --platform linux/$HOST_ARCH --root $WS -- ARGS
# from $WS (tests call the relay directly: the front short-circuits the
# host's own platform).

RELAY=$MAGUS_BUILD_DIR/libexec/relay/magus-relay
case $(uname -m) in
x86_64) HOST_ARCH=amd64 ;;
aarch64) HOST_ARCH=arm64 ;;
*) HOST_ARCH=$(uname -m) ;;
esac
RELAY_PLATFORM=linux/$HOST_ARCH
INNER_SRC=$MAGUS_BUILD_DIR/tests/selffetch/ws/.magus/platform/linux-$HOST_ARCH/magus
export RELAY HOST_ARCH RELAY_PLATFORM INNER_SRC

# The test image, pinned by the digest the engine gives it.
relay_image_ref() {
	engine_cli -H "$ENGINE_URL" image-inspect "$ENGINE_IMAGE" |
		sed -n 's/^digest=//p' | head -n 1
}

# relay_ws [EXTRA-PLATFORM-YAML]: the workspace $WS.
relay_ws() {
	local ref
	[ -f "$INNER_SRC/BUILD-INFO" ] ||
		fail "no inner magus at $INNER_SRC (make check builds it)"
	ref=${RELAY_IMAGE_REF:-$(relay_image_ref)}
	[ -n "$ref" ] || fail "no digest for $ENGINE_IMAGE"
	RELAY_IMAGE_REF=$ref
	WS=$T/ws
	mkws "$WS" <<-EOF
	platform:
	  network: none
	  images:
	    linux:
	      ref: "$ref"
	      env: {FROM_DECLARATION: "yes"}
	$(printf '%s\n' "${1:-}")
	targets:
	  hello:
	    run: ["sh", "-c", "echo hello from \$(uname -s); echo to-stderr >&2; exit 3"]
	  escape:
	    run: ["sh", "-c", "echo x >/tmp/escape-attempt && echo escaped; echo sandbox=\$MAGUS_SANDBOX; exit 4"]
	  lines:
	    run: ["sh", "-c", "seq 1 30000 | sed 's/.*/line & of 30000/'; seq 4 4 30000 | sed 's/^/err /' >&2; exit 7"]
	  sleep:
	    run: ["sh", "-c", "echo started; exec sleep 60"]
	  stubborn:
	    run: ["sh", "-c", "trap '' INT TERM HUP; echo started; sleep 60; echo never"]
	  oom:
	    run: ["sh", "-c", "dd if=/dev/zero of=/dev/null bs=64M count=1; echo after-dd"]
	  env:
	    run: ["sh", "-c", "env | sort"]
	  home:
	    run: ["sh", "-c", "id -u; echo \$HOME; cat \$HOME/mark 2>/dev/null; echo mark-\$\$ >\$HOME/mark && echo wrote"]
	EOF
	rm -rf "$WS/.magus/platform/linux-$HOST_ARCH/magus"
	mkdir -p "$WS/.magus/platform/linux-$HOST_ARCH"
	cp -a "$INNER_SRC" "$WS/.magus/platform/linux-$HOST_ARCH/magus"
	export WS RELAY_IMAGE_REF
}

# relay ARGS...: the relay for this host's platform, from $WS.
relay() {
	(cd "$WS" && exec "$RELAY" --platform "$RELAY_PLATFORM" --root "$WS" "$@")
}

# relay_bg ARGS...: the relay in the background, stdout in $T/out and
# stderr in $T/err; RELAY_PID is the relay's own pid.
relay_bg() {
	(cd "$WS" && exec "$RELAY" --platform "$RELAY_PLATFORM" --root "$WS" \
		"$@") >"$T/out" 2>"$T/err" 3>&- &
	RELAY_PID=$!
}

# Everything on the engine carrying this workspace's label ("key=value"
# lines: "c ID" for containers, "v NAME" for volumes).
relay_objects() {
	local l=magus.workspace=${1:-$WS}
	engine_cli -H "$ENGINE_URL" ps "$l" | sed 's/^\([^ ]*\).*/c \1/'
	engine_cli -H "$ENGINE_URL" volumes "$l" | sed 's/^\([^ ]*\).*/v \1/'
}

relay_cleanup() {
	local kind id
	[ -n "${WS:-}" ] && [ -z "${ENGINE_SKIP:-}" ] || return 0
	relay_objects 2>/dev/null | while read -r kind id; do
		case $kind in
		c) engine_cli -H "$ENGINE_URL" rm "$id" --force --volumes ;;
		v) engine_cli -H "$ENGINE_URL" volume-rm "$id" --force ;;
		esac >/dev/null 2>&1
	done
	return 0
}

# Wait (up to 30 s) until a container of $WS runs; print its id.
relay_await_running() {
	local i id state
	for i in $(seq 300); do
		read -r id _ state _ < <(engine_cli -H "$ENGINE_URL" ps \
			"magus.workspace=$WS" 2>/dev/null) || true
		if [ "${state:-}" = running ]; then
			echo "$id"
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# Wait (up to 30 s) until FILE holds a line matching REGEX.
relay_await_line() {
	local i
	for i in $(seq 300); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
