#!/usr/bin/env bats
# Escapes through the file system: reading credentials, writing outside
# the workspace, directly, through symlinks, links and renames.  Each
# attack runs in its own process under --mode required with the default
# policy; each asserts the errno and that nothing outside changed.

load lib/common
load lib/escape

setup() {
	escape_setup
	need_abi 3
}
teardown() { escape_teardown; }

@test "reading a planted ~/.ssh/id_rsa is denied: EACCES" {
	control_ok esc-file read "$HOME/.ssh/id_rsa"
	before=$(snap "$HOME")
	run --separate-stderr sbx -- "$WS/bin/esc-file" read "$HOME/.ssh/id_rsa"
	assert_denied EACCES
	run --separate-stderr sbx -- "$WS/bin/esc-file" list "$HOME/.ssh"
	assert_denied EACCES
	assert_unchanged "$HOME"
}

@test "reading a planted ~/.aws/credentials is denied: EACCES" {
	control_ok esc-file read "$HOME/.aws/credentials"
	before=$(snap "$HOME")
	run --separate-stderr sbx -- "$WS/bin/esc-file" read "$HOME/.aws/credentials"
	assert_denied EACCES
	assert_unchanged "$HOME"
}

@test "a shell in the sandbox cannot cat the credentials either" {
	run --separate-stderr sbx -- /bin/sh -c \
		'cat "$HOME/.aws/credentials" "$HOME/.ssh/id_rsa"'
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$HOME/.aws/credentials: Permission denied"* ]]
	[[ "$stderr" == *"$HOME/.ssh/id_rsa: Permission denied"* ]]
	refute_secrets
}

@test "reading a file in the shared /tmp is denied: EACCES" {
	shared_tmp_dir
	printf 'left in /tmp by another program\n' >"$ESC_SHARED_TMP/note"
	chmod 0644 "$ESC_SHARED_TMP/note"
	control_ok esc-file read "$ESC_SHARED_TMP/note"
	run --separate-stderr sbx -- "$WS/bin/esc-file" read "$ESC_SHARED_TMP/note"
	assert_denied EACCES
	run --separate-stderr sbx -- "$WS/bin/esc-file" list /tmp
	assert_denied EACCES
}

@test "appending to a file outside the workspace is denied: EACCES" {
	control_ok esc-file write "$OUT/twin"
	before=$(snap "$OUT/victim")
	run --separate-stderr sbx -- "$WS/bin/esc-file" write "$OUT/victim"
	assert_denied EACCES
	assert_unchanged "$OUT/victim"
}

@test "creating files outside the workspace is denied: EACCES" {
	control_ok esc-file create "$OUT/control-new"
	rm "$OUT/control-new"
	shared_tmp_dir
	before=$(snap "$OUT" "$HOME" "$ESC_SHARED_TMP")
	run --separate-stderr sbx -- "$WS/bin/esc-file" create "$OUT/new"
	assert_denied EACCES
	run --separate-stderr sbx -- "$WS/bin/esc-file" create "$ESC_SHARED_TMP/new"
	assert_denied EACCES
	run --separate-stderr sbx -- "$WS/bin/esc-file" create "$HOME/.bashrc"
	assert_denied EACCES
	run --separate-stderr sbx -- "$WS/bin/esc-file" mkdir "$HOME/.config/autostart"
	assert_denied EACCES
	assert_unchanged "$OUT" "$HOME" "$ESC_SHARED_TMP"
}

@test "removing a file outside the workspace is denied: EACCES" {
	control_ok esc-file unlink "$OUT/twin"
	before=$(snap "$OUT")
	run --separate-stderr sbx -- "$WS/bin/esc-file" unlink "$OUT/victim"
	assert_denied EACCES
	assert_unchanged "$OUT"
}

@test "writing through a workspace symlink that points outside is denied: EACCES" {
	ln -s "$OUT/victim" "$WS/innocent.txt"
	ln -s "$OUT/twin" "$WS/twin.txt"
	control_ok esc-file write "$WS/twin.txt"
	before=$(snap "$OUT")
	run --separate-stderr sbx -- "$WS/bin/esc-file" write "$WS/innocent.txt"
	assert_denied EACCES
	run --separate-stderr sbx -- "$WS/bin/esc-file" otrunc-wo "$WS/innocent.txt"
	assert_denied EACCES
	assert_unchanged "$OUT"
}

@test "creating a file through a dangling workspace symlink is denied: EACCES" {
	ln -s "$OUT/planted" "$WS/dangling"
	before=$(snap "$OUT")
	run --separate-stderr sbx -- "$WS/bin/esc-file" creat "$WS/dangling"
	assert_denied EACCES
	assert_unchanged "$OUT"
}

@test "a symlink the attack makes itself does not reach outside either" {
	before=$(snap "$OUT")
	run --separate-stderr sbx -- "$WS/bin/esc-file" symlink "$OUT/victim" "$WS/made-inside"
	assert_went_through
	run --separate-stderr sbx -- "$WS/bin/esc-file" write "$WS/made-inside"
	assert_denied EACCES
	run --separate-stderr sbx -- "$WS/bin/esc-file" read "$WS/made-inside"
	assert_denied EACCES
	assert_unchanged "$OUT"
}

@test "hard-linking an outside file into the workspace is denied: EXDEV" {
	# link(2) needs the refer right on both sides (Landlock ABI 2).
	control_ok esc-file link "$OUT/twin" "$WS/control-link"
	rm "$WS/control-link"
	before=$(snap "$OUT" "$WS")
	run --separate-stderr sbx -- "$WS/bin/esc-file" link "$OUT/victim" "$WS/stolen"
	assert_denied EXDEV
	assert_unchanged "$OUT" "$WS"
	run stat -c %h "$OUT/victim"
	assert_output 1
}

@test "renaming an outside file into the workspace is denied: EACCES" {
	control_ok esc-file rename "$OUT/twin" "$WS/control-moved"
	before=$(snap "$OUT" "$WS")
	run --separate-stderr sbx -- "$WS/bin/esc-file" rename "$OUT/victim" "$WS/moved"
	assert_denied EACCES
	run --separate-stderr sbx -- "$WS/bin/esc-file" rename "$WS/bin/esc-env" "$OUT/moved-out"
	assert_denied EACCES
	assert_unchanged "$OUT" "$WS"
}

@test "exchanging a workspace file with an outside one is denied: EACCES" {
	printf 'inside\n' >"$WS/mine"
	printf 'inside\n' >"$WS/control-mine"
	control_ok esc-file exchange "$WS/control-mine" "$OUT/twin"
	before=$(snap "$OUT" "$WS")
	run --separate-stderr sbx -- "$WS/bin/esc-file" exchange "$WS/mine" "$OUT/victim"
	assert_denied EACCES
	assert_unchanged "$OUT" "$WS"
}

@test "mv of an outside file into the workspace fails and changes nothing" {
	# mv falls back to copy and unlink when rename(2) says EXDEV.
	before=$(snap "$OUT" "$WS")
	run --separate-stderr sbx -- mv "$OUT/victim" "$WS/moved"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"Permission denied"* ]]
	assert_unchanged "$OUT" "$WS"
}
