#!/usr/bin/env bats
# magus queue gate [--sandbox=MODE] -- COMMAND...: HEAD, not the working
# tree, copied privately, tested in the sandbox, removed.

load lib/common
load lib/sandbox

setup() {
	sandbox_setup
	export PATH="$MAGUS_BUILD_DIR/bin-wrappers:$SBX_PATH"
	export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid \
		GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
	skip_unless "git is not installed" command -v git
	mkws "$WS" <<-'EOF'
	sandbox: {mode: required}
	EOF
	echo committed >"$WS/file"
	git -C "$WS" init -q
	git -C "$WS" add magus.yaml file
	git -C "$WS" commit -qm one
	SHA=$(git -C "$WS" rev-parse --short HEAD)
}
teardown() { sandbox_teardown; }

@test "the first stderr line is 'testing HEAD <short sha>'; the status is the command's" {
	run --separate-stderr magus queue gate -- /bin/sh -c 'echo out; echo err >&2; exit 9'
	[ "$status" -eq 9 ]
	assert_output out
	[ "${stderr_lines[0]}" = "testing HEAD $SHA" ]
}

@test "the command sees HEAD, not the working tree, in a copy that is removed" {
	echo changed >"$WS/file"
	echo new >"$WS/untracked"
	run --separate-stderr magus queue gate -- /bin/sh -c \
		'pwd; cat file; ls -A; test -e untracked || echo no-untracked'
	assert_success
	copy=${lines[0]}
	[ "$copy" != "$WS" ]
	assert_line --index 1 committed
	refute_line .git
	assert_line no-untracked
	[ ! -e "$copy" ]
	[ "$(cat "$WS/file")" = changed ]
}

@test "the copy is the sandbox root: the workspace itself is out of reach" {
	need_abi 3
	run --separate-stderr magus queue gate -- /bin/sh -c \
		'echo x >inside && cat inside; echo y >"$0/file"' "$WS"
	[ "$status" -ne 0 ]
	assert_line x
	[[ "$stderr" == *"Permission denied"* ]]
	[ "$(cat "$WS/file")" = committed ]
}

@test "the gate runs in the workspace's subdirectory of the copy" {
	mkdir -p "$WS/sub"
	cp "$WS/magus.yaml" "$WS/sub/magus.yaml"
	git -C "$WS" add sub && git -C "$WS" commit -qm sub
	cd "$WS/sub"
	run --separate-stderr magus queue gate -- /bin/sh -c 'pwd; ls'
	assert_success
	[[ "${lines[0]}" == */head/sub ]]
	assert_line magus.yaml
}

@test "--sandbox strengthens; weaker than the mode in force is MGS2010" {
	cat >"$WS/magus.yaml" <<-'EOF'
	sandbox: {mode: best-effort}
	EOF
	run --separate-stderr magus queue gate --sandbox=required -- /bin/sh -c 'echo $MAGUS_SANDBOX'
	assert_success
	assert_output required
	run --separate-stderr magus queue gate --sandbox=off -- touch "$WS/ran"
	[ "$status" -eq 2 ]
	assert_code MGS2010
	run --separate-stderr magus queue gate --sandbox=strict -- touch "$WS/ran"
	[ "$status" -eq 2 ]
	assert_code MGS1002
	[ ! -e "$WS/ran" ]
}

@test "not a git repository: MGS1101, exit 2" {
	mkws "$T/plain" <<-'EOF'
	sandbox: {mode: best-effort}
	EOF
	cd "$T/plain"
	GIT_CEILING_DIRECTORIES=$T run --separate-stderr magus queue gate -- touch "$T/plain/ran"
	[ "$status" -eq 2 ]
	assert_code MGS1101
	[ ! -e "$T/plain/ran" ]
}

@test "no commit at HEAD: MGS1102, exit 2" {
	mkws "$T/empty" <<-'EOF'
	sandbox: {mode: best-effort}
	EOF
	git -C "$T/empty" init -q
	cd "$T/empty"
	run --separate-stderr magus queue gate -- touch "$T/empty/ran"
	[ "$status" -eq 2 ]
	assert_code MGS1102
	[ ! -e "$T/empty/ran" ]
}

@test "usage errors: no subcommand, an unknown one, no command, a stray word" {
	run --separate-stderr magus queue
	[ "$status" -eq 2 ]
	assert_code MGS1002
	run --separate-stderr magus queue merge
	[ "$status" -eq 2 ]
	assert_code MGS1002
	run --separate-stderr magus queue gate
	[ "$status" -eq 2 ]
	assert_code MGS1002
	run --separate-stderr magus queue gate true
	[ "$status" -eq 2 ]
	assert_code MGS1002
	run --separate-stderr magus queue gate --bogus -- true
	[ "$status" -eq 2 ]
	assert_code MGS1002
}
