#!/usr/bin/env bats
# magus run under sandbox.network {mode: proxy, allow: [...]} in
# magus.yaml: the target's curl reaches what is listed, and a bad entry
# stops the run before anything starts.

load lib/common
load lib/egress
load lib/netns
load lib/netproxy

setup() { np_setup; }
teardown() { np_teardown; }

# magus in $NS_RUN, from the workspace, with the build tree's helpers.
nmagus() {
	ip netns exec "$NS_RUN" env -i HOME="$HOME" \
		PATH="$MAGUS_BUILD_DIR/bin-wrappers:$SBX_PATH" \
		MAGUS_EXEC_PATH="$MAGUS_EXEC_PATH" XDG_CONFIG_HOME="$XDG_CONFIG_HOME" \
		magus "$@"
}

@test "magus run: the listed destination is reached, another is refused" {
	mkws "$WS" <<-EOF
	sandbox:
	  mode: required
	  network:
	    mode: proxy
	    allow: ["$UP_ADDR:$ORIGIN_PORT"]
	targets:
	  fetch: {run: 'curl -q -fsS http://$UP_ADDR:$ORIGIN_PORT/hello'}
	  other: {run: 'curl -q -sS -o /dev/null -w "%{http_code}" http://$UP_ADDR:1/hello'}
	  direct: {run: 'curl -q -sS --noproxy "*" http://$UP_ADDR:$ORIGIN_PORT/hello'}
	EOF
	run --separate-stderr nmagus run fetch
	assert_success
	assert_output hello
	run --separate-stderr nmagus run other
	assert_output 403
	run --separate-stderr nmagus run direct
	assert_failure 7
}

@test "a target's own network replaces the workspace's, list and all" {
	mkws "$WS" <<-EOF
	sandbox:
	  mode: required
	  network: {mode: proxy, allow: ["$UP_ADDR:$ORIGIN_PORT"]}
	targets:
	  open: {run: 'curl -q -fsS http://$UP_ADDR:$ORIGIN_PORT/hello'}
	  closed:
	    run: 'curl -q -sS -o /dev/null -w "%{http_code}" http://$UP_ADDR:$ORIGIN_PORT/hello'
	    sandbox: {network: {mode: proxy, allow: []}}
	EOF
	run --separate-stderr nmagus run open
	assert_output hello
	run --separate-stderr nmagus run closed
	assert_output 403
}

@test "a bad allow entry in magus.yaml: exit 2, MGS2004 naming it, nothing ran" {
	local e
	for e in "$UP_ADDR" "$UP_ADDR:*" "exa mple.com:80" "*.example.com"; do
		mkws "$WS" <<-EOF
		sandbox:
		  mode: required
		  network:
		    mode: proxy
		    allow: ["$UP_ADDR:$ORIGIN_PORT", "$e"]
		targets:
		  t: {run: 'touch ran'}
		EOF
		run --separate-stderr nmagus run t
		[ "$status" = 2 ] || fail "'$e': exit $status: $stderr"
		assert_code MGS2004
		[[ "$stderr" == *"'$e'"* ]] || fail "'$e' not named: $stderr"
		[ ! -e "$WS/ran" ]
	done
}
