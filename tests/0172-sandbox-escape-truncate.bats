#!/usr/bin/env bats
# Truncation: the right Landlock only handles from ABI 3, the reason
# --mode required refuses older kernels.  Three ways in: truncate(2),
# open(O_TRUNC) on a file the policy lets the child read, and creat(2).

load lib/common
load lib/escape

setup() {
	escape_setup
	need_abi 3
	# A directory on the child's PATH is granted read and exec by the
	# default policy, never write: the "read-only permitted" file.
	mkdir "$T/on-path"
	printf 'a tool config on PATH\n' >"$T/on-path/victim"
	printf 'a tool config on PATH\n' >"$T/on-path/twin"
	chmod 0666 "$T/on-path/victim" "$T/on-path/twin"
	SBX_PATH=$T/on-path:$SBX_PATH
}
teardown() { escape_teardown; }

@test "truncate(2) of an outside file is denied: EACCES" {
	control_ok esc-file truncate "$OUT/twin"
	before=$(snap "$OUT/victim")
	run --separate-stderr sbx -- "$WS/bin/esc-file" truncate "$OUT/victim"
	assert_denied EACCES
	assert_unchanged "$OUT/victim"
}

@test "truncate(2) through a workspace symlink pointing outside is denied: EACCES" {
	ln -s "$OUT/victim" "$WS/link"
	before=$(snap "$OUT/victim")
	run --separate-stderr sbx -- "$WS/bin/esc-file" truncate "$WS/link"
	assert_denied EACCES
	assert_unchanged "$OUT/victim"
}

@test "O_TRUNC on a file the policy lets the child read is denied: EACCES" {
	run --separate-stderr sbx -- "$WS/bin/esc-file" read "$T/on-path/victim"
	assert_went_through
	control_ok esc-file otrunc-ro "$T/on-path/twin"
	[ ! -s "$T/on-path/twin" ]
	before=$(snap "$T/on-path/victim")
	run --separate-stderr sbx -- "$WS/bin/esc-file" otrunc-ro "$T/on-path/victim"
	assert_denied EACCES
	run --separate-stderr sbx -- "$WS/bin/esc-file" otrunc-wo "$T/on-path/victim"
	assert_denied EACCES
	assert_unchanged "$T/on-path/victim"
}

@test "O_TRUNC on a file under an ro allow entry is denied: EACCES" {
	mkdir "$T/granted"
	printf 'granted read-only\n' >"$T/granted/victim"
	chmod 0666 "$T/granted/victim"
	before=$(snap "$T/granted")
	run --separate-stderr sbx --allow "ro:$T/granted" -- "$WS/bin/esc-file" read "$T/granted/victim"
	assert_went_through
	run --separate-stderr sbx --allow "ro:$T/granted" -- "$WS/bin/esc-file" otrunc-ro "$T/granted/victim"
	assert_denied EACCES
	run --separate-stderr sbx --allow "ro:$T/granted/victim" -- "$WS/bin/esc-file" otrunc-ro "$T/granted/victim"
	assert_denied EACCES
	run --separate-stderr sbx --allow "ro:$T/granted" -- "$WS/bin/esc-file" truncate "$T/granted/victim"
	assert_denied EACCES
	assert_unchanged "$T/granted"
}

@test "creat(2) over an outside file is denied: EACCES" {
	control_ok esc-file creat "$OUT/twin"
	before=$(snap "$OUT" "$T/on-path")
	run --separate-stderr sbx -- "$WS/bin/esc-file" creat "$OUT/victim"
	assert_denied EACCES
	run --separate-stderr sbx -- "$WS/bin/esc-file" creat "$T/on-path/victim"
	assert_denied EACCES
	assert_unchanged "$OUT" "$T/on-path"
}

@test "truncation inside the workspace and the private temp still works" {
	printf 'scratch\n' >"$WS/scratch"
	printf 'scratch\n' >"$TMPD/scratch"
	run --separate-stderr sbx -- "$WS/bin/esc-file" truncate "$WS/scratch"
	assert_went_through
	run --separate-stderr sbx -- "$WS/bin/esc-file" otrunc-wo "$TMPD/scratch"
	assert_went_through
	run --separate-stderr sbx -- "$WS/bin/esc-file" creat "$WS/scratch"
	assert_went_through
	[ "$(cat "$WS/scratch")" = escaped ]
	[ "$(cat "$TMPD/scratch")" = escaped ]
}
