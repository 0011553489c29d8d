#!/usr/bin/env bats
# The environment: replaced by the allowlist of spec/sandbox.md, so no
# secret-bearing variable reaches the child, by name or by value.

load lib/common
load lib/escape

setup() {
	escape_setup
	need_abi 3
	# The allowlist, each set to a harmless value.
	ALLOWED=(HOME="$HOME" PATH="$SBX_PATH" USER=root LOGNAME=root
		SHELL=/bin/sh LANG=C.UTF-8 LANGUAGE=en LC_ALL=C.UTF-8
		LC_CTYPE=C.UTF-8 TZ=UTC TERM=dumb COLORTERM=truecolor NO_COLOR=1
		COLUMNS=80 LINES=24 TMPDIR=/tmp MAGUS_SANDBOX=required)
}
teardown() { escape_teardown; }

# Every secret-bearing variable spec/sandbox.md names, and the usual rest.
# Each value is distinct, so a leak is found by value as well as by name.
SECRETS=(AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
	AWS_PROFILE AWS_SHARED_CREDENTIALS_FILE GITHUB_TOKEN GH_TOKEN
	VAULT_TOKEN VAULT_ADDR OP_SESSION_my_team NPM_TOKEN NODE_AUTH_TOKEN
	ANTHROPIC_API_KEY OPENAI_API_KEY SSH_AUTH_SOCK DOCKER_HOST
	MAGUS_CONTAINER_API GOOGLE_APPLICATION_CREDENTIALS KUBECONFIG
	CI_JOB_TOKEN GITLAB_TOKEN HF_TOKEN LD_LIBRARY_PATH BASH_ENV ENV
	PYTHONPATH PERL5OPT NODE_OPTIONS)

# Names that only look like allowlisted ones.
LOOKALIKES=(HOMEX HOME_TOKEN PATH_SECRET PATHEXT USERNAME USER_TOKEN
	TERM_TOKEN TZDATA LANGUAGE_KEY LC LINESX TMPDIRX MAGUS_SANDBOX_TOKEN
	SHELLX COLUMNS_SECRET NO_COLOR_TOKEN COLORTERMX LOGNAME2)

secret_value() { echo "escape-suite-secret-value-of-$1"; }

# env -i, the allowlist, the secrets and the look-alikes, then ARG...
with_secrets() {
	local v envv=()
	for v in "${SECRETS[@]}" "${LOOKALIKES[@]}"; do
		envv+=("$v=$(secret_value "$v")")
	done
	env -i "${ALLOWED[@]}" "${envv[@]}" SSH_AUTH_SOCK="$T/agent.sock" \
		DOCKER_HOST="unix://$T/docker.sock" \
		MAGUS_CONTAINER_API="unix://$T/engine.sock" LD_PRELOAD= "$@"
}

# Fail when any secret value is in the last run's output.
refute_secret_values() {
	local v
	for v in "${SECRETS[@]}" "${LOOKALIKES[@]}"; do
		refute_secrets "$(secret_value "$v")"
	done
}

expected_names() {
	local a
	for a in "${ALLOWED[@]}"; do echo "${a%%=*}"; done | LC_ALL=C sort
}

@test "every secret-bearing variable is stripped; the allowlist passes" {
	run --separate-stderr with_secrets "$ESCAPE_SANDBOX_EXEC" --mode required \
		--root "$WS" --tmp "$TMPD" -- "$WS/bin/esc-env"
	assert_success
	assert_equal "$(LC_ALL=C sort <<<"$output")" "$(expected_names)"
	refute_secret_values
}

@test "no secret value is in the child's /proc/self/environ" {
	run --separate-stderr with_secrets "$ESCAPE_SANDBOX_EXEC" --mode required \
		--root "$WS" --tmp "$TMPD" -- /bin/sh -c 'tr "\0" "\n" </proc/self/environ'
	assert_success
	assert_line "HOME=$HOME"
	assert_line "TMPDIR=$TMPD"
	refute_secret_values
	refute_output --partial "$T/agent.sock"
	refute_output --partial "$T/docker.sock"
}

@test "the forking path strips the same" {
	run --separate-stderr with_secrets "$ESCAPE_SANDBOX_EXEC" --mode required \
		--root "$WS" -- "$WS/bin/esc-env"
	assert_success
	assert_equal "$(LC_ALL=C sort <<<"$output")" "$(expected_names)"
	refute_secret_values
}

