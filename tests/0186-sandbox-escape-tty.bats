#!/usr/bin/env bats
# The terminal: a sandboxed child that shares its caller's controlling
# terminal can push keystrokes into the terminal's input with TIOCSTI.
# Whatever it pushes, the unconfined shell that started magus reads and
# runs once the child is gone: a way out of every file rule (the attack
# bubblewrap's --new-session answers, CVE-2017-5226).
#
# Each test runs the sandbox on a fresh pseudo-terminal (script(1)), as
# an interactive shell would, and then reads one line from that terminal
# the way the shell would read its next command.

load lib/common
load lib/escape

setup() {
	escape_setup
	need_abi 3
	INJECTED="echo escaped-$$"
}
teardown() { escape_teardown; }

# Run the shell words CMD on a new pseudo-terminal, then read a line from
# it as the interactive shell would.  script's stdin stays open (and
# empty) meanwhile, so nothing but CMD puts anything in the input.  The
# shell is bash whatever SHELL says (script(1) runs $SHELL, and dash has
# no read -t: its read would fail and the test could never see a line).
on_a_terminal() {
	local cmd=$1
	cmd+='; read -t 1 line; echo "next command: [$line]"'
	sleep 2 | SHELL=/bin/bash script -qec "$cmd" /dev/null | tr -d '\r'
}

# The errno a process without CAP_SYS_ADMIN gets for TIOCSTI on a
# terminal that is not its controlling one, or EIO where the kernel has
# turned TIOCSTI off for everyone (dev.tty.legacy_tiocsti=0).
tiocsti_refusal() {
	if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)" = 0 ]; then
		echo EIO
	else
		echo EPERM
	fi
}

@test "pushing a command into the caller's terminal (TIOCSTI) is denied" {
	local cmd
	skip_unless "script(1) (Debian bsdutils) is not installed" command -v script
	# The control: the kernel lets a capability-less process on its own
	# controlling terminal do it, and the shell reads the line.
	printf -v cmd '%q ' "${NOCAPS[@]}" "$ESC_BIN/esc-ipc" tiocsti 0 "$INJECTED"$'\n'
	run on_a_terminal "$cmd"
	if [ "$(tiocsti_refusal)" = EPERM ]; then
		assert_line ok
		assert_line "next command: [$INJECTED]"
	fi
	printf -v cmd '%q ' env PATH="$SBX_PATH" "$ESCAPE_SANDBOX_EXEC" \
		--mode required --root "$WS" --tmp "$TMPD" -- \
		"$WS/bin/esc-ipc" tiocsti 0 "$INJECTED"$'\n'
	run on_a_terminal "$cmd"
	assert_line "$(tiocsti_refusal)"
	assert_line "next command: []"
	# An interactive shell runs each command as a process group leader
	# (job control), where setsid(2) is refused: the same must hold.
	run on_a_terminal "set -m; $cmd"
	assert_line "$(tiocsti_refusal)"
	assert_line "next command: []"
}

@test "the forking path does not let the child type into the terminal either" {
	local cmd
	skip_unless "script(1) (Debian bsdutils) is not installed" command -v script
	printf -v cmd '%q ' env PATH="$SBX_PATH" "$ESCAPE_SANDBOX_EXEC" \
		--mode required --root "$WS" -- \
		"$WS/bin/esc-ipc" tiocsti 0 "$INJECTED"$'\n'
	run on_a_terminal "$cmd"
	assert_line "$(tiocsti_refusal)"
	assert_line "next command: []"
}

@test "through a fresh open of /dev/tty the child cannot type either" {
	local cmd
	skip_unless "script(1) (Debian bsdutils) is not installed" command -v script
	printf -v cmd '%q ' env PATH="$SBX_PATH" "$ESCAPE_SANDBOX_EXEC" \
		--mode required --root "$WS" --tmp "$TMPD" -- /bin/sh -c \
		'exec "$0" tiocsti 9 "$1" 9</dev/tty' "$WS/bin/esc-ipc" "$INJECTED"$'\n'
	run on_a_terminal "$cmd"
	assert_line "next command: []"
	refute_line ok
}

