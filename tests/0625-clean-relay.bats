#!/usr/bin/env bats
# magus-clean after a real magus-relay killed with SIGKILL (issue 7):
# the relay had no chance to remove its container or its home volume;
# clean finds both under the relay's own labels, judges the owner gone
# (its pid is no longer running) and removes them, container first.  A
# live relay of the same workspace, meanwhile, is spared.

load lib/common
load lib/engine
load lib/relay
load lib/clean

setup_file() { engine_up; }
teardown_file() { engine_down; }
setup() {
	common_setup
	engine_require
	relay_ws
	RELAY_PID=
}
teardown() {
	[ -z "${RELAY_PID:-}" ] || kill -KILL "$RELAY_PID" 2>/dev/null || true
	relay_cleanup
	common_teardown
}

# Start the target `sleep` through the relay (RELAY_PID); CID is the
# container's id once it runs and the target has started.
start_relay() {
	relay_bg -- run sleep
	CID=$(relay_await_running) || fail "no container ran: $(cat "$T/err")"
	relay_await_line "$T/out" '^started$' || fail "the target did not start"
}

@test "the orphans of a relay killed with SIGKILL are found and removed" {
	local vol
	start_relay
	kill -KILL "$RELAY_PID"
	wait "$RELAY_PID" || true
	RELAY_PID=
	# What SIGKILL left behind: the container, still running, and the
	# home volume, both labeled for this workspace.
	assert_equal "$(relay_objects | grep -c '^c ')" 1
	vol=$(relay_objects | sed -n 's/^v //p')
	[ -n "$vol" ] || fail "no home volume: $(relay_objects)"
	next_second
	run --separate-stderr "$CLEAN" --root "$WS" --platform "$RELAY_PLATFORM"
	assert_success
	assert_line --partial "removed container ${CID:0:12}"
	assert_line --partial "removed volume $vol"
	assert_line --partial ": owner process is not running"
	assert_line --partial "magus.use=relay"
	assert_equal "$(relay_objects)" ""
	[ ! -e "$WS/.magus/platform/linux-$HOST_ARCH" ]
}

@test "a live relay of the same workspace is listed as live and spared" {
	start_relay
	next_second
	run --separate-stderr "$CLEAN" --root "$WS" --all
	assert_success
	assert_line --partial "kept container ${CID:0:12}"
	assert_line --partial ": owner process is running"
	assert_line --partial "magus.pid=$RELAY_PID"
	assert_equal "$(relay_objects | grep -c '^c ')" 1
	# The relay still runs its target, and ends it as usual.
	kill -TERM "$RELAY_PID"
	local rc=0
	wait "$RELAY_PID" || rc=$?
	RELAY_PID=
	assert_equal "$rc" 143
}
