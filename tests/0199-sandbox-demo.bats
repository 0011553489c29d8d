#!/usr/bin/env bats
# The README's quick start runs examples/demo/run.sh; this keeps the
# README true: its first command is the demo's, and the demo shows what
# the README says it shows.

load lib/common

setup() { common_setup; }
teardown() { common_teardown; }

# The indented command lines of the README's "Quick start" section.
quick_start() {
	sed -n '/^## Quick start/,/^## /s/^    \(.*\)/\1/p' "$MAGUS_SRC_DIR/README.md"
}

@test "the README's first quick-start command sets up and runs the demo" {
	run quick_start
	assert_success
	assert_line --index 0 './contrib/setup.sh && ./examples/demo/run.sh'
	assert_line --index 1 './contrib/setup.sh && make check'
}

@test "the demo runs as the README says: the build works, the credentials stay put" {
	local cmd abi
	abi=$("$MAGUS_BUILD_DIR/tests/escape/esc-abi")
	skip_unless "the kernel has no Landlock" test "$abi" -ge 1
	cmd=$(quick_start | head -n 1)
	# ./contrib/setup.sh built the tree this suite runs from; the rest of
	# the line runs as written, from the top of the source tree.
	[ "${cmd%% && *}" = ./contrib/setup.sh ]
	cd "$MAGUS_SRC_DIR"
	TMPDIR=$T run --separate-stderr /bin/sh -c "${cmd#* && }"
	assert_success
	assert_line --partial 'hello from a sandboxed build'
	assert_line --regexp '^  \| cat: .*/home/\.aws/credentials: Permission denied$'
	assert_line --regexp '^  \| cat: .*/home/\.ssh/id_rsa: Permission denied$'
	assert_line --partial 'postinstall: no $AWS_SECRET_ACCESS_KEY in the environment'
	assert_line --regexp '\[MGS2003\] .*AWS_SECRET_ACCESS_KEY'
	assert_line 'demo: credential reads were denied (EACCES, Permission denied) and'
	refute_output --partial 'not-a-real-secret'
	refute_output --partial 'on its way out'
	# It leaves nothing behind, in the temp dir or in the tree.
	run ls "$T"
	refute_output --partial magus-demo
	local top
	top=$(git -C "$MAGUS_SRC_DIR" rev-parse --show-toplevel 2>/dev/null) || top=
	if [ "$top" = "$(cd "$MAGUS_SRC_DIR" && pwd -P)" ]; then
		run git -C "$MAGUS_SRC_DIR" status --porcelain --ignored examples
		refute_output
	fi
}