@test "another terminal of the same user is out of reach: EACCES" {
	local other
	skip_unless "script(1) (Debian bsdutils) is not installed" command -v script
	# Another session on its own pseudo-terminal: the user's other
	# window, where a password may be typed next.
	background script -qec "tty >'$T/other-tty'; exec sleep 60" /dev/null \
		>"$T/other.log" 2>&1
	wait_for "$T/other-tty"
	other=$(cat "$T/other-tty")
	[[ "$other" == /dev/pts/* ]]
	control_ok esc-file write "$other"
	run --separate-stderr sbx -- "$WS/bin/esc-file" write "$other"
	assert_denied EACCES
	# Read access would be keystroke theft (and would block: bounded).
	run --separate-stderr sbx -- /usr/bin/timeout 5 "$WS/bin/esc-file" read "$other"
	assert_denied EACCES
}

# A terminal nobody controls: the pseudo-terminal pty-hold keeps open.
# Sets PTY_SLAVE, its device.
free_terminal() {
	background "$ESC_BIN/esc-ipc" pty-hold "$T"
	wait_for "$T/slave"
	PTY_SLAVE=$(cat "$T/slave")
	[[ $PTY_SLAVE == /dev/pts/* ]] || fail "no pseudo-terminal: '$PTY_SLAVE'"
}

# The sandbox with no terminal anywhere: a session of its own (no
# controlling terminal) and none on stdin, stdout or stderr.
sbx_no_terminal() {
	setsid -w env PATH="$SBX_PATH" "$ESCAPE_SANDBOX_EXEC" --mode required \
		--root "$WS" --tmp "$TMPD" "$@" </dev/null
}

@test "with no terminal in reach the filter is left out, and a terminal the command opens takes no ioctls" {
	need_abi 5
	skip_unless "setsid(1) (util-linux) is not installed" command -v setsid
	free_terminal
	# The control: a capability-less process in a session of its own
	# opens the free terminal, which makes it its own, and types into it.
	run --separate-stderr setsid -w "${NOCAPS[@]}" "$ESC_BIN/esc-ipc" \
		ctty-tiocsti "$PTY_SLAVE" path "$INJECTED" </dev/null
	assert_went_through
	# The sandbox sees no terminal: no filter, and /dev/tty without its
	# ioctl right.
	run --separate-stderr sbx_no_terminal --print-policy -- true
	assert_line --regexp '^  read,write +/dev/tty \(device\)$'
	assert_line --regexp '^terminal +none to type into: '
	run --separate-stderr sbx_no_terminal -- /bin/grep '^Seccomp:' /proc/self/status
	assert_output "$(printf 'Seccomp:\t0')"
	# Even granted the terminal's device read and write (--allow rw),
	# the command makes the terminal its own (open does that) but types
	# into it neither through the device nor through /dev/tty: no rule
	# grants ioctls.  (Opening it works: the refusal is the ioctl's.)
	run --separate-stderr sbx_no_terminal --allow "rw:$PTY_SLAVE" -- \
		"$WS/bin/esc-file" write "$PTY_SLAVE"
	assert_went_through
	run --separate-stderr sbx_no_terminal --allow "rw:$PTY_SLAVE" -- \
		"$WS/bin/esc-ipc" ctty-tiocsti "$PTY_SLAVE" path "$INJECTED"
	assert_denied EACCES
	run --separate-stderr sbx_no_terminal --allow "rw:$PTY_SLAVE" -- \
		"$WS/bin/esc-ipc" ctty-tiocsti "$PTY_SLAVE" tty "$INJECTED"
	assert_denied EACCES
}

@test "a terminal on any inherited descriptor keeps the filter in" {
	skip_unless "setsid(1) (util-linux) is not installed" command -v setsid
	free_terminal
	# The control: a terminal inherited on descriptor 5 that nobody
	# controls can be claimed and typed into.
	run --separate-stderr setsid -w "${NOCAPS[@]}" "$ESC_BIN/esc-ipc" \
		ctty-tiocsti 5 path "$INJECTED" </dev/null 5<>"$PTY_SLAVE"
	assert_went_through
	run --separate-stderr sbx_no_terminal -- /bin/grep '^Seccomp:' \
		/proc/self/status 5<>"$PTY_SLAVE"
	assert_output "$(printf 'Seccomp:\t2')"
	run --separate-stderr sbx_no_terminal -- "$WS/bin/esc-ipc" \
		ctty-tiocsti 5 path "$INJECTED" 5<>"$PTY_SLAVE"
	assert_denied EPERM
}
