#!/usr/bin/env bats
# Exec: a compromised step drops a binary somewhere the policy does not
# grant exec (the shared /tmp, $HOME) and runs it, directly, through the
# dynamic loader, or as a script.

load lib/common
load lib/escape

setup() {
	escape_setup
	need_abi 3
	shared_tmp_dir
	DROPPED=$ESC_SHARED_TMP/dropped
	cp /bin/echo "$DROPPED"
	chmod 0755 "$DROPPED"
	MARK=escape-suite-exec-marker
}
teardown() { escape_teardown; }

@test "exec of a binary copied to the shared /tmp is denied: EACCES" {
	run --separate-stderr nocaps "$ESC_BIN/esc-file" exec "$DROPPED" "$MARK"
	assert_success
	assert_output "$MARK"
	run --separate-stderr sbx -- "$WS/bin/esc-file" exec "$DROPPED" "$MARK"
	assert_denied EACCES
}

@test "the dynamic loader cannot run the dropped binary either" {
	local interp
	interp=$(readelf -l /bin/echo | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]/\1/p')
	[ -x "$interp" ]
	run --separate-stderr nocaps "$interp" "$DROPPED" "$MARK"
	assert_output "$MARK"
	run --separate-stderr sbx -- "$interp" "$DROPPED" "$MARK"
	[ "$status" -eq 127 ]
	[[ "$stderr" == *"cannot open shared object file: Permission denied"* ]]
	refute_output --partial "$MARK"
}

@test "a shell cannot run a script dropped in the shared /tmp" {
	printf 'echo %s\n' "$MARK" >"$ESC_SHARED_TMP/dropped.sh"
	chmod 0755 "$ESC_SHARED_TMP/dropped.sh"
	run --separate-stderr sbx -- /bin/sh "$ESC_SHARED_TMP/dropped.sh"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"Permission denied"* ]]
	refute_output --partial "$MARK"
	run --separate-stderr sbx -- "$WS/bin/esc-file" exec "$ESC_SHARED_TMP/dropped.sh"
	assert_denied EACCES
}

@test "exec of a binary dropped in \$HOME is denied: EACCES" {
	mkdir -p "$HOME/.local/bin"
	cp /bin/echo "$HOME/.local/bin/helper"
	run --separate-stderr sbx -- "$WS/bin/esc-file" exec "$HOME/.local/bin/helper" "$MARK"
	assert_denied EACCES
}

@test "an ro allow entry grants no exec; rx does" {
	mkdir "$T/tools"
	cp /bin/echo "$T/tools/tool"
	run --separate-stderr sbx --allow "ro:$T/tools" -- "$WS/bin/esc-file" read "$T/tools/tool"
	assert_went_through
	run --separate-stderr sbx --allow "ro:$T/tools" -- "$WS/bin/esc-file" exec "$T/tools/tool" "$MARK"
	assert_denied EACCES
	run --separate-stderr sbx --allow "rw:$T/tools" -- "$WS/bin/esc-file" exec "$T/tools/tool" "$MARK"
	assert_denied EACCES
	run --separate-stderr sbx --allow "rx:$T/tools" -- "$WS/bin/esc-file" exec "$T/tools/tool" "$MARK"
	assert_success
	assert_output "$MARK"
}

@test "binaries in the workspace, the private temp and on PATH do run" {
	mkdir "$T/on-path"
	cp /bin/echo "$T/on-path/pathtool"
	cp /bin/echo "$WS/built"
	cp /bin/echo "$TMPD/built"
	run --separate-stderr sbx -- "$WS/bin/esc-file" exec "$WS/built" "$MARK"
	assert_success
	assert_output "$MARK"
	run --separate-stderr sbx -- "$WS/bin/esc-file" exec "$TMPD/built" "$MARK"
	assert_success
	assert_output "$MARK"
	SBX_PATH=$T/on-path:$SBX_PATH
	run --separate-stderr sbx -- pathtool "$MARK"
	assert_success
	assert_output "$MARK"
}
