#!/usr/bin/env bats
# magus-relay --fetch against a real registry: the test engine pulls from
# Debian's docker-registry on loopback (tests/lib/registry.bash), by
# digest.  The image is the test engine's own, pushed into the registry
# by the engine under a label of its own and then removed locally, so
# the engine starts without it.  Without --fetch an absent image is
# refused and nothing is created; with it the pull happens, the image's
# Os/Architecture are checked, and the run works; a pull the registry
# cannot serve fails with the engine's own message read from inside the
# 200 progress stream, and leaves nothing behind.  magus-scip's --fetch
# pulls the fake indexer's image the same way.

load lib/common
load lib/engine
load lib/relay
load lib/registry
load lib/scip

REPO=magus-fetch
SCIP_REPO=magus-fetch-scip

setup_file() {
	engine_up
	scip_image_up
	registry_up
	FETCH_DIGEST='' FOREIGN_DIGEST='' SCIP_DIGEST='' FETCH_BROKEN=''
	if [ -z "$ENGINE_SKIP$ENGINE_BROKEN$REGISTRY_SKIP$REGISTRY_BROKEN" ]; then
		FETCH_DIGEST=$(registry_push "$REPO" 1 2>"$REGISTRY_DIR/push.log") &&
			FOREIGN_DIGEST=$(registry_retarget "$REPO" 1 foreign linux \
				"$(foreign_arch)" 2>>"$REGISTRY_DIR/push.log") &&
			SCIP_DIGEST=$(registry_push "$SCIP_REPO" 1 "$SCIP_IMAGE" \
				2>>"$REGISTRY_DIR/push.log") ||
			FETCH_BROKEN="cannot fill the registry: $(cat "$REGISTRY_DIR/push.log")"
	fi
	export FETCH_DIGEST FOREIGN_DIGEST SCIP_DIGEST FETCH_BROKEN
}

teardown_file() {
	if [ -n "${FETCH_DIGEST:-}" ]; then
		registry_rmi "$REGISTRY/$REPO@$FETCH_DIGEST"
		registry_rmi "$REGISTRY/$REPO@$FOREIGN_DIGEST"
		registry_rmi "$REGISTRY/$SCIP_REPO@$SCIP_DIGEST"
	fi
	registry_down
	engine_down
}

setup() {
	common_setup
	engine_require
	registry_require
	[ -z "$FETCH_BROKEN" ] || fail "$FETCH_BROKEN"
	FETCH_REF=$REGISTRY/$REPO@$FETCH_DIGEST
	FOREIGN_REF=$REGISTRY/$REPO@$FOREIGN_DIGEST
	SCIP_REF=$REGISTRY/$SCIP_REPO@$SCIP_DIGEST
	# A digest the registry has never seen, in a repository it has.
	MISSING_REF=$REGISTRY/$REPO@sha256:$(printf 'b%.0s' $(seq 64))
	RELAY_IMAGE_REF=$FETCH_REF relay_ws
}

teardown() {
	local id
	relay_cleanup
	for id in $(scip_containers "$T/sws" 2>/dev/null); do
		engine_cli -H "$ENGINE_URL" rm "$id" --force >/dev/null 2>&1
	done
	# Every test starts with the engine lacking the registry's images,
	# and other suites see the engine as it was.
	registry_rmi "$FETCH_REF"
	registry_rmi "$FOREIGN_REF"
	registry_rmi "$SCIP_REF"
	common_teardown
}

# An architecture that is not this host's.
foreign_arch() {
	case $(uname -m) in
	aarch64) echo amd64 ;;
	*) echo arm64 ;;
	esac
}

# The test engine's images whose names are in the test registry.
registry_images() {
	engine_api GET /images/json | jq -r --arg r "$REGISTRY/" \
		'.[] | select(([.RepoTags[]?, .RepoDigests[]?, .Names[]?] |
			map(startswith($r)) | any)) | .Id' | sort -u
}

# The engine does not have REF: inspect answers MGS3005.
engine_lacks() {
	run --separate-stderr engine_cli -H "$ENGINE_URL" image-inspect "$1"
	[ "$status" = 71 ] || fail "the engine has '$1' (inspect: $status)"
	assert_code MGS3005
}

@test "the registry holds the pushed image and the engine does not" {
	# What the registry serves is what the tests pin.
	assert_equal "$(registry_digest "$REPO" 1)" "$FETCH_DIGEST"
	assert_equal "$(registry_digest "$REPO" "$FETCH_DIGEST")" "$FETCH_DIGEST"
	engine_lacks "$FETCH_REF"
	engine_lacks "$FOREIGN_REF"
	engine_lacks "$SCIP_REF"
	assert_equal "$(registry_images)" ""
}

@test "without --fetch an absent image is refused: exit 71, MGS3005 naming --fetch; nothing created or pulled" {
	run --separate-stderr relay -- run hello
	assert_equal "$status" 71
	assert_code MGS3005
	[[ $stderr == *"'$FETCH_REF'"* ]] || fail "the image is not named: $stderr"
	[[ $stderr == *"--fetch"* ]] || fail "no --fetch in the hint: $stderr"
	[[ $stderr != *"fetching"* ]] || fail "it fetched: $stderr"
	assert_equal "$output" ""
	assert_equal "$(relay_objects)" ""
	engine_lacks "$FETCH_REF"
	assert_equal "$(registry_images)" ""
}

