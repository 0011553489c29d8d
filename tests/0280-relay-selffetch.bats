#!/usr/bin/env bats
# The relay and `magus self fetch` together, end to end: with no
# development build in the platform store the relay refuses (exit 2,
# MGS3040) printing the fetch command; `magus self fetch` then fetches a
# release of this build's static magus, made with the project's own
# tooling and a test key, from a loopback HTTPS server with a test CA;
# and a relayed run on the real test engine mounts the fetched entry and
# runs it, with no further request to the server.

load lib/common
load lib/engine
load lib/relay
load lib/selffetch

setup_file() {
	sf_setup_file
	engine_up
}
teardown_file() { engine_down; }

setup() {
	sf_setup
	engine_require
	relay_ws
	# No platform store at all: the inner magus can only come from the
	# self-fetch cache, and the relay makes the store it writes into.
	STORE=$WS/.magus/platform/linux-$HOST_ARCH
	rm -rf "$STORE"
	# A target that shows which build the container holds (FETCH-INFO
	# exists only in a self-fetch cache entry, never in a store build)
	# and whether that build's sandbox confines it.
	cat >>"$WS/magus.yaml" <<-'EOF'
	  inner:
	    run: ["sh", "-c", "cat /usr/local/lib/magus/FETCH-INFO && /usr/local/lib/magus/bin/magus --version && { echo x 2>/dev/null >/tmp/escape-attempt && echo escaped || echo confined; }; exit 5"]
	EOF
}

teardown() {
	relay_cleanup
	sf_teardown
}

# magus self fetch, through the front, from the workspace, against the
# server sf_serve started.
front_fetch() {
	(cd "$WS" && MAGUS_RELEASE_INDEX=$SF_URL/index.json exec magus self fetch "$@")
}

@test "a missing inner magus is refused naming the fetch; after magus self fetch the relay runs the fetched build" {
	# Before the fetch: a refusal before anything reaches the engine.
	run --separate-stderr relay -- run inner
	assert_equal "$status" 2
	assert_code MGS3040
	[[ $stderr == *"magus self fetch $RELAY_PLATFORM"* ]] ||
		fail "the refusal does not print the fetch command: $stderr"
	assert_equal "$(relay_objects)" ""
	[ ! -e "$SF_ENTRY" ]
	[ ! -e "$STORE" ]

	# The fetch, through the front, as the refusal says.
	sf_serve "$SF/good"
	run --separate-stderr front_fetch "$RELAY_PLATFORM"
	assert_success
	assert_output "$SF_ENTRY"
	[[ $stderr == *"fetched magus $SF_VERSION for $RELAY_PLATFORM"* ]] ||
		fail "no fetch summary: $stderr"
	cmp "$SF_ENTRY/bin/magus" "$SF_INNER/bin/magus"
	# The relay never fetches: the server is gone from here on.
	sf_stop
	local requests
	requests=$(wc -l <"$T/server.log")

	# The create request mounts the cache entry read-only as the inner
	# magus.
	run --separate-stderr relay --print-request -- run inner
	assert_success
	[[ $output == *'{"Type":"bind","Source":"'"$SF_ENTRY"'","Target":"/usr/local/lib/magus","ReadOnly":true}'* ]] ||
		fail "the request does not mount '$SF_ENTRY': $output"

	# The relayed run: the container holds the fetched entry, its magus
	# runs the target under its own magus-sandbox-exec, and the output
	# and the status arrive.
	run --separate-stderr relay -v -- --sandbox=required run inner
	assert_equal "$status" 5
	assert_equal "$output" "$(cat "$SF_ENTRY/FETCH-INFO")
magus $SF_VERSION
confined"
	[[ ${stderr_lines[0]} == "magus-relay: $RELAY_PLATFORM on "* ]] ||
		fail "line one: ${stderr_lines[0]}"
	[[ $stderr == *"writes land in '$STORE'"* ]] ||
		fail "the store is not named: $stderr"
	[ -d "$STORE" ]
	[ ! -e "$STORE/magus" ]
	assert_equal "$(wc -l <"$T/server.log")" "$requests"
	run relay_objects
	assert_equal "$(grep -c '^c ' <<<"$output")" 0
}

@test "a fetched entry changed after the fetch is refused like a missing one, and a fetch repairs it" {
	sf_serve "$SF/good"
	run --separate-stderr front_fetch "$RELAY_PLATFORM"
	assert_success
	sf_stop

	chmod u+w "$SF_ENTRY/bin" "$SF_ENTRY/bin/magus"
	printf 'X' | dd of="$SF_ENTRY/bin/magus" bs=1 seek=4000 conv=notrunc 2>/dev/null
	run --separate-stderr relay -- run inner
	assert_equal "$status" 2
	assert_code MGS3040
	[[ $stderr == *"$SF_ENTRY"* ]] || fail "the refusal names no entry: $stderr"
	[[ $stderr == *"magus self fetch $RELAY_PLATFORM"* ]] ||
		fail "the refusal does not print the fetch command: $stderr"
	assert_equal "$(relay_objects)" ""

	sf_serve "$SF/good"
	run --separate-stderr front_fetch "$RELAY_PLATFORM"
	assert_success
	[[ $stderr == *"fetched magus"* ]] || fail "not fetched again: $stderr"
	sf_stop
	run --separate-stderr relay -- --sandbox=required run inner
	assert_equal "$status" 5
	assert_equal "$output" "$(cat "$SF_ENTRY/FETCH-INFO")
magus $SF_VERSION
confined"
}
