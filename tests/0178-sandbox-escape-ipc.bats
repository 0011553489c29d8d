#!/usr/bin/env bats
# Reaching processes outside the sandbox: signals, ptrace, abstract unix
# sockets (Landlock's scopes, ABI 6, and its ptrace rule).  The targets
# run as the same user, so the kernel's own permission checks say yes;
# only the sandbox can say no.

load lib/common
load lib/escape

setup() {
	escape_setup
	need_abi 6
	SOCK=magus-escape-$$-$RANDOM
}
teardown() { escape_teardown; }

@test "signalling a process outside the sandbox is denied: EPERM" {
	local victim twin
	background sleep 300
	victim=$BG_PID
	background sleep 300
	twin=$BG_PID
	control_ok esc-ipc kill "$twin" 15
	run wait "$twin"
	[ "$status" -eq 143 ]
	run --separate-stderr sbx -- "$WS/bin/esc-ipc" kill "$victim" 9
	assert_denied EPERM
	run --separate-stderr sbx -- "$WS/bin/esc-ipc" kill "$victim" 0
	assert_denied EPERM
	kill -0 "$victim"
}

@test "signalling the supervising magus-sandbox-exec is denied: EPERM" {
	run --separate-stderr sbx_fork -- /bin/sh -c 'exec "$0" kill "$PPID" 9' "$WS/bin/esc-ipc"
	assert_denied EPERM
}

@test "signals inside the sandbox still work" {
	run --separate-stderr sbx -- /bin/sh -c \
		'sleep 30 & "$0" kill "$!" 15; r=$?; wait; exit $r' "$WS/bin/esc-ipc"
	assert_went_through
}

@test "ptrace of a process outside the sandbox is denied: EPERM" {
	skip_unless "Yama restricts ptrace to descendants here" \
		test "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" = 0
	# A target with no capabilities, which a capability-less tracer of
	# the same uid may otherwise attach to.
	background "${NOCAPS[@]}" sleep 300
	control_ok esc-ipc ptrace "$BG_PID"
	run --separate-stderr sbx -- "$WS/bin/esc-ipc" ptrace "$BG_PID"
	assert_denied EPERM
	kill -0 "$BG_PID"
}

@test "connecting to an abstract unix socket served outside is denied: EPERM" {
	background "$ESC_BIN/esc-ipc" unix-serve stream "$SOCK" "$T/ready" "$T/log"
	wait_for "$T/ready"
	control_ok esc-ipc unix-connect "$SOCK"
	wait_lines "$T/log" 1
	[ "$(cat "$T/log")" = connection ]
	: >"$T/log"
	run --separate-stderr sbx -- "$WS/bin/esc-ipc" unix-connect "$SOCK"
	assert_denied EPERM
	[ ! -s "$T/log" ]
}

@test "sending a datagram to an abstract unix socket outside is denied: EPERM" {
	background "$ESC_BIN/esc-ipc" unix-serve dgram "$SOCK" "$T/ready" "$T/log"
	wait_for "$T/ready"
	control_ok esc-ipc unix-send "$SOCK"
	# The server logs after the send returns: wait for the line.
	wait_lines "$T/log" 1
	[ "$(cat "$T/log")" = datagram ]
	: >"$T/log"
	run --separate-stderr sbx -- "$WS/bin/esc-ipc" unix-send "$SOCK"
	assert_denied EPERM
	sleep 0.2
	[ ! -s "$T/log" ]
}

@test "an abstract unix socket served inside the sandbox is reachable from inside" {
	run --separate-stderr sbx -- /bin/sh -c '
		"$0" unix-serve stream "$1" "$TMPDIR/ready" "$TMPDIR/log" &
		while [ ! -e "$TMPDIR/ready" ]; do sleep 0.05; done
		"$0" unix-connect "$1"; r=$?
		kill "$!"
		exit $r' "$WS/bin/esc-ipc" "$SOCK"
	assert_went_through
}
