#!/usr/bin/env bats
# magus-relay's refusals.  Bad input is refused with exit 2 before the
# socket is touched, naming the thing, and nothing is created on the
# engine: the engine's magus containers and volumes are listed before
# and after, and a fake engine standing in for the named socket records
# no request at all.  From the first connection on, a failure is exit 71
# with its own MGS30xx code.

load lib/common
load lib/engine
load lib/relay

setup_file() { engine_up; }
teardown_file() { engine_down; }
setup() { common_setup; engine_require; relay_ws; }
teardown() { fake_down; relay_cleanup; common_teardown; }

# refused STATUS CODE TEXT ARGS...: the relay with ARGS exits STATUS with
# diagnostic CODE, its message containing TEXT.
refused() {
	local want=$1 code=$2 text=$3
	shift 3
	run --separate-stderr relay "$@"
	[ "$status" = "$want" ] ||
		fail "$* exited $status, not $want: $stderr"
	assert_code "$code"
	[[ $stderr == *"$text"* ]] || fail "'$text' not named in: $stderr"
	assert_equal "$output" ""
}

@test "bad input exits 2 before the socket is touched, and the engine holds nothing new" {
	# (what this workspace's relay would create carries its label; other
	# suites may be creating their own objects meanwhile)
	relay_objects | sort >"$T/before"
	# Any connection to the named socket would show in the fake's log.
	fake_up </dev/null
	export MAGUS_CONTAINER_API=$FAKE_URL

	RELAY_PLATFORM=linux refused 2 MGS1002 "linux/$HOST_ARCH" -- run hello
	RELAY_PLATFORM=plan9/amd64 refused 2 MGS1002 "plan9" -- run hello
	RELAY_PLATFORM=linux/mips refused 2 MGS1002 "mips" -- run hello
	refused 2 MGS3001 "tcp" --container-api tcp://127.0.0.1:2375 -- run hello
	refused 2 MGS3001 "ssh" --container-api ssh://me@host -- run hello
	long=unix://$T/$(printf 's%.0s' $(seq 120)).sock
	refused 2 MGS3003 "107" --container-api "$long" -- run hello
	refused 2 MGS3035 "doctor" -- doctor
	refused 2 MGS3035 "queue list" -- queue list
	refused 2 MGS3035 "describe targets" -- describe targets
	refused 2 MGS3035 "describe " -- describe
	refused 2 MGS3035 "no verb" --
	refused 2 MGS3036 "'/tmp'" -- -C /tmp run hello
	refused 2 MGS3036 "'$T/other.yaml'" -- --config "$T/other.yaml" run hello
	refused 2 MGS3036 "--root '..'" -- --root .. run hello
	(cd "$T" && run --separate-stderr "$RELAY" --platform "$RELAY_PLATFORM" \
		--root "$WS" -- run hello
	 [ "$status" = 2 ] && grep -q MGS3036 <<<"$stderr") ||
		fail "a working directory outside the root was not refused"
	MAGUS_CACHE_DIR=/var/tmp refused 2 MGS3039 "MAGUS_CACHE_DIR" -- run hello
	cp "$WS/magus.yaml" "$T/outside.yaml"
	MAGUS_CONFIG=$T/outside.yaml refused 2 MGS3039 "MAGUS_CONFIG" -- run hello

	# The user tier: a value with no MAGUS_* name cannot cross.
	mkdir -p "$XDG_CONFIG_HOME/magus"
	printf 'sandbox:\n  allow:\n    - {path: /opt, mode: ro}\n' \
		>"$XDG_CONFIG_HOME/magus/config.yaml"
	refused 2 MGS3039 "sandbox.allow" -- run hello
	rm "$XDG_CONFIG_HOME/magus/config.yaml"

	# The configuration: no engine named, no image, an unpinned image, a
	# MAGUS_* name in the image declaration.
	MAGUS_CONTAINER_API= refused 2 MGS3037 "container.api" -- run hello
	cp "$WS/magus.yaml" "$T/good.yaml"
	sed -i '/^platform:/,/^targets:/{/^targets:/!d}' "$WS/magus.yaml"
	refused 2 MGS3038 "platform.images.linux" -- run hello
	sed "s|ref: \".*\"|ref: \"$ENGINE_IMAGE\"|" "$T/good.yaml" >"$WS/magus.yaml"
	refused 2 MGS1007 "not pinned" -- run hello
	sed 's|FROM_DECLARATION|MAGUS_SANDBOX|' "$T/good.yaml" >"$WS/magus.yaml"
	refused 2 MGS1007 "MAGUS_SANDBOX" -- run hello
	cp "$T/good.yaml" "$WS/magus.yaml"

	# The inner magus: missing, and from other sources.
	mv "$WS/.magus/platform/linux-$HOST_ARCH/magus" "$T/inner"
	refused 2 MGS3040 "magus self fetch linux/$HOST_ARCH" -- run hello
	mv "$T/inner" "$WS/.magus/platform/linux-$HOST_ARCH/magus"
	chmod u+w "$WS/.magus/platform/linux-$HOST_ARCH/magus" \
		"$WS/.magus/platform/linux-$HOST_ARCH/magus/BUILD-INFO"
	sed -i 's/^source .*/source '"$(printf '0%.0s' $(seq 64))"'/' \
		"$WS/.magus/platform/linux-$HOST_ARCH/magus/BUILD-INFO"
	refused 2 MGS3040 "make platform-store" -- run hello

	assert_equal "$(fake_log)" ""
	fake_down
	relay_objects | sort >"$T/after"
	cmp "$T/before" "$T/after" || fail "the engine changed: $(diff "$T/before" "$T/after")"
	assert_equal "$(cat "$T/after")" ""
}

