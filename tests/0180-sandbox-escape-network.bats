#!/usr/bin/env bats
# --network none: TCP connect and bind denied (Landlock ABI 4), against a
# real listener on the loopback that logs every connection it accepts.

load lib/common
load lib/escape

setup() {
	escape_setup
	need_abi 4
}
teardown() { escape_teardown; }

# Listen on ADDR outside the sandbox; sets PORT.
listen_on() {
	background "$ESC_BIN/esc-net" tcp-serve "$1" "$T/port" "$T/log"
	wait_for "$T/port"
	PORT=$(cat "$T/port")
}

@test "TCP connect to 127.0.0.1 under --network none is denied: EACCES" {
	listen_on 127.0.0.1
	# The listener is real and the default policy lets the child reach it.
	run --separate-stderr sbx -- "$WS/bin/esc-net" tcp-connect 127.0.0.1 "$PORT"
	assert_went_through
	run --separate-stderr sbx --network allow -- "$WS/bin/esc-net" tcp-connect 127.0.0.1 "$PORT"
	assert_went_through
	wait_lines "$T/log" 2
	[ "$(cat "$T/log")" = "connection
connection" ]
	: >"$T/log"
	run --separate-stderr sbx --network none -- "$WS/bin/esc-net" tcp-connect 127.0.0.1 "$PORT"
	assert_denied EACCES
	sleep 0.2
	[ ! -s "$T/log" ]
}

@test "TCP connect to ::1 under --network none is denied: EACCES" {
	skip_unless "no IPv6 loopback here" \
		grep -q '^00000000000000000000000000000001 .* lo$' /proc/net/if_inet6
	listen_on ::1
	run --separate-stderr sbx -- "$WS/bin/esc-net" tcp-connect ::1 "$PORT"
	assert_went_through
	wait_lines "$T/log" 1
	: >"$T/log"
	run --separate-stderr sbx --network none -- "$WS/bin/esc-net" tcp-connect ::1 "$PORT"
	assert_denied EACCES
	sleep 0.2
	[ ! -s "$T/log" ]
}

@test "a shell's /dev/tcp under --network none gets nowhere" {
	listen_on 127.0.0.1
	run --separate-stderr sbx --network none -- /bin/bash -c \
		"echo stolen >/dev/tcp/127.0.0.1/$PORT"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"Permission denied"* ]]
	sleep 0.2
	[ ! -s "$T/log" ]
}

@test "TCP bind under --network none is denied: EACCES" {
	run --separate-stderr nocaps "$ESC_BIN/esc-net" tcp-bind 127.0.0.1 0
	assert_went_through
	run --separate-stderr sbx --network none -- "$WS/bin/esc-net" tcp-bind 127.0.0.1 0
	assert_denied EACCES
	run --separate-stderr sbx --network none -- "$WS/bin/esc-net" tcp-bind 0.0.0.0 0
	assert_denied EACCES
}
