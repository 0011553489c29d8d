#!/usr/bin/env bats
# magus-relay's signal rules against the real test engine: the first
# SIGTERM, SIGINT or SIGHUP is forwarded by name and waited for with no
# timer (exit 143, 130, 129); a second kills and removes the container.

load lib/common
load lib/engine
load lib/relay

setup_file() { engine_up; }
teardown_file() { engine_down; }
setup() { common_setup; engine_require; relay_ws; }
teardown() {
	[ -z "${RELAY_PID:-}" ] || kill -KILL "$RELAY_PID" 2>/dev/null || true
	relay_cleanup
	common_teardown
}

# forwarded SIG STATUS: the first SIG reaches the target, which ends;
# the relay exits STATUS once the container has, and removes it.
forwarded() {
	relay_bg -- run sleep
	relay_await_running >/dev/null || fail "no container ran"
	relay_await_line "$T/out" '^started$' || fail "the target did not start"
	kill "-$1" "$RELAY_PID"
	rc=0
	wait "$RELAY_PID" || rc=$?
	RELAY_PID=
	assert_equal "$rc" "$2"
	! grep -q never "$T/out" || fail "the target was not signaled"
	assert_equal "$(relay_objects | grep '^c ')" ""
}

@test "SIGTERM is forwarded and waited for: exit 143, the container removed" {
	forwarded TERM 143
}

@test "SIGINT is forwarded: exit 130" {
	forwarded INT 130
}

@test "SIGHUP is forwarded: exit 129" {
	forwarded HUP 129
}

@test "a target that ignores the first signal keeps running; the second kills and removes it" {
	relay_bg -- run stubborn
	id=$(relay_await_running) || fail "no container ran"
	relay_await_line "$T/out" '^started$' || fail "the target did not start"
	kill -TERM "$RELAY_PID"
	sleep 1
	# Forwarded, ignored, still waited for: no timer ends the wait.
	kill -0 "$RELAY_PID" || fail "the relay gave up after one signal"
	run engine_cli inspect "$id"
	assert_line "status=running"
	kill -TERM "$RELAY_PID"
	rc=0
	wait "$RELAY_PID" || rc=$?
	RELAY_PID=
	assert_equal "$rc" 143
	assert_equal "$(relay_objects | grep '^c ')" ""
}