@test "--print-request connects to nothing and creates nothing" {
	fake_up </dev/null
	MAGUS_CONTAINER_API=$FAKE_URL run --separate-stderr relay --print-request -- run hello
	assert_success
	assert_equal "$(fake_log)" ""
	assert_equal "$(relay_objects)" ""
	[ ! -d "$WS/.magus/platform/linux-$HOST_ARCH/home" ]
}

@test "an unreachable socket: exit 71, MGS3002 naming it" {
	refused 71 MGS3002 "$T/nobody.sock" --container-api "unix://$T/nobody.sock" -- run hello
	[[ $stderr == *"hint:"* ]]
}

@test "an image absent from the engine: exit 71, MGS3005, the command with --fetch; nothing created" {
	sed -i "s|ref: \".*\"|ref: \"localhost/absent@sha256:$(printf 'a%.0s' $(seq 64))\"|" "$WS/magus.yaml"
	refused 71 MGS3005 "localhost/absent@sha256:aaaa" -- run hello
	[[ $stderr == *"--fetch"* ]] || fail "no --fetch hint: $stderr"
	assert_equal "$(relay_objects)" ""
}

@test "an image whose Config.Env names a MAGUS_* variable is refused at inspect: exit 71, MGS3041" {
	sock=${ENGINE_URL#unix://}
	engine_body 'true' >"$T/body"
	id=$(engine_cli create "$T/body")
	tag=magus-evil-$$
	curl -sf --unix-socket "$sock" -X POST -H 'Content-Type: application/json' \
		-d '{}' "http://d/v1.41/commit?container=$id&repo=localhost/$tag&tag=1&changes=ENV%20MAGUS_SANDBOX%3Doff" \
		>/dev/null || fail "commit failed"
	engine_cli rm "$id" --force >/dev/null
	ref=$(engine_cli image-inspect "localhost/$tag:1" | sed -n 's/^digest=//p' | head -n 1)
	sed -i "s|ref: \".*\"|ref: \"$ref\"|" "$WS/magus.yaml"
	run --separate-stderr relay -- run hello
	curl -sf --unix-socket "$sock" -X DELETE "http://d/v1.41/images/localhost/$tag:1?force=1" >/dev/null || true
	assert_equal "$status" 71
	assert_code MGS3041
	[[ $stderr == *MAGUS_SANDBOX* ]]
	assert_equal "$(relay_objects | grep '^c ')" ""
}