@test "--fetch pulls the image by digest from the registry, checks it is linux/$HOST_ARCH, and the run works" {
	run --separate-stderr relay --fetch -- run hello
	assert_equal "$status" 3
	assert_equal "$output" "hello from Linux"
	[[ $stderr == *"magus-relay: fetching '$FETCH_REF' for $RELAY_PLATFORM"* ]] ||
		fail "no fetching line: $stderr"
	[[ $stderr == *"magus-relay: fetched '$FETCH_REF' in "* ]] ||
		fail "no fetched line: $stderr"
	[[ $stderr == *to-stderr* ]] || fail "the target's stderr is lost: $stderr"
	# The image the engine now holds is the registry's, for this platform.
	run engine_cli -H "$ENGINE_URL" image-inspect "$FETCH_REF"
	assert_success
	assert_line "os=linux"
	assert_line "arch=$HOST_ARCH"
	assert_line "digest=$FETCH_REF"
	# Its own image, not a new name on the engine's test image.
	base=$(engine_cli -H "$ENGINE_URL" image-inspect "$ENGINE_IMAGE" | sed -n 's/^id=//p')
	[[ $output != *"id=$base"* ]] || fail "the pull landed on $ENGINE_IMAGE"
	# The container is gone; the image stays; a second run needs no fetch.
	assert_equal "$(relay_objects | grep -c '^c ')" 0
	run --separate-stderr relay -- run hello
	assert_equal "$status" 3
	assert_equal "$output" "hello from Linux"
	[[ $stderr != *"fetching"* ]] || fail "it fetched again: $stderr"
}

@test "--fetch of an image built for another architecture: pulled, then refused at the platform check: exit 71, MGS3042, no container" {
	sed -i "s|ref: \".*\"|ref: \"$FOREIGN_REF\"|" "$WS/magus.yaml"
	run --separate-stderr relay --fetch -- run hello
	assert_equal "$status" 71
	assert_code MGS3042
	[[ $stderr == *"fetching '$FOREIGN_REF'"* ]] || fail "no fetch: $stderr"
	[[ $stderr == *"linux/$(foreign_arch)"* ]] ||
		fail "the image's platform is not named: $stderr"
	assert_equal "$output" ""
	assert_equal "$(relay_objects | grep -c '^c ' || true)" 0
}

@test "--fetch of a digest the registry lacks: exit 71, MGS3033 with the engine's message from inside the stream; nothing left behind" {
	sed -i "s|ref: \".*\"|ref: \"$MISSING_REF\"|" "$WS/magus.yaml"
	run --separate-stderr relay --fetch -- run hello
	assert_equal "$status" 71
	assert_code MGS3033
	[[ $stderr == *"fetching '$MISSING_REF'"* ]] || fail "no fetch: $stderr"
	# The registry's own words, as the engine streamed them.
	[[ $stderr == *"manifest unknown"* ]] ||
		fail "the engine's message is not passed on: $stderr"
	[[ $stderr != *"fetched"* ]] || fail "a failed pull reported done: $stderr"
	assert_equal "$output" ""
	assert_equal "$(relay_objects)" ""
	engine_lacks "$MISSING_REF"
	assert_equal "$(registry_images)" ""
	# The engine did answer 200 and put the failure inside the stream.
	run --separate-stderr engine_cli -H "$ENGINE_URL" image-pull "$MISSING_REF"
	assert_equal "$status" 71
	[[ $stderr == *"kind: pull (HTTP 200)"* ]] ||
		fail "the failure was not inside a 200 stream: $stderr"
}

@test "--fetch from a repository the registry lacks: exit 71, MGS3033; nothing left behind" {
	ref=$REGISTRY/magus-nowhere@$FETCH_DIGEST
	sed -i "s|ref: \".*\"|ref: \"$ref\"|" "$WS/magus.yaml"
	run --separate-stderr relay --fetch -- run hello
	assert_equal "$status" 71
	assert_code MGS3033
	[[ $stderr == *"magus-nowhere"* ]] || fail "the image is not named: $stderr"
	assert_equal "$(relay_objects)" ""
	engine_lacks "$ref"
	assert_equal "$(registry_images)" ""
}

@test "magus scip: an absent indexer image is refused without --fetch, pulled from the registry with it, and the index is made" {
	sws=$T/sws
	scip_ws "$sws" 2 1
	SCIP_IMAGE=$SCIP_REF scip_decl small 64 | sed '1i indexers:' >"$sws/magus.yaml"
	run --separate-stderr magus -C "$sws" scip small
	assert_equal "$status" 71
	assert_code MGS3005
	[ "$(scip_status_field "$sws" small .state)" = unavailable ]
	[[ "$(scip_status_field "$sws" small .fix)" == "magus --fetch scip small"* ]]
	engine_lacks "$SCIP_REF"

	run --separate-stderr magus -C "$sws" --fetch scip small
	assert_success
	[[ "$stderr" == *"magus-scip: indexed 'small': 2 documents"* ]] ||
		fail "no index: $stderr"
	[ -s "$sws/.magus/index/small/index.scip" ]
	[ "$(scip_status_field "$sws" small .state)" = ok ]
	run engine_cli -H "$ENGINE_URL" image-inspect "$SCIP_REF"
	assert_success
	assert_line "digest=$SCIP_REF"
	assert_equal "$(scip_containers "$sws")" ""
}
