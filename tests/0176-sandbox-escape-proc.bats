#!/usr/bin/env bats
# Escapes through /proc: the magic links that name a file by something
# other than its path (an inherited fd, another process's root or cwd)
# and another process's environment.

load lib/common
load lib/escape

setup() {
	escape_setup
	need_abi 3
}
teardown() { escape_teardown; }

# COMMAND... as the child of a shell with no capabilities.  The kernel
# lets a process look into /proc/PID of a parent with the same uid and
# no more capabilities than itself; with a parent like that, only
# Landlock stands between the sandboxed child and its parent's root.
via_capless_parent() {
	nocaps /bin/sh -c '"$@"; exit $?' sh "$@"
}

@test "reopening an inherited read-only fd via /proc/self/fd for writing is denied: EACCES" {
	run --separate-stderr nocaps "$ESC_BIN/esc-file" reopen-fd 7 w 7<"$OUT/twin"
	assert_went_through
	before=$(snap "$OUT/victim")
	run --separate-stderr sbx -- "$WS/bin/esc-file" reopen-fd 7 w 7<"$OUT/victim"
	assert_denied EACCES
	run --separate-stderr sbx -- "$WS/bin/esc-file" reopen-fd 7 rw 7<"$OUT/victim"
	assert_denied EACCES
	# Not even for reading: the path it names is not granted.
	run --separate-stderr sbx -- "$WS/bin/esc-file" reopen-fd 7 r 7<"$OUT/victim"
	assert_denied EACCES
	assert_unchanged "$OUT/victim"
}

@test "an inherited fd itself still works (the parent chose to pass it)" {
	run --separate-stderr sbx -- /bin/sh -c 'cat <&7' 7<"$OUT/victim"
	assert_success
	assert_output "outside, must stay as it is"
}

@test "an outside file through /proc/self/root is denied: EACCES" {
	control_ok esc-file write "/proc/self/root$OUT/twin"
	before=$(snap "$OUT/victim")
	run --separate-stderr sbx -- "$WS/bin/esc-file" read "/proc/self/root$OUT/victim"
	assert_denied EACCES
	run --separate-stderr sbx -- "$WS/bin/esc-file" write "/proc/self/root$OUT/victim"
	assert_denied EACCES
	assert_unchanged "$OUT/victim"
}

@test "an outside file through /proc/<ppid>/root is denied: EACCES" {
	local prog
	prog='exec "$0" "$1" "/proc/$PPID/root$2"'
	run --separate-stderr via_capless_parent /bin/sh -c "$prog" \
		"$ESC_BIN/esc-file" write "$OUT/twin"
	assert_went_through
	before=$(snap "$OUT/victim")
	run --separate-stderr via_capless_parent env PATH="$SBX_PATH" \
		"$ESCAPE_SANDBOX_EXEC" --mode required --root "$WS" --tmp "$TMPD" -- \
		/bin/sh -c "$prog" "$WS/bin/esc-file" read "$OUT/victim"
	assert_denied EACCES
	run --separate-stderr via_capless_parent env PATH="$SBX_PATH" \
		"$ESCAPE_SANDBOX_EXEC" --mode required --root "$WS" --tmp "$TMPD" -- \
		/bin/sh -c "$prog" "$WS/bin/esc-file" write "$OUT/victim"
	assert_denied EACCES
	# A parent holding capabilities is out of reach for two reasons.
	run --separate-stderr sbx -- /bin/sh -c "$prog" "$WS/bin/esc-file" write "$OUT/victim"
	assert_denied EACCES
	assert_unchanged "$OUT/victim"
}

@test "an outside file through /proc/<ppid>/cwd is denied: EACCES" {
	local prog
	prog='exec "$0" "$1" "/proc/$PPID/cwd/$2"'
	cd "$OUT"
	run --separate-stderr via_capless_parent /bin/sh -c "$prog" \
		"$ESC_BIN/esc-file" read victim
	assert_went_through
	before=$(snap "$OUT/victim")
	run --separate-stderr via_capless_parent env PATH="$SBX_PATH" \
		"$ESCAPE_SANDBOX_EXEC" --mode required --root "$WS" --tmp "$TMPD" -- \
		/bin/sh -c "$prog" "$WS/bin/esc-file" write victim
	assert_denied EACCES
	assert_unchanged "$OUT/victim"
}

@test "the supervising magus-sandbox-exec's /proc/<pid>/root is out of reach: EACCES" {
	# Without --tmp the sandbox stays as the parent, to remove the temp
	# dir.  Started with no capabilities, so that only Landlock can keep
	# its child out of it.
	before=$(snap "$OUT/victim")
	run --separate-stderr nocaps env PATH="$SBX_PATH" \
		"$ESCAPE_SANDBOX_EXEC" --mode required --root "$WS" -- \
		/bin/sh -c 'exec "$0" "$1" "/proc/$PPID/root$2"' \
		"$WS/bin/esc-file" write "$OUT/victim"
	assert_denied EACCES
	run --separate-stderr nocaps env PATH="$SBX_PATH" \
		"$ESCAPE_SANDBOX_EXEC" --mode required --root "$WS" -- \
		/bin/sh -c 'exec "$0" "$1" "/proc/$PPID/environ"' \
		"$WS/bin/esc-file" read
	assert_denied EACCES
	assert_unchanged "$OUT/victim"
}

@test "the parent's environment through /proc/<ppid>/environ is denied: EACCES" {
	export AWS_SECRET_ACCESS_KEY=$AWS_KEY_SECRET
	run --separate-stderr via_capless_parent /bin/sh -c \
		'exec "$0" read "/proc/$PPID/environ"' "$ESC_BIN/esc-file"
	assert_went_through
	run --separate-stderr via_capless_parent env PATH="$SBX_PATH" \
		"$ESCAPE_SANDBOX_EXEC" --mode required --root "$WS" --tmp "$TMPD" -- \
		/bin/sh -c 'exec "$0" read "/proc/$PPID/environ"' "$WS/bin/esc-file"
	assert_denied EACCES
	run --separate-stderr via_capless_parent env PATH="$SBX_PATH" \
		"$ESCAPE_SANDBOX_EXEC" --mode required --root "$WS" --tmp "$TMPD" -- \
		/bin/sh -c 'tr "\0" "\n" <"/proc/$PPID/environ"'
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"Permission denied"* ]]
	refute_secrets
}