@test "-v names what it stripped (MGS2003) and the sockets withheld (MGS2008), never a value" {
	run --separate-stderr with_secrets "$ESCAPE_SANDBOX_EXEC" --mode required \
		--root "$WS" --tmp "$TMPD" -v -- "$WS/bin/esc-env"
	assert_success
	[[ "$stderr" == *"[MGS2003]"* ]]
	[[ "$stderr" == *"[MGS2008]"* ]]
	local v
	for v in AWS_SECRET_ACCESS_KEY GITHUB_TOKEN VAULT_TOKEN OP_SESSION_my_team \
		NPM_TOKEN ANTHROPIC_API_KEY; do
		[[ "$stderr" == *"$v"* ]] || fail "-v did not name $v"
	done
	grep -q 'MGS2008.*SSH_AUTH_SOCK' <<<"$stderr"
	refute_secret_values
	refute_output --partial "$T/agent.sock"
	[[ "$stderr" != *"$T/agent.sock"* ]] || fail "-v printed the socket path"
}

@test "the caller's TMPDIR is replaced by the private temp dir" {
	run --separate-stderr with_secrets "$ESCAPE_SANDBOX_EXEC" --mode required \
		--root "$WS" --tmp "$TMPD" -- /bin/sh -c 'echo "$TMPDIR"'
	assert_success
	assert_output "$TMPD"
}

@test "--passthrough NAME passes that one variable and nothing near it" {
	run --separate-stderr with_secrets NPM_TOKEN2=x "$ESCAPE_SANDBOX_EXEC" \
		--mode required --root "$WS" --tmp "$TMPD" --passthrough NPM_TOKEN -- \
		"$WS/bin/esc-env"
	assert_success
	assert_equal "$(LC_ALL=C sort <<<"$output")" \
		"$( (expected_names; echo NPM_TOKEN) | LC_ALL=C sort)"
}

@test "--passthrough PREFIX_* passes that prefix only" {
	run --separate-stderr with_secrets MISE_ENV=ci MISE_DATA_DIR=/x MISER=1 MISE=1 \
		"$ESCAPE_SANDBOX_EXEC" --mode required --root "$WS" --tmp "$TMPD" \
		--passthrough 'MISE_*' -- "$WS/bin/esc-env"
	assert_success
	assert_equal "$(LC_ALL=C sort <<<"$output")" \
		"$( (expected_names; echo MISE_ENV; echo MISE_DATA_DIR) | LC_ALL=C sort)"
}

@test "a variable naming a socket is withheld even when passed through (MGS2008)" {
	local pt
	for pt in SSH_AUTH_SOCK 'SSH_*' DOCKER_HOST 'DOCKER_*' MAGUS_CONTAINER_API 'MAGUS_*'; do
		run --separate-stderr with_secrets "$ESCAPE_SANDBOX_EXEC" --mode required \
			--root "$WS" --tmp "$TMPD" -v --passthrough "$pt" -- "$WS/bin/esc-env"
		assert_success
		refute_line SSH_AUTH_SOCK
		refute_line DOCKER_HOST
		refute_line MAGUS_CONTAINER_API
		grep -q 'MGS2008.*SSH_AUTH_SOCK' <<<"$stderr"
		grep -q 'MGS2008.*DOCKER_HOST' <<<"$stderr"
		grep -q 'MGS2008.*MAGUS_CONTAINER_API' <<<"$stderr"
	done
}

@test "the child inherits the floor: a nested sandbox asking for less is MGS2010" {
	cp "$ESCAPE_SANDBOX_EXEC" "$WS/bin/magus-sandbox-exec"
	run --separate-stderr env -u MAGUS_SANDBOX PATH="$SBX_PATH" \
		"$ESCAPE_SANDBOX_EXEC" --mode required --root "$WS" --tmp "$TMPD" -- \
		/bin/sh -c 'echo "$MAGUS_SANDBOX"; exec "$0" --mode off --root "$1" -- /bin/true' \
		"$WS/bin/magus-sandbox-exec" "$WS"
	[ "$status" -eq 2 ]
	assert_output required
	assert_code MGS2010
}
