#!/usr/bin/env bats
# The child's environment: an allowlist, passthrough patterns, sockets
# withheld, names reported and never values.

load lib/common
load lib/sandbox

setup() { sandbox_setup; }
teardown() { sandbox_teardown; }

# The child's environment, one NAME=VALUE per line, sorted.
child_env() {
	sbx "$@" -- /usr/bin/env | sort
}

@test "only the allowlist crosses; TMPDIR is the private temp; MAGUS_SANDBOX the mode" {
	SBX_ENV="USER=me LOGNAME=me SHELL=/bin/sh LANGUAGE=en LC_ALL=C LC_TIME=C TZ=UTC COLORTERM=truecolor NO_COLOR=1 COLUMNS=80 LINES=24 TMPDIR=/elsewhere AWS_SECRET_ACCESS_KEY=$SECRET GITHUB_TOKEN=$SECRET VAULT_TOKEN=$SECRET OP_SESSION_x=$SECRET NPM_TOKEN=$SECRET ANTHROPIC_API_KEY=$SECRET MAGUS_ROOT=/x" \
		run --separate-stderr child_env --mode best-effort --tmp "$TMPD"
	assert_success
	names=$(cut -d= -f1 <<<"$output" | tr '\n' ' ')
	[ "$names" = "COLORTERM COLUMNS HOME LANG LANGUAGE LC_ALL LC_TIME LINES LOGNAME MAGUS_SANDBOX NO_COLOR PATH SHELL TERM TMPDIR TZ USER " ] ||
		fail "names: $names"
	assert_line "TMPDIR=$TMPD"
	assert_line "MAGUS_SANDBOX=best-effort"
	assert_line "HOME=$HOME"
	[[ "$output" != *"$SECRET"* ]]
	[[ "$stderr" != *"$SECRET"* ]]
}

@test "without --tmp the child's TMPDIR is a new 0700 directory, removed afterwards" {
	run --separate-stderr sbx --mode required -- /bin/sh -c \
		'echo "$TMPDIR"; stat -c %a "$TMPDIR"; echo x >"$TMPDIR/f" && cat "$TMPDIR/f"'
	assert_success
	dir=${lines[0]}
	[[ "$dir" == /tmp/magus-sandbox.* ]] || [[ "$dir" == "${TMPDIR:-/tmp}"/magus-sandbox.* ]]
	assert_line --index 1 700
	assert_line --index 2 x
	[ ! -e "$dir" ]
}

@test "-v lists the stripped names (MGS2003), never a value" {
	SBX_ENV="AWS_SECRET_ACCESS_KEY=$SECRET GITHUB_TOKEN=$SECRET" \
		run --separate-stderr sbx --mode best-effort -v -- true
	assert_success
	assert_code MGS2003
	[[ "$stderr" == *AWS_SECRET_ACCESS_KEY* && "$stderr" == *GITHUB_TOKEN* ]]
	[[ "$stderr" != *"$SECRET"* ]]
	# Without -v, not a word about them.
	SBX_ENV="AWS_SECRET_ACCESS_KEY=$SECRET" run --separate-stderr sbx --mode best-effort -- true
	[[ "$stderr" != *MGS2003* ]]
}

@test "--passthrough: an exact name, or a prefix ending in _*" {
	SBX_ENV="GOPATH=/go GOFLAGS=-x CARGO_HOME=/c CARGO_TARGET_DIR=/t CARGOX=no" \
		run --separate-stderr child_env --mode best-effort --passthrough GOPATH \
		--passthrough 'CARGO_*'
	assert_success
	assert_line GOPATH=/go
	assert_line CARGO_HOME=/c
	assert_line CARGO_TARGET_DIR=/t
	refute_line --partial GOFLAGS
	refute_line --partial CARGOX
}

@test "a passthrough prefix shorter than three characters or not ending in _: MGS2004, exit 2" {
	for pattern in 'M*' 'AB*' 'ABC*' 'A_*' '*' '' '1ABC' 'A-B'; do
		run --separate-stderr sbx --mode best-effort --passthrough "$pattern" -- touch "$WS/ran"
		[ "$status" -eq 2 ] || fail "'$pattern' was accepted"
		assert_code MGS2004
		[[ "$stderr" == *"'$pattern'"* ]]
	done
	[ ! -e "$WS/ran" ]
}

@test "a socket variable is never passed, even when a pattern names it (MGS2008)" {
	SBX_ENV="SSH_AUTH_SOCK=$OUT/agent DOCKER_HOST=unix:///run/docker.sock MAGUS_CONTAINER_API=unix:///run/podman.sock" \
		run --separate-stderr child_env --mode best-effort --passthrough SSH_AUTH_SOCK \
		--passthrough 'DOCKER_*'
	assert_success
	refute_line --partial SSH_AUTH_SOCK
	refute_line --partial DOCKER_HOST
	refute_line --partial MAGUS_CONTAINER_API
	# Asked for by name: said so without -v.
	assert_code MGS2008
	[[ "$stderr" == *SSH_AUTH_SOCK* && "$stderr" == *DOCKER_HOST* ]]
	[[ "$stderr" != *MAGUS_CONTAINER_API* ]]
	# Under -v every one is named.
	SBX_ENV="MAGUS_CONTAINER_API=unix:///run/podman.sock" \
		run --separate-stderr sbx --mode best-effort -v -- true
	[[ "$stderr" == *"[MGS2008] withheld MAGUS_CONTAINER_API"* ]]
}

@test "stripped variables of a PATH-shim manager: MGS2006 once, with the passthrough line" {
	SBX_ENV="MISE_DATA_DIR=/m MISE_SHELL=bash ASDF_DIR=/a" \
		run --separate-stderr sbx --mode best-effort -- true
	assert_success
	[ "$(grep -c MGS2006 <<<"$stderr")" -eq 1 ]
	[[ "$stderr" == *"MISE_DATA_DIR, MISE_SHELL"* ]]
	[[ "$stderr" == *"--passthrough 'MISE_*'"* ]]
	# Passed through, it is not stripped and nothing is said.
	SBX_ENV="MISE_DATA_DIR=/m" run --separate-stderr \
		sbx --mode best-effort --passthrough 'MISE_*' -- true
	[[ "$stderr" != *MGS2006* ]]
}

@test "a shims directory on PATH with variables stripped: MGS2006" {
	mkdir -p "$HOME/.asdf/shims"
	SBX_PATH=$HOME/.asdf/shims:$SBX_PATH SBX_ENV="SOMETHING=1" \
		run --separate-stderr sbx --mode best-effort -- true
	assert_success
	assert_code MGS2006
	[[ "$stderr" == *"$HOME/.asdf/shims"* ]]
	[[ "$stderr" == *"'ASDF_*'"* ]]
}

@test "mode off leaves the environment as it is" {
	SBX_ENV="AWS_SECRET_ACCESS_KEY=$SECRET MAGUS_ROOT=/x" run --separate-stderr \
		child_env --mode off
	assert_success
	assert_line "AWS_SECRET_ACCESS_KEY=$SECRET"
	assert_line MAGUS_ROOT=/x
}

@test "the child of a nested run inherits the mode as its floor" {
	cp "$(readlink -f "$SBX")" "$WS/sandbox-exec"
	run --separate-stderr sbx --mode required -- "$WS/sandbox-exec" --root "$WS" --mode off -- true
	[ "$status" -eq 2 ]
	assert_code MGS2010
	run --separate-stderr sbx --mode best-effort -- "$WS/sandbox-exec" --root "$WS" -- /bin/sh -c 'echo $MAGUS_SANDBOX'
	assert_success
	assert_output best-effort
}
